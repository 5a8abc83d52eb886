"""Every Python example of docs/guides/agents.md runs, as written, and prints what its comment says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "agents.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
EXPECTED = ["· 1 image · cost $0.0000", "About 2.1 million. True", "1.08 dollars. 2"]


def test_the_guide_has_its_examples() -> None:
    assert len(BLOCKS) == len(EXPECTED)
    assert all(len(block.strip().splitlines()) <= 12 for block in BLOCKS)  # README-sized


@pytest.mark.parametrize("index", range(len(EXPECTED)))
def test_each_example_runs_and_prints_what_it_says(index: int) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[index], f"{GUIDE}:block{index}", "exec"), {"__name__": "__guide__"})  # noqa: S102
    assert EXPECTED[index] in out.getvalue()
