"""Claims of docs/architecture.md that a test can check: every path inside an index directory is
spelled in ``index/layout.py`` only, and the component registries are called only from the
components module or the exceptions the document names."""

from __future__ import annotations

import ast
from pathlib import Path

import ragkit
from ragkit.index.layout import IndexLayout

ROOT = Path(ragkit.__file__).parent
#: modules that may join such a name onto a folder that is not an index directory
NOT_INDEX_PATHS = {"testing/contract.py": "the store contract's fixture folder (pytest's tmp_path)"}


def _layout_names() -> set[str]:
    layout = IndexLayout("/index")
    paths = [getattr(layout, name) for name in dir(IndexLayout) if isinstance(getattr(IndexLayout, name), property)]
    return {p.name for p in paths if isinstance(p, Path)}


def _spelled_paths(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines that join one of ``names`` onto a path (``x / "name"``), name it in a module constant
    (``STATE_FILE = "state.db"``) or write ``.../name`` in a string."""
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant):
            if node.right.value in names:
                lines.append(node.lineno)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in names:
            if all(isinstance(target, ast.Name) and target.id.isupper() for target in node.targets):
                lines.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if any(node.value.endswith("/" + name) or f"/{name}/" in node.value for name in names):
                lines.append(node.lineno)
    return lines


def test_the_path_check_finds_a_spelled_path() -> None:
    code = ('"""A docstring may say <index>/state.db."""\ndb = root / "state.db"\nurl = f"sqlite:///{root}/state.db"\n'
            'key = {"store": 1}\nSTATE_FILE = "state.db"\nkind = "store"\n')
    assert sorted(_spelled_paths(ast.parse(code), {"state.db", "store"})) == [2, 3, 5]


def test_every_index_path_comes_from_the_layout() -> None:
    names = _layout_names()
    assert {"pipeline.yaml", "catalog.duckdb", "state.db", "uploads"} <= names
    found = {}
    for path in ROOT.rglob("*.py"):
        if path == ROOT / "index" / "layout.py" or str(path.relative_to(ROOT)) in NOT_INDEX_PATHS:
            continue
        lines = _spelled_paths(ast.parse(path.read_text(encoding="utf-8")), names)
        if lines:
            found[str(path.relative_to(ROOT))] = lines
    assert found == {}, f"spell these index paths through IndexLayout (ragkit/index/layout.py): {found}"


#: the component registries whose run-time callers the document names
COMPONENT_KINDS = {"embedders", "splitters", "stores", "retrievers"}
#: who besides ``index/components.py`` calls them, and why (docs/architecture.md lists the same)
REGISTRY_CALLERS = {
    "index/components.py": "builds every component of an index",
    "wiring.py": "a retriever spec's needs are its class's ``needs``",
    "evaluation/pipeline_eval.py": "builds the retriever under evaluation over an index's dense and bm25 parts",
    "bench/worker.py": "benchmarks build a store outside any index",
    "bench/datasets.py": "benchmarks embed a data set outside any index",
    "testing/embedder_contract.py": "the contract checks an embedder's registration",
}


def _registry_calls(tree: ast.AST) -> list[int]:
    """Lines that call ``get``/``names`` on a component registry (``registry.stores.get(...)`` or a
    registry imported by name, ``from ragkit.registry import stores``)."""
    bound = {alias.asname or alias.name for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module == "ragkit.registry"
             for alias in node.names if alias.name in COMPONENT_KINDS}
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"get", "names"}):
            continue
        owner = node.func.value
        if (isinstance(owner, ast.Name) and owner.id in bound) or (
                isinstance(owner, ast.Attribute) and owner.attr in COMPONENT_KINDS
                and isinstance(owner.value, ast.Name) and owner.value.id == "registry"):
            lines.append(node.lineno)
    return lines


def test_the_registry_check_finds_a_call() -> None:
    code = ("from ragkit import registry\nfrom ragkit.registry import stores as s\n"
            "a = registry.stores.get('faiss')\nb = s.names()\nc = {}.get('x')\n")
    assert _registry_calls(ast.parse(code)) == [3, 4]


def test_registries_are_called_only_where_the_document_says() -> None:
    callers = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if _registry_calls(ast.parse(p.read_text("utf-8")))}
    assert callers == set(REGISTRY_CALLERS)
    documented = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert all(f"`{path}`" in documented for path in REGISTRY_CALLERS)
