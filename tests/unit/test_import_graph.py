"""ragkit's import graph has no circle and every arrow points down the layers of
``docs/architecture.md`` ("Layers"): every ``import`` counts, including those inside functions and under
``TYPE_CHECKING``."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import ragkit

ROOT = Path(ragkit.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    deps.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = {d for d in deps if d in modules and d != name and not name.startswith(d + ".")}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


#: design.md, "Layers" (docs/architecture.md shows them): a top-level module or package of ragkit
#: may import its own layer and those below, never one above; packages import in no circle.
LAYERS: dict[int, set[str]] = {
    1: {"errors", "types", "messages", "ids", "registry", "provider_names", "wiring", "option_values", "retry",
        "pricing", "model_info", "models", "connections", "tokens", "month_names",
        "markdown_tables"},  # values and vocabulary
    2: {"loaders", "splitters", "embedders", "stores", "vendors", "providers", "tools", "guardrails", "sessions",
        "cache", "usage", "config"},  # components
    3: {"index", "retrieval", "agent"},  # engines
    4: {"rag", "evaluation", "bench", "testing"},  # use cases (and the fakes and contract suites that ship)
    5: {"cli", "server", "mcp", "contracts", "__init__"},  # faces: the CLI, the servers, the public API
}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer_of() -> dict[str, int]:
    return {package: layer for layer, packages in LAYERS.items() for package in packages}


def _upward(graph: dict[str, set[str]], layer: dict[str, int], part: Callable[[str], str] = _package) -> list[str]:
    """Every import of a module from a higher layer than its own, as ``a -> b (2 -> 4)``."""
    return sorted(
        f"{a} -> {b} ({layer[part(a)]} -> {layer[part(b)]})"
        for a, deps in graph.items()
        for b in deps
        if layer[part(b)] > layer[part(a)]
    )


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for a, deps in graph.items():
        packages.setdefault(_package(a), set()).update(_package(b) for b in deps if _package(b) != _package(a))
    return packages


def test_every_package_has_a_layer() -> None:
    placed = _layer_of()
    assert sum(len(p) for p in LAYERS.values()) == len(placed), "a package is in two layers"
    unplaced = sorted({_package(m) for m in _modules()} - set(placed))
    assert unplaced == [], f"place {unplaced} in a layer of LAYERS (design.md, 'Layers')"


def test_the_layer_check_finds_an_upward_import() -> None:
    layer = {"messages": 1, "providers": 2, "agent": 3, "rag": 4}
    graph = {"ragkit.providers.x": {"ragkit.messages", "ragkit.rag.y"}, "ragkit.rag.y": {"ragkit.agent.z"}}
    assert _upward(graph, layer) == ["ragkit.providers.x -> ragkit.rag.y (2 -> 4)"]


def test_every_import_points_down() -> None:
    assert _upward(_graph(), _layer_of()) == []


def test_no_circle_between_packages() -> None:
    packages = _package_graph(_graph())
    assert {"index", "retrieval", "config", "agent", "providers"} <= set(packages)
    assert _cycles(packages) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_ragkit_has_no_import_circle() -> None:
    graph = _graph()
    assert "ragkit.index.components" in graph and "ragkit.retrieval.base" in graph["ragkit.index.components"]
    assert _cycles(graph) == []


#: Inside ``ragkit.agent`` the parts point down as well: the value types (``values.py``) import no
#: other part; the run and its records (state, result, config, ...) and their observation
#: (``observe/``) import only values and each other; the guard steps (``guard/``) may use the run but
#: not the loop; the loop, its drivers and the conversation owner use the guard and observe parts;
#: multi-agent runs (``multi/``) sit on the loop; only the package's ``__init__`` re-exports them all.
AGENT_PARTS: dict[int, set[str]] = {
    0: {"values"},
    1: {"observe", "result", "actions", "config", "memory", "structured", "tool_choice", "state"},
    2: {"guard"},
    3: {"loop", "drivers", "conversation"},
    4: {"multi"},
    5: {"__init__"},
}
AGENT_SUBPACKAGES = {"guard", "observe", "multi"}


def _agent_part(module: str) -> str:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def _agent_graph() -> dict[str, set[str]]:
    return {a: {b for b in deps if b.startswith("ragkit.agent")}
            for a, deps in _graph().items() if a == "ragkit.agent" or a.startswith("ragkit.agent.")}


def test_every_agent_module_has_a_part() -> None:
    placed = {name for names in AGENT_PARTS.values() for name in names}
    unplaced = sorted({_agent_part(m) for m in _agent_graph()} - placed)
    assert unplaced == [], f"place {unplaced} in a part of AGENT_PARTS"


def test_the_agent_package_has_few_top_level_modules() -> None:
    top = sorted(p.stem for p in (ROOT / "agent").glob("*.py") if p.stem != "__init__")
    assert len(top) <= 12, f"ragkit/agent/ has {len(top)} top-level modules ({top}); group them in a sub-package"
    packages = {p.name for p in (ROOT / "agent").iterdir() if (p / "__init__.py").is_file()}
    assert packages == AGENT_SUBPACKAGES


def test_agent_module_names_are_unique() -> None:
    stems = [p.stem for p in (ROOT / "agent").rglob("*.py") if p.stem != "__init__"]
    assert sorted({s for s in stems if stems.count(s) > 1}) == []


def test_the_agent_part_check_finds_an_upward_import() -> None:
    layer = {name: rank for rank, names in AGENT_PARTS.items() for name in names}
    graph = {"ragkit.agent.state": {"ragkit.agent.guard.approval"}, "ragkit.agent.loop": {"ragkit.agent.guard.decide"}}
    assert _upward(graph, layer, _agent_part) == ["ragkit.agent.state -> ragkit.agent.guard.approval (1 -> 2)"]


def test_agent_imports_point_down() -> None:
    layer = {name: rank for rank, names in AGENT_PARTS.items() for name in names}
    graph = _agent_graph()
    assert "ragkit.agent.guard.decide" in graph["ragkit.agent.loop"]
    assert _upward(graph, layer, _agent_part) == []
