"""Every Python example of the README runs, as written, and prints what the README says it prints.

The code blocks are read from README.md itself, so an example that goes stale fails here. A
block run by another test says so in an HTML comment above it (``<!-- ... tests/PATH runs this
block -->``); every other block must be one this module knows how to run.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"(?:<!--(?P<note>[^>]*?)-->\n)?```python\n(?P<code>.*?)```", re.DOTALL)
_RUN_BY = re.compile(r"(tests/[\w/.-]+\.py) runs this block")


@dataclass(frozen=True)
class Block:
    line: int
    code: str
    run_by: str | None  # a test file named in the comment above the block

    def run(self, namespace: dict[str, Any], **replace: str) -> str:
        """Execute the block (after the exact string replacements given); its stdout."""
        code = self.code
        for old, new in replace.items():
            assert old in code, f"README.md:{self.line}: the example no longer contains {old!r}"
            code = code.replace(old, new)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md:{self.line}", "exec"), namespace)  # noqa: S102
        return out.getvalue()


def blocks() -> list[Block]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for m in _BLOCK.finditer(text):
        run_by = _RUN_BY.search(m.group("note") or "")
        found.append(Block(text[: m.start("code")].count("\n") + 1, m.group("code"), run_by and run_by.group(1)))
    return found


def block(first_line: str) -> Block:
    """The README block whose code starts with ``first_line`` (the import that names it)."""
    matches = [b for b in blocks() if b.code.startswith(first_line)]
    assert len(matches) == 1, f"README.md has {len(matches)} Python blocks starting with {first_line!r}"
    return matches[0]


#: the first line of each block this module runs
HERE = ("from ragkit import Agent, LocalProvider, tool", "from ragkit.models import OpenAI\n",
        "from ragkit import RAGAgent\n", "from openai import OpenAI")


def test_every_python_example_is_run_by_a_test() -> None:
    for b in blocks():
        if b.run_by is not None:
            runner = ROOT / b.run_by
            assert runner.is_file(), f"README.md:{b.line} names {b.run_by}, which does not exist"
            assert "README" in runner.read_text(encoding="utf-8"), f"{b.run_by} does not read README.md"
        else:
            assert any(b.code.startswith(h) for h in HERE), (
                f"README.md:{b.line}: a Python example no test runs; add it to {Path(__file__).name} "
                "or name the test that runs it in a <!-- ... tests/PATH runs this block --> comment")


def test_the_first_example_counts_the_quoted_words(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace: dict[str, Any] = {}
    out = block(HERE[0]).run(namespace)
    assert out == "The word_count tool returned: 3\n"  # 'a b c', not the 6 words of the whole prompt
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    block(HERE[1]).run(namespace)  # the same agent against OpenAI-compatible servers: builds offline
    agent, local = namespace["agent"], namespace["local"]
    assert [t.name for t in agent.tools] == [t.name for t in local.tools] == ["word_count"]
    assert (agent.provider.model, local.provider.model) == ("gpt-4o-mini", "llama3.2")


@pytest.mark.slow
@pytest.mark.model
def test_questions_over_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "data", tmp_path / "data")
    shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGKIT_INDEX", str(tmp_path / ".ragkit" / "index"))
    lines = block(HERE[2]).run({}).splitlines()
    assert "67" in lines[0] and "[1]" in lines[0], lines[0]  # "... channel 67 ... [1]"
    number, source, page, start, end = lines[1].split()
    assert (number, source, page) == ("1", "field-manual.pdf", "2") and int(start) < int(end)
    assert "embedding" in lines[-1] and "$" in lines[-1]  # the usage line


@pytest.mark.slow
@pytest.mark.network_local
def test_any_openai_client_against_ragkit_serve(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from ragkit.config import parse_pipeline
    from ragkit.index.writer import IndexingPipeline
    from ragkit.testing.server_process import ragkit_server

    spec = parse_pipeline({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 256}},
                          origin="readme-test.yaml")
    IndexingPipeline(spec).index_paths([ROOT / "data"])
    with ragkit_server(tmp_path / "index") as server:
        out = block(HERE[3]).run({}, **{"http://127.0.0.1:8000/v1": server.base_url})
    content, citations, usage = out.splitlines()
    assert "67" in content and content.endswith("[1]"), content  # "... VHF channel 67. [1]"
    assert "'source': 'field-manual.pdf'" in citations and "'page': 2" in citations
    assert "'embedding_tokens'" in usage and "'cost'" in usage
