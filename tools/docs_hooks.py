"""MkDocs hooks: the pages whose content comes from the code or from result files.

A page asks for generated content with a marker line, replaced before the page is rendered:

- ``<!-- generate: pipeline-keys -->``: every pipeline key, from the config models
  (``ragkit.config.PipelineSpec`` and its sections: type, default, bounds, the ``#:`` comment);
- ``<!-- generate: component-options -->``: each splitter, embedder, store and retriever ``type``
  with the options its constructor takes (what ``ragkit pipeline validate`` checks them against);
- ``<!-- generate: api -->``: a mkdocstrings block for every name ``ragkit`` exports, found where it
  is defined (so a module that moves moves its reference with it);
- ``<!-- generate: contracts -->``: the same for ``ragkit.contracts``;
- ``<!-- benchmark: NAME -->``: the table of ``benchmarks/results/NAME.json``
  (``benchmarks/render_tables.py``, which also prints it).

An unknown marker or a missing result file fails the build.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_MARKER = re.compile(r"^([ \t]*)<!-- (generate|benchmark): ([\w.-]+) -->$", re.MULTILINE)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:  # noqa: ARG001 - MkDocs' signature
    return _MARKER.sub(lambda m: _indent(_expand(m.group(2), m.group(3), page.file.src_path), m.group(1)), markdown)


def _indent(text: str, prefix: str) -> str:
    """A marker inside a list item is replaced at the item's indentation."""
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def _expand(kind: str, name: str, where: str) -> str:
    if kind == "benchmark":
        return _render_tables().render(ROOT / "benchmarks" / "results" / f"{name}.json")
    makers = {"pipeline-keys": pipeline_keys, "component-options": component_options,
              "api": lambda: api_blocks("ragkit"),
              "contracts": lambda: api_blocks("ragkit.contracts", skip=_exported("ragkit"))}
    if name not in makers:
        raise ValueError(f"{where}: unknown marker 'generate: {name}'; known: {', '.join(sorted(makers))}")
    return makers[name]()


def _render_tables() -> Any:
    spec = importlib.util.spec_from_file_location("render_tables", ROOT / "benchmarks" / "render_tables.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("render_tables", module)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------- pipeline keys


def pipeline_keys() -> str:
    from pydantic import BaseModel

    from ragkit.config import ComponentSpec, PipelineSpec

    out: list[str] = []
    top = [(name, f) for name, f in PipelineSpec.model_fields.items() if not f.exclude]
    out += ["## Top level", "", *_table(PipelineSpec, top), ""]
    defaults = PipelineSpec()
    for name, field in top:
        model = field.annotation
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        out += [f"## `{name}`", ""]
        doc = model.__dict__.get("__doc__")
        if doc and issubclass(model, ComponentSpec) is False:
            out += [_rst(_one_paragraph(inspect.cleandoc(doc))), ""]
        if issubclass(model, ComponentSpec):
            value = getattr(defaults, name).model_dump()
            out += [f"The default: `{_yaml(value)}`. Other keys are the options of the `type` "
                    "([component types](#component-types-and-their-options)).", ""]
        out += [*_table(model, list(model.model_fields.items())), ""]
        for sub, subfield in model.model_fields.items():
            inner = subfield.annotation
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                out += [f"### `{name}.{sub}`", "", *_table(inner, list(inner.model_fields.items())), ""]
    return "\n".join(out)


def _table(model: type, fields: list[tuple[str, Any]]) -> list[str]:
    notes = _field_comments(model)
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for name, field in fields:
        rows.append(f"| `{name}` | {_type(field.annotation)} | {_default(field)} | "
                    f"{_cell(_rst(' '.join(filter(None, [notes.get(name, ''), _bounds(field)]))))} |")
    return rows


def _field_comments(model: type) -> dict[str, str]:
    """``#:`` lines above a field and ``# ...`` after it, from the class source."""
    try:
        lines = inspect.getsource(model).splitlines()
    except (OSError, TypeError):
        return {}
    notes: dict[str, str] = {}
    pending: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:].strip())
            continue
        field = re.match(r"(\w+)\s*:[^=]+(?:=.*?)?(?:#\s*(.*))?$", stripped)
        if field and not stripped.startswith(("def ", "class ", "@", "return")):
            trailing = field.group(2) or ""
            notes[field.group(1)] = " ".join([*pending, trailing]).strip()
        pending = []
    return notes


def _type(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    text = text or str(annotation).replace("typing.", "")
    text = re.sub(r"ragkit\.config\.(\w+)Spec", r"\1", text)
    return f"`{text}`".replace("|", "\\|")


def _default(field: Any) -> str:
    from pydantic_core import PydanticUndefined


    if field.default_factory is not None:
        try:
            value = field.default_factory()
        except TypeError:
            return "—"
        if hasattr(value, "model_dump"):  # a section: its keys are listed below
            return "see below"
        if field.annotation is str and value == str(Path(".ragkit/index")):
            value = "${RAGKIT_INDEX:-.ragkit/index}"
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    return f"`{_yaml(value)}`".replace("|", "\\|")


def _yaml(value: Any) -> str:
    import json

    if hasattr(value, "model_dump"):
        return json.dumps(value.model_dump(exclude_defaults=False))
    return json.dumps(value) if not isinstance(value, str) or not value else value


def _bounds(field: Any) -> str:
    marks = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    found = [f"{sign} {getattr(m, op)}" for m in field.metadata for op, sign in marks.items() if hasattr(m, op)]
    return f"({', '.join(found)})" if found else ""


def _rst(text: str) -> str:
    """reStructuredText in docstrings and comments (````x````, ``:mod:`x```) as Markdown."""
    return re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text.replace("``", "`"))


def _one_paragraph(text: str) -> str:
    return " ".join(text.split("\n\n")[0].split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# ------------------------------------------------------------------------ component options


def component_options() -> str:
    from ragkit import registry
    from ragkit.wiring import wired

    out: list[str] = []
    for section, reg, kind in (("splitter", registry.splitters, "splitter"),
                               ("embedder", registry.embedders, "embedder"),
                               ("store", registry.stores, "store"),
                               ("retriever", registry.retrievers, "retriever")):
        out += [f"### `{section}.type`", "", "| type | options (default) |", "|---|---|"]
        for name in reg.names():
            out.append(f"| `{name}` | {_cell(_options(reg, name, wired(kind)))} |")
        out.append("")
    return "\n".join(out)


def _options(reg: Any, name: str, skip: frozenset[str] | set[str]) -> str:
    try:
        params = inspect.signature(reg.get(name)).parameters.values()
    except Exception as exc:  # noqa: BLE001 - a component whose extra is not installed
        return f"(not importable here: {type(exc).__name__})"
    shown = []
    for p in params:
        if p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        default = "" if p.default is p.empty else f" = `{_yaml(p.default)}`"
        shown.append(f"`{p.name}`{default}")
    return ", ".join(shown) or "—"


# ------------------------------------------------------------------------------- Python API


def _exported(module_name: str) -> set[str]:
    return set(getattr(importlib.import_module(module_name), "__all__", []))


def api_blocks(module_name: str, skip: set[str] | frozenset[str] = frozenset()) -> str:
    """One ``::: module.Name`` per exported name (less ``skip``), at the module that defines it."""
    module = importlib.import_module(module_name)
    blocks = []
    for name in sorted(getattr(module, "__all__", [])):
        if name.startswith("_") or name in skip:
            continue
        obj = getattr(module, name)
        home = getattr(obj, "__module__", None)
        if not home or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        blocks.append(f"::: {home}.{getattr(obj, '__qualname__', name)}\n")
    return "\n".join(blocks)
