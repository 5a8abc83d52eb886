"""One rule for a copied line that Markdown would read as structure: the chat-log, POD and Python
writers all escape a heading or a fence at a line's start, and nothing else."""

from __future__ import annotations

import pytest

from ragkit.loaders.base import escape_markdown_line
from ragkit.loaders.chat_log import chat_log_to_markdown
from ragkit.loaders.pod import pod_to_markdown
from ragkit.loaders.python_source import python_to_markdown
from ragkit.rag.extractive.text import clean_line
from ragkit.splitters.base import HEADING_LINE


@pytest.mark.parametrize(("line", "escaped"), [
    ("# Fares", "\\# Fares"),
    ("### ", "\\### "),
    ("#", "\\#"),
    ("  ## Fares", "  \\## Fares"),
    ("```python", "\\```python"),
    ("~~~", "\\~~~"),
])
def test_a_start_markdown_reads_as_structure_is_escaped(line: str, escaped: str) -> None:
    assert escape_markdown_line(line) == escaped
    assert not HEADING_LINE.match(escaped)
    if line.lstrip().startswith("#"):
        assert clean_line(escaped) == line.strip()  # the answerer shows a heading's mark as written


@pytest.mark.parametrize("line", ["#harbour is the channel", "####### seven", "`code` first", "~ about",
                                  "| pier | fare |", "    # indented code", "Fares # not at the start", ""])
def test_other_lines_are_kept_as_written(line: str) -> None:
    assert escape_markdown_line(line) == line


LOG = "\n".join(f"[10:0{i}] <ann> message {i}" for i in range(6)) + "\n# Fares\n#harbour\n"


def test_the_three_writers_escape_by_the_one_rule() -> None:
    log = chat_log_to_markdown(LOG)
    assert "\n\\# Fares\n" in log and "\n#harbour\n" in log  # a channel's name is no heading
    pod = pod_to_markdown("=head1 Fares\n\n=begin text\n\n  # Fares\n\n=end text\n\n=cut\n", name="fares")[0]
    assert "  \\# Fares" in pod
    module = python_to_markdown('"""Fares.\n\n  # Note\n```\n"""\nX = 1\n', "fares")
    assert module is not None and "  \\# Note\n\\```" in module
