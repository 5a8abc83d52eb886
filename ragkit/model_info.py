"""``ModelInfo`` and the model registry file format (``ragkit/models.yaml``).

The file maps vendor -> model name -> entry; ``vendors:`` says where each vendor publishes its
prices and which vendors are local (price 0 by design). :func:`read_registry` parses and checks a
file (types, allowed keys, duplicate keys and aliases, with the line) and raises ``ConfigError``
naming the file and the key; :meth:`ModelInfo.missing` lists what a complete entry lacks (the
packaged file is checked by a test). :func:`render_constants` writes ``ragkit/models.py``, the
typed constants generated from the registry::

    python -m ragkit.model_info --write-constants
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError

KINDS = ("chat", "embedding", "rerank")
#: what a complete entry of each kind states (``cached_input`` may be null: the vendor has none)
REQUIRED: dict[str, tuple[str, ...]] = {
    "chat": ("input", "output", "cached_input", "context_window", "max_output_tokens", "tools", "vision",
             "json_schema"),
    "embedding": ("input", "dimension", "context_window"),
    "rerank": ("per_1k_searches", "context_window"),
}
_PRICES = ("input", "output", "cached_input", "per_1k_searches")
_COUNTS = ("context_window", "max_output_tokens", "dimension")
_FLAGS = ("tools", "vision", "json_schema", "deprecated")
_ALLOWED = {"kind", *_PRICES, *_COUNTS, *_FLAGS, "long_context", "aliases", "notes", "embedding", "provider"}
_VENDOR_KEYS = {"title", "prices", "models", "local"}


@dataclass(frozen=True)
class LongContext:
    """The rates a vendor charges when one request's input exceeds ``above`` tokens."""

    above: int
    input: float
    output: float
    cached_input: float | None = None


@dataclass(frozen=True)
class ModelInfo:
    """One model: list prices (USD per million tokens), limits and capabilities; None = not stated."""

    name: str
    provider: str
    kind: str = "chat"
    input: float | None = None
    output: float | None = None
    cached_input: float | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    tools: bool | None = None
    vision: bool | None = None
    json_schema: bool | None = None
    dimension: int | None = None
    per_1k_searches: float | None = None
    long_context: LongContext | None = None
    aliases: tuple[str, ...] = ()
    deprecated: bool = False
    notes: str = ""
    local: bool = False  # served by a local vendor: costs 0 by design
    origin: str = ""  # the file, pipeline or call that declared it

    @property
    def embedding(self) -> float | None:
        """The price of embedding a million tokens (an embedding model's ``input``)."""
        return self.input

    @property
    def priced(self) -> bool:
        if self.kind == "rerank":
            return self.per_1k_searches is not None
        return self.input is not None and (self.kind != "chat" or self.output is not None)

    def rates(self, input_tokens: int) -> tuple[float, float, float]:
        """(input, output, cached input) USD per million for a request of ``input_tokens``."""
        tier = self.long_context
        if tier is not None and input_tokens > tier.above:
            return tier.input, tier.output, tier.cached_input if tier.cached_input is not None else tier.input
        rin = self.input or 0.0
        return rin, self.output or 0.0, self.cached_input if self.cached_input is not None else rin

    def missing(self) -> list[str]:
        """The fields a complete entry of its kind states and this one does not."""
        return [k for k in REQUIRED[self.kind] if k != "cached_input" and getattr(self, k) is None]


@dataclass(frozen=True)
class VendorInfo:
    name: str
    title: str = ""
    prices: str = ""
    models: str = ""
    local: bool = False


@dataclass
class RegistryFile:
    path: Path
    as_of: str = ""
    vendors: dict[str, VendorInfo] = field(default_factory=dict)
    models: list[ModelInfo] = field(default_factory=list)
    #: (vendor, name) pairs whose entry states ``cached_input`` (possibly null)
    states_cached: set[tuple[str, str]] = field(default_factory=set)


# --------------------------------------------------------------------------- reading


