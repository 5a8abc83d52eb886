"""The documentation is written for its reader: no internal issue numbers in the code, the README or
the site (history goes in CHANGELOG.md and commit messages), a README short enough to read, and
benchmark tables that come from result files (every marker has its file, every file its page)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
RUN_FACTS = re.compile(r"\b20\d\d-\d\d-\d\d\b|\bload (?:average|avg)\b|\bload \d|\b\d\d:\d\d UTC\b", re.IGNORECASE)
MARKER = re.compile(r"^[ \t]*<!-- benchmark: ([\w.-]+) -->$", re.MULTILINE)  # as tools/docs_hooks.py reads it
RESULTS = ROOT / "benchmarks" / "results"
#: the files of ragkit/ read as text (code, data, the web page)
def _tables() -> list[Path]:
    """The result files that are tables (``render_tables``' shape); other JSON there is raw run data."""
    return sorted(p for p in RESULTS.glob("*.json") if {"columns", "rows"} <= set(json.loads(p.read_text(encoding="utf-8"))))


TEXT_SUFFIXES = {".py", ".yaml", ".yml", ".txt", ".md", ".html", ".js", ".css", ".json", ".toml"}


def _text_files() -> list[Path]:
    code = [p for folder in ("ragkit", "benchmarks", "tools", "pipelines") for p in (ROOT / folder).rglob("*")
            if p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts and "results" not in p.parts]
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted(code)]


def test_no_issue_numbers_in_code_readme_or_docs() -> None:
    """ragkit/, benchmarks/, tools/ and pipelines/ (the result files keep the issue a run was for, as data)."""
    found = []
    for path in _text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if ISSUE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, ("an internal issue number in code or user docs (say what the code does or what was "
                       "measured; the history goes in CHANGELOG.md and commit messages):\n" + "\n".join(found))


def test_no_issue_numbers_in_tests() -> None:
    """Test docstrings and comments say what is checked, not which issue asked for it (this file's
    own examples of the pattern excepted)."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if ISSUE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "an internal issue number in a test (the history goes in commit messages):\n" + "\n".join(found)


def test_the_pattern_catches_what_it_must() -> None:
    assert ISSUE.search("the recipe of issue 25") and ISSUE.search("Issues 6 and 25") and ISSUE.search("issue #7")
    assert not ISSUE.search("an issue with 3 files") and not ISSUE.search("tissue 4")


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines; keep it at 250 or fewer and move the rest to docs/"


def test_the_readme_links_only_to_files_that_exist() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]
    assert targets, "the README links to no page of the documentation"
    missing = [t for t in targets if t and not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_readme_shows_a_python_and_a_serving_example() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    python = text[text.index("## Python"):text.index("## Serving")]
    assert "```python" in python and "```python" in text[text.index("## Serving"):]


def _render_tables():  # benchmarks/ is not a package: load the script as a module
    spec = importlib.util.spec_from_file_location("render_tables", ROOT / "benchmarks" / "render_tables.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_benchmark_table_has_its_result_file_and_every_file_its_page() -> None:
    markers = {m for page in (ROOT / "docs").rglob("*.md") for m in MARKER.findall(page.read_text(encoding="utf-8"))}
    files = {p.stem for p in _tables()}
    assert markers - files == set(), f"pages show tables without a result file: {sorted(markers - files)}"
    assert files - markers == set(), f"result files no page shows: {sorted(files - markers)}"


@pytest.mark.parametrize("name", [p.stem for p in _tables()])
def test_every_result_file_renders_and_says_where_it_came_from(name: str) -> None:
    data = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    assert data["title"] and data.get("command") or data.get("source"), f"{name}.json: no title or command"
    table = _render_tables().render(RESULTS / f"{name}.json").splitlines()
    cells = re.split(r"(?<!\\)\|", table[0])[1:-1]  # an escaped \| is inside a cell
    shown = [c for c in data["columns"] if c not in data.get("hidden_columns", [])]
    assert len(table) == 2 + len(data["rows"]) and len(cells) == len(shown)
    # the run's date, load and commit stay in the file; what the documentation shows is the result
    text = "\n".join(table)
    for pattern in (ISSUE, RUN_FACTS):
        assert not pattern.search(text), f"{name}.json shows {pattern.search(text).group()!r}: keep it in 'conditions'"


def test_a_result_written_by_a_script_renders(tmp_path: Path) -> None:
    render_tables = _render_tables()
    path = render_tables.write_result("demo", title="t", command="python x.py", columns=["path", "s"],
                                      rows=[["a", 1.25], ["b", {"value": 1234.5, "bold": True}]], decimals=[None, 1],
                                      align=["left", "right"], directory=tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["machine"]["cores"] and "load_average" in data["conditions"]
    assert render_tables.render(path) == "| path | s |\n|---|---:|\n| a | 1.2 |\n| b | **1,234.5** |\n"
