"""MkDocs' indented blocks (Python-Markdown admonitions, pymdownx's collapsible notes and content
tabs) read as the page shows them: the marker a label line, the block's text dedented, so a tab's
name stays beside its commands and a tip's sentence is prose. The pages are invented for the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ragkit.loaders.indented_blocks import render_indented_blocks
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

PAGE = '''# Ferry timetable tool

## Shell completion

Write the completion script once, then load it from your shell's start-up file.

=== "Bash"
    Write the script:

    ```console
    _FERRY_COMPLETE=bash_source ferry > ~/.ferry-complete.bash
    ```

=== "Z shell"
    Write the script:

    ```console
    _FERRY_COMPLETE=zsh_source ferry > ~/.ferry-complete.zsh
    ```

=== "PowerShell"
    Write the script:

    ```console
    ferry completion pwsh > ferry.ps1
    ```

## Limits

!!! warning "Harbour hours"
    Timetables are only published for crossings between 05:00 and 23:30.

    ??? note
        Night crossings run on request.

Plain text after the blocks.
'''


def test_markers_become_labels_and_their_text_is_dedented() -> None:
    text = render_indented_blocks(PAGE)
    assert "\nZ shell:\nWrite the script:\n\n```console\n_FERRY_COMPLETE=zsh_source ferry > ~/.ferry-complete.zsh\n```" in text
    assert "\nHarbour hours:\nTimetables are only published for crossings between 05:00 and 23:30.\n" in text
    assert "\nNote:\nNight crossings run on request.\n" in text
    assert "\nPlain text after the blocks.\n" in text and "===" not in text and "!!!" not in text


def test_text_that_only_looks_like_a_block_stays_as_written() -> None:
    setext = "Ferries\n===\n\nThe list.\n"
    assert render_indented_blocks(setext) == setext  # a heading's underline opens no tab
    fenced = "```text\n!!! note\n    not a block\n```\n"
    assert render_indented_blocks(fenced) == fenced
    code = "    !!! note\n        indented code\n"
    assert render_indented_blocks(code) == code
    assert render_indented_blocks('!!! tip ""\n    Untitled.\n') == "\nUntitled.\n"


def test_the_markdown_loader_reads_the_blocks(tmp_path: Path) -> None:
    page = tmp_path / "completion.md"
    page.write_text(PAGE, encoding="utf-8")
    [doc] = loaders.get("markdown")().load(page, source="completion.md")
    assert "PowerShell:\nWrite the script:" in doc.text


def test_an_answer_quotes_the_command_under_the_asked_tab() -> None:
    passages = markdown_passages(render_indented_blocks(PAGE), "completion.md", chunk_size=1200)
    answer = extractive_answer("I use zsh. Which command writes the ferry completion script for my shell?", passages)
    assert "zsh_source" in answer


@pytest.mark.parametrize("make", [
    lambda k: "!!! note\n" * 2 * k,
    lambda k: "".join(f"{'    ' * (i % 40)}=== \"T\"\n" for i in range(k)),
    lambda k: "!!! note\n" + " " * 10 * k + "x\n",
    lambda k: "=== " + '"' * 5 * k + "\n",
    lambda k: "!!! " + "a " * 3 * k + "\n",
])
def test_hostile_text_is_read_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(render_indented_blocks, make, 100_000)