def read_registry(path: Path, *, known_vendors: Mapping[str, VendorInfo] | None = None) -> RegistryFile:
    """Parse ``path``; ``known_vendors`` (the packaged file's) supply the local flag of a vendor a
    user file names without its own ``vendors:`` entry."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"model registry {path} does not exist; fix the path (or unset $RAGKIT_MODELS_FILE)") from exc
    try:
        raw = yaml.load(text, Loader=_unique_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ConfigError(f"model registry {path} is not valid YAML: {exc}") from exc
    except _DuplicateKey as exc:
        raise ConfigError(f"model registry {path}: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), dict):
        raise ConfigError(f"model registry {path}: expected a top-level mapping 'models:' of vendor -> model name -> entry")
    out = RegistryFile(path=path, as_of=str(raw.get("as_of") or ""))
    out.vendors = {**(known_vendors or {}), **_vendors(path, raw.get("vendors") or {})}
    for vendor, entries in raw["models"].items():
        if not isinstance(entries, dict):
            raise ConfigError(f"model registry {path}, key 'models.{vendor}': expected a mapping of model name -> "
                              f"entry (models: {{VENDOR: {{NAME: {{input: ..., output: ...}}}}}}), got {entries!r}")
        local = out.vendors.get(str(vendor), VendorInfo(str(vendor))).local
        seen: dict[str, str] = {}
        for name, entry in entries.items():
            info = parse_entry(entry, name=str(name), provider=str(vendor), local=local,
                               where=f"model registry {path}, key 'models.{vendor}.{name}'", origin=str(path))
            for key in (info.name, *info.aliases):
                if key.lower() in seen:
                    raise ConfigError(f"model registry {path}, key 'models.{vendor}.{name}': the name {key!r} is "
                                      f"already used by 'models.{vendor}.{seen[key.lower()]}'; a name means one model")
                seen[key.lower()] = info.name
            if isinstance(entry, dict) and "cached_input" in entry:
                out.states_cached.add((info.provider, info.name))
            out.models.append(info)
    return out


def _vendors(path: Path, raw: Any) -> dict[str, VendorInfo]:
    if not isinstance(raw, dict):
        raise ConfigError(f"model registry {path}, key 'vendors': expected a mapping of vendor -> {{prices, models, local}}")
    out = {}
    for name, entry in raw.items():
        entry = entry or {}
        unknown = sorted(set(entry) - _VENDOR_KEYS) if isinstance(entry, dict) else ["(not a mapping)"]
        if unknown:
            raise ConfigError(f"model registry {path}, key 'vendors.{name}': unknown key(s) {', '.join(unknown)}; "
                              f"allowed: {', '.join(sorted(_VENDOR_KEYS))}")
        out[str(name)] = VendorInfo(str(name), title=str(entry.get("title", "")), prices=str(entry.get("prices", "")),
                                    models=str(entry.get("models", "")), local=bool(entry.get("local", False)))
    return out


def parse_entry(entry: Any, *, name: str, provider: str, local: bool, where: str, origin: str) -> ModelInfo:
    """One entry (a mapping of the keys above) -> ``ModelInfo``; ``where`` starts every error."""
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping such as {{input: 2.5, output: 10}}, got {entry!r}")
    unknown = sorted(set(entry) - _ALLOWED)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_ALLOWED - {'embedding'}))}")
    kind = {"llm": "chat"}.get(entry.get("kind", "chat"), entry.get("kind", "chat"))
    if kind not in KINDS:
        raise ConfigError(f"{where}.kind: expected one of {', '.join(KINDS)}, got {entry.get('kind')!r}")
    values: dict[str, Any] = {}
    for key in _PRICES:
        values[key] = _number(entry.get(key), f"{where}.{key}", "a non-negative number (USD per million tokens)")
    if values["input"] is None and "embedding" in entry:  # the older spelling of an embedding price
        values["input"] = _number(entry["embedding"], f"{where}.embedding", "a non-negative number")
    for key in _COUNTS:
        values[key] = _count(entry.get(key), f"{where}.{key}")
    for key in _FLAGS:
        value = entry.get(key)
        if value is not None and not isinstance(value, bool):
            raise ConfigError(f"{where}.{key}: expected true or false, got {value!r}")
        values[key] = value
    aliases = entry.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
        raise ConfigError(f"{where}.aliases: expected a list of names, got {aliases!r}")
    return ModelInfo(
        name=name, provider=str(entry.get("provider") or provider), kind=kind,
        long_context=_long_context(entry.get("long_context"), f"{where}.long_context"),
        aliases=tuple(aliases), notes=str(entry.get("notes", "")), local=local, origin=origin,
        deprecated=bool(values.pop("deprecated")), **values,
    )


def _number(value: Any, where: str, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{where}: expected {what}, got {value!r}")
    return float(value)


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: expected a positive whole number of tokens, got {value!r}")
    return value


def _long_context(value: Any, where: str) -> LongContext | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"above", "input", "output", "cached_input"} or \
            not {"above", "input", "output"} <= set(value):
        raise ConfigError(f"{where}: expected {{above: TOKENS, input: USD, output: USD, cached_input: USD}}, got {value!r}")
    above = _count(value["above"], f"{where}.above")
    rin = _number(value["input"], f"{where}.input", "a non-negative number")
    rout = _number(value["output"], f"{where}.output", "a non-negative number")
    assert above is not None and rin is not None and rout is not None
    return LongContext(above, rin, rout, _number(value.get("cached_input"), f"{where}.cached_input", "a number"))


class _DuplicateKey(Exception):
    pass


def _unique_loader() -> type:
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if key in seen:
                    raise _DuplicateKey(f"duplicate key {key!r} on line {key_node.start_mark.line + 1} (first on line "
                                        f"{seen[key]}); each key may appear once")
                seen[key] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep=deep)

    return Loader


# --------------------------------------------------------------------------- typed constants

CONSTANTS_FILE = Path(__file__).with_name("models.py")


def constant_name(model: str) -> str:
    """``gpt-4.1-mini`` -> ``GPT_4_1_MINI``; ``meta-llama/Llama-3.3-70B-Instruct-Turbo`` ->
    ``META_LLAMA_LLAMA_3_3_70B_INSTRUCT_TURBO``."""
    name = re.sub(r"[^0-9A-Za-z]+", "_", model).strip("_").upper()
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = f"M_{name}"
    return name


def render_constants(registry: RegistryFile) -> str:
    """The source of ``ragkit/models.py``: one class per vendor, one ``Final`` string per model."""
    by_vendor: dict[str, list[ModelInfo]] = {}
    for info in registry.models:
        by_vendor.setdefault(info.provider, []).append(info)
    lines = [
        f'"""Typed model names for IDE completion, generated from ``ragkit/models.yaml`` (as of {registry.as_of}).',
        "",
        "    from ragkit.models import OpenAI",
        "    provider = OpenAIProvider(model=OpenAI.GPT_4O)",
        "",
        "Do not edit: regenerate with ``python -m ragkit.model_info --write-constants`` (a test checks that",
        "this file matches the registry). Prices and limits: ``ragkit models`` or ``ragkit.pricing.model_info``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
    ]
    names = []
    for vendor, infos in by_vendor.items():
        info = registry.vendors.get(vendor, VendorInfo(vendor))
        cls = info.title or vendor.capitalize()
        names.append(cls)
        kinds = " and ".join(sorted({i.kind for i in infos}))
        local = " (local: price 0 by design)" if info.local else ""
        lines += ["", "", f"class {cls}:", f'    """{cls} models ({kinds}){local}."""', ""]
        used: dict[str, str] = {}
        for i in infos:
            const = constant_name(i.name)
            if const in used:
                raise ConfigError(f"model registry: {vendor} models {used[const]!r} and {i.name!r} both become "
                                  f"{cls}.{const}; rename one")
            used[const] = i.name
            lines.append(f"    {const}: Final = {json.dumps(i.name)}")
    lines += ["", "", f"__all__ = {json.dumps(sorted(names))}", ""]
    return "\n".join(lines)


def _main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ragkit.model_info", description=__doc__.split("\n")[0])
    parser.add_argument("--write-constants", action="store_true", help=f"rewrite {CONSTANTS_FILE.name} from models.yaml")
    args = parser.parse_args(argv)
    registry = read_registry(Path(__file__).with_name("models.yaml"))
    text = render_constants(registry)
    if args.write_constants:
        CONSTANTS_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {CONSTANTS_FILE}")  # noqa: T201 - a developer command
    else:
        print(text)  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())


__all__ = ["KINDS", "REQUIRED", "LongContext", "ModelInfo", "RegistryFile", "VendorInfo", "constant_name",
           "parse_entry", "read_registry", "render_constants"]
