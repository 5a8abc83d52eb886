"""YAML records whose text is in their values (a security advisory's ``description: |``, a
election's eligibility rule): written out as Markdown, the prose as paragraphs the answerer can
quote, not one code block. A script, a template and a short value stay code. The records are
invented for the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ragkit.loaders.yaml_comments import has_prose_values, is_prose, yaml_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from tests.unit.linear_time import assert_linear

ADVISORY = """---
gem: tidegauge
cve: 2031-4417
url: https://example.org/advisories/tidegauge-4417
title: Unbounded recursion in TideGauge::Table#merge
date: 2031-03-02
description: |
  ### Summary

  TideGauge before 2.4.1 recurses once per nested harbour element when merging
  tables, so a crafted [tide table](https://example.org/tables) exhausts the stack.

  ### Mitigation

  Upgrade to TideGauge `>= 2.4.1`. If you cannot upgrade, call `Table#flatten`
  on untrusted tables before merging them, which removes the nesting.

  This issue was reported by harbourmaster-jo through the bounty programme.
cvss_v3: 7.5
patched_versions:
  - ">= 2.4.1"
"""

ELECTION = """name: 2031 Harbour Board Election
start_datetime: 2031-07-31 00:00:01
no_winners: 3
eligibility: A [crew member](https://example.org/ROLES.md) who has logged at least one sailing in the past 12 months. See the election guide.
"""


def test_a_prose_block_is_its_text_and_the_other_keys_items() -> None:
    text = yaml_to_markdown(ADVISORY, "CVE-2031-4417.yml")
    assert "- `title: Unbounded recursion in TideGauge::Table#merge`\n" in text
    assert ("- `description`\n\n### Summary\n\nTideGauge before 2.4.1 recurses once per nested harbour element "
            "when merging\ntables, so a crafted [tide table](https://example.org/tables) exhausts the stack.\n") in text
    assert "```" not in text.split("- `gem: tidegauge`")[1]  # the description is no code block
    assert "- `cvss_v3: 7.5`\n" in text and "- `patched_versions[]: \">= 2.4.1\"`" in text


def test_a_one_line_prose_value_is_said_after_its_key() -> None:
    text = yaml_to_markdown(ELECTION, "election.yaml")
    assert ("- `eligibility`: A [crew member](https://example.org/ROLES.md) who has logged at least one "
            "sailing in the past 12 months. See the election guide.\n") in text
    assert "- `no_winners: 3`" in text


@pytest.mark.parametrize(("text", "prose"), [
    (ADVISORY, True),
    (ELECTION, True),
    # a short description: as it is (a model's description file)
    ("description: >-\n  Counts ferries.\ntask_type: detection\nframework: onnx\nlicense: tide\n", False),
    # a shell script in a ConfigMap: echo lines hold words, but most of its lines are commands
    ("apiVersion: v1\nkind: ConfigMap\ndata:\n  init.sh: |\n    #!/bin/bash\n"
     "    echo \"Initialising the harbour desk, creating its directory structure now...\"\n"
     "    # Clean up the old logs or print them out for the operator to read\n"
     "    mkdir -p /data/harbour/conf\n    cp /config/app.ini /data/harbour/conf/app.ini\n", False),
    ("kind: ConfigMap\ndata:\n  run.sh: |\n    if [ ! -d /data/conf ]; then\n      mkdir -p /data/conf\n"
     "      echo \"Harbour configuration directory does not exist yet, so we create it now\"\n    fi\n"
     "    chmod 600 /data/conf/app.ini\n    cp /config/app.ini /data/conf/app.ini\n", False),
    # a template's value: code, though its message is a sentence
    ("kind: Secret\nmetadata:\n  name: harbour\ndata:\n  name: {{ required \"Values: harbour.name is mandatory "
     "when the harbour desk is enabled without an existing secret of its own.\" .name | b64enc }}\n", False),
    ("on: push\njobs:\n  build:\n    steps:\n      - run: |\n          pip install -e .[dev]\n          pytest -q tests\n", False),
])
def test_prose_values_are_told(text: str, prose: bool) -> None:
    assert has_prose_values(text) is prose


def test_prose_is_plain_words_not_commands() -> None:
    assert is_prose(["The harbour desk closes the booking when the tide falls below two metres, and reopens it later."])
    assert not is_prose(["mkdir -p /data/a", "cp /config/a.ini /data/a/a.ini", "chmod 600 /data/a/a.ini",
                         "chown harbour:harbour /data/a/a.ini", "echo done with the harbour desk setup for today"])


def test_the_text_loader_writes_out_a_record_with_prose(tmp_path: Path) -> None:
    path = tmp_path / "CVE-2031-4417.yml"
    path.write_text(ADVISORY, encoding="utf-8")
    [doc] = loaders.get("text")().load(path, source="gems/tidegauge/CVE-2031-4417.yml")
    assert doc.metadata["markup"] == "markdown" and "### Mitigation\n\nUpgrade to TideGauge" in doc.text


def test_an_answer_quotes_the_advisory_text(tmp_path: Path) -> None:
    path = tmp_path / "CVE-2031-4417.yml"
    path.write_text(ADVISORY, encoding="utf-8")
    [doc] = loaders.get("text")().load(path, source="gems/tidegauge/CVE-2031-4417.yml")
    chunks = MarkdownSplitter(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)  # as the pipeline splits it
    passages = [Passage(n, c.text, {"source": c.metadata["source"], "heading": c.metadata.get("heading", "")})
                for n, c in enumerate(chunks, 1)]
    answer = extractive_answer("What should we call on untrusted tables before merging them, if we cannot "
                               "upgrade TideGauge?", passages)
    assert answer.startswith("If you cannot upgrade, call `Table#flatten` on untrusted tables before merging them")


@pytest.mark.parametrize("make", [
    lambda k: "a: 1\nb: 2\nc: |\n" + "  word " * 10 * k + "\n",
    lambda k: "a: 1\nb: 2\nc: " + "[x](" * 10 * k + "\n",
    lambda k: "a: 1\nb: 2\nc: |\n" + "  [w](u) **x** `y`\n" * 2 * k,
    lambda k: "a: 1\nb: 2\n" + "d: the harbour is open all day long\n" * k,
])
def test_hostile_prose_values_are_read_in_linear_time(make: Callable[[str], str]) -> None:
    assert_linear(lambda text: (yaml_to_markdown(text, "r.yml"), has_prose_values(text)), make, 100_000)
