"""The Python examples of the README and the documentation site (``docs/``), read from the files.

Tests run the examples as written, so an example that goes stale fails. A block run by a test
that is not ``tests/integration/test_readme_examples.py`` says so in an HTML comment right above
it (``<!-- ... tests/PATH runs this block -->``). The same example may appear in several files
(the README and a guide): :func:`block` finds it wherever it is, and insists the copies agree.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"(?:<!--(?P<note>[^>]*?)-->\n)?```python\n(?P<code>.*?)```", re.DOTALL)
_RUN_BY = re.compile(r"(tests/[\w/.-]+\.py) runs this block")


def doc_files() -> list[Path]:
    """README.md and every page of the documentation site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    code: str
    run_by: str | None  # a test file named in the comment above the block

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def replaced(self, replace: dict[str, str]) -> str:
        """The block's code after the exact string replacements given (each must occur)."""
        code = self.code
        for old, new in replace.items():
            assert old in code, f"{self.where}: the example no longer contains {old!r}"
            code = code.replace(old, new)
        return code

    def run(self, namespace: dict[str, Any], **replace: str) -> str:
        """Execute the block (after the exact string replacements given); its stdout."""
        code = self.replaced(replace)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, self.where, "exec"), namespace)  # noqa: S102
        return out.getvalue()


def blocks(*paths: Path) -> list[Block]:
    """The Python blocks of ``paths`` (default: every documentation file), in order."""
    found = []
    for path in paths or doc_files():
        text = path.read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            run_by = _RUN_BY.search(m.group("note") or "")
            found.append(Block(path, text[: m.start("code")].count("\n") + 1, m.group("code"),
                               run_by and run_by.group(1)))
    return found


def block(first_line: str, *paths: Path) -> Block:
    """The block whose code starts with ``first_line`` (the import that names it)."""
    matches = [b for b in blocks(*paths) if b.code.startswith(first_line)]
    assert matches, f"no Python example in the documentation starts with {first_line!r}"
    differ = [b.where for b in matches if b.code != matches[0].code]
    assert not differ, f"copies of the example {first_line!r} differ: {matches[0].where} and {', '.join(differ)}"
    return matches[0]


def blocks_run_by(test_file: str) -> list[Block]:
    """The blocks whose comment names ``test_file`` (``tests/...py``) as the test that runs them."""
    return [b for b in blocks() if b.run_by == test_file]
