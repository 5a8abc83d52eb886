"""Every Python example of docs/guides/agents.md runs, as written, and prints what its comment
says; the README's copies of them (read with ``tests/doc_examples.py``) are the same code."""

from __future__ import annotations

import pytest

from ..doc_examples import ROOT, block, blocks

GUIDE = ROOT / "docs" / "guides" / "agents.md"
BLOCKS = [b.code for b in blocks(GUIDE)]
EXPECTED = ["· 1 image · cost $0.0000", "About 2.1 million. True", "1.08 dollars. 2"]


def test_the_guide_has_its_examples() -> None:
    assert len(BLOCKS) == len(EXPECTED)
    assert all(len(code.strip().splitlines()) <= 12 for code in BLOCKS)  # README-sized


def test_the_readme_shows_each_of_them() -> None:
    readme = [b.code for b in blocks(ROOT / "README.md")]
    assert all(code in readme for code in BLOCKS)


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_each_example_runs_and_prints_what_it_says(index: int) -> None:
    first = BLOCKS[index].splitlines()[0]
    out = block(first).run({"__name__": "__guide__"})  # wherever it stands, the copies agree
    assert EXPECTED[index] in out
