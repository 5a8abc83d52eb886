"""The documentation site builds with ``mkdocs build --strict``: no broken link or anchor, no page
missing from the navigation or the navigation pointing at a missing page, every generated page
(command line, pipeline keys, Python API, benchmark tables) produced from the code and the result
files. Offline: the theme loads no web font and no plugin downloads anything."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "mkdocs_click"):
        pytest.importorskip(module, reason="pip install -e '.[docs]' (make test installs it)")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-4000:]}"
    return out


def test_the_site_builds_strict_with_its_generated_pages(site: Path) -> None:
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("ragkit-index", "ragkit-search", "ragkit-ask", "ragkit-serve-keys-create", "ragkit-mcp"):
        assert f'id="{command}"' in cli, f"the command-line reference lacks {command}"
    keys = (site / "reference" / "pipeline" / "index.html").read_text(encoding="utf-8")
    assert "flush_chunks" in keys and "respect_gitignore" in keys and "ef_search" in keys
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="ragkit.rag.agent.RAGAgent"' in api and 'id="ragkit.loaders.base.Loader"' in api
    stores = (site / "benchmarks" / "stores" / "index.html").read_text(encoding="utf-8")
    assert "faiss-hnsw" in stores and "<!-- benchmark:" not in stores


def test_no_generated_page_carries_an_issue_number(site: Path) -> None:
    issue = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)  # docstrings, help texts, rendered tables
    for page in site.rglob("*.html"):
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        found = issue.search(text)
        assert not found, f"{page.relative_to(site)}: {found.group()!r}"


def test_the_site_fetches_nothing_from_the_network(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "googletagmanager" not in text, page
