"""Prices, context windows and capabilities of models, from the model registry.

The registry is ``ragkit/models.yaml`` (see :mod:`ragkit.model_info` for its format); a file in
the same format named by ``$RAGKIT_MODELS_FILE`` adds or replaces entries, and so do
:func:`register` and a pipeline's ``pricing:`` section (:func:`register_many`).

Matching never guesses a paid model free. A name matches an entry by its exact name or an alias
(case-insensitive), with a vendor prefix (``openai/gpt-4o``), or as a dated snapshot of it
(``gpt-4o-2024-08-06`` -> ``gpt-4o``; ``claude-sonnet-4-5-20250929``, ``mistral-large-2411``,
``command-r-08-2024``, ``gemini-2.0-flash-001``); an Ollama tag (``llama3.1:8b``) matches only a
local entry. A model served by a local vendor (``ollama``, ``vllm``, ``llamacpp``, ``local``)
costs 0 because it runs on your machine, whatever its name. The provider's own entries are
searched first; a name only another vendor sells is priced as that vendor sells it, a name several
vendors sell at different prices is *ambiguous*. Anything else is *unpriced*: the price functions
return ``None`` (shown as ``null`` / "unpriced", never $0) and log one warning per model naming
the two ways to add a price.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError
from ragkit.model_info import ModelInfo, RegistryFile, VendorInfo, parse_entry, read_registry

log = logging.getLogger(__name__)

ENV_VAR = "RAGKIT_MODELS_FILE"
REGISTRY_FILE = Path(__file__).with_name("models.yaml")
#: prefixes naming a vendor other than by its registry name (``google/gemini-2.5-pro``)
PREFIX_ALIASES = {"google": "gemini", "x-ai": "xai", "mistralai": "mistral", "together_ai": "together",
                  "togetherai": "together", "llama.cpp": "llamacpp", "llama-cpp": "llamacpp"}
_SNAPSHOT = re.compile(
    r"(?:-\d{4}-\d{2}-\d{2}|-20\d{6}|@20\d{6}|-(?:0[1-9]|1[0-2])-20\d{2}|-(?:0[1-9]|1[0-2])[0-3]\d"
    r"|-2[3-9](?:0[1-9]|1[0-2])|-0\d\d)$"
)
HOW_TO_PRICE = ("add its price with `pricing: {{{name}: {{input: USD_PER_MILLION, output: USD_PER_MILLION}}}}` in "
                "the pipeline YAML or ragkit.pricing.register({name!r}, input=..., output=...)")
HOW_TO_PRICE_EMBEDDING = ("add its price with `pricing: {{{name}: {{input: USD_PER_MILLION, kind: embedding}}}}` in "
                          "the pipeline YAML, `price_per_million:` in the embedder's options, or "
                          "ragkit.pricing.register({name!r}, input=..., kind='embedding')")


@dataclass(frozen=True)
class Match:
    """What :func:`lookup` found. ``status``: ``priced`` (``info`` has the price), ``local`` (costs 0
    by design; ``info`` may give the window), ``ambiguous`` (``candidates`` sell it at different
    prices) or ``unpriced``."""

    status: str
    info: ModelInfo | None = None
    candidates: tuple[ModelInfo, ...] = ()

    @property
    def local(self) -> bool:
        return self.status == "local"


class _Index:
    """Name -> entries, per vendor; built once from the files and the registered prices."""

    def __init__(self, files: list[RegistryFile], registered: list[ModelInfo]) -> None:
        self.vendors: dict[str, VendorInfo] = {}
        self.as_of = files[0].as_of if files else ""
        entries: dict[tuple[str, str], ModelInfo] = {}
        for f in files:
            self.vendors.update(f.vendors)
            for info in f.models:
                entries[(info.provider, info.name.lower())] = info
        self.by_vendor: dict[str, dict[str, ModelInfo]] = {}
        for info in entries.values():
            self._add(info)
        self.registered: dict[str, dict[str, ModelInfo]] = {}  # vendor or "*" -> name -> info
        for info in registered:
            table = self.registered.setdefault(info.provider or "*", {})
            for key in (info.name, *info.aliases):
                table[key.lower()] = info
        self.models = list(entries.values())

    def _add(self, info: ModelInfo) -> None:
        table = self.by_vendor.setdefault(info.provider, {})
        for key in (info.name, *info.aliases):
            table[key.lower()] = info

    def is_local(self, vendor: str | None) -> bool:
        return vendor is not None and self.vendors.get(vendor, VendorInfo(vendor)).local


_lock = threading.RLock()
_index: _Index | None = None
_registered: list[ModelInfo] = []
_warned: set[tuple[str, str | None]] = set()


_builtin: tuple[float, RegistryFile] | None = None  # (mtime, parsed): the packaged file, parsed once


def _packaged() -> RegistryFile:
    global _builtin
    mtime = REGISTRY_FILE.stat().st_mtime
    if _builtin is None or _builtin[0] != mtime:
        _builtin = (mtime, read_registry(REGISTRY_FILE))
    return _builtin[1]


def _get_index() -> _Index:
    global _index
    with _lock:
        if _index is None:
            builtin = _packaged()
            files = [builtin]
            env = os.environ.get(ENV_VAR)
            if env:
                files.append(read_registry(Path(env).expanduser(), known_vendors=builtin.vendors))
            _index = _Index(files, _registered)
        return _index


def reload() -> None:
    """Forget the parsed files, the registered prices and the warnings given (tests; after editing a file)."""
    global _index
    with _lock:
        _index = None
        _registered.clear()
        _warned.clear()


def vendors() -> dict[str, VendorInfo]:
    return dict(_get_index().vendors)


def as_of() -> str:
    """The date the packaged prices were checked (``as_of:`` in ``models.yaml``)."""
    return _get_index().as_of


def is_local(provider: str | None) -> bool:
    """True for a vendor that runs on your machine (``ollama``, ``vllm``, ``llamacpp``, ``local``)."""
    return _get_index().is_local(provider)


def models(*, provider: str | None = None, kind: str | None = None) -> list[ModelInfo]:
    """Every registry entry (registered prices included), optionally of one vendor and kind."""
    index = _get_index()
    seen: dict[tuple[str, str], ModelInfo] = {(i.provider, i.name.lower()): i for i in index.models}
    for table in index.registered.values():
        for info in table.values():
            seen[(info.provider or "*", info.name.lower())] = info
    return [i for i in seen.values() if (provider is None or i.provider == provider) and (kind is None or i.kind == kind)]


# --------------------------------------------------------------------------- matching


def lookup(model: str, provider: str | None = None) -> Match:
    """Find ``model`` as served by ``provider`` (a provider or vendor name; None: not known)."""
    index = _get_index()
    key = (model or "").strip().lower()
    vendor = (provider or "").strip().lower() or None
    prefix, _, rest = key.partition("/")
    hinted = PREFIX_ALIASES.get(prefix, prefix) if rest else None
    if hinted is not None and hinted not in index.vendors:
        hinted = None
    if index.is_local(vendor) or index.is_local(hinted):
        return Match("local", _window_entry(index, key, rest if hinted else None))
    if not key:
        return Match("unpriced")
    found = _registered_match(index, key, vendor)
    if found is not None:
        return Match("priced", found)
    own = index.by_vendor.get(vendor or "", {})
    for form in _forms(key):
        info = own.get(form)
        if info is not None and (form == key or not info.local):
            return Match("priced", info)
    candidates = _everywhere(index, key, allow_local=vendor is None or vendor not in index.vendors)
    if hinted is not None:  # openai/gpt-4o: the prefix names the vendor
        candidates += [i for f in _forms(rest) if (i := index.by_vendor.get(hinted, {}).get(f)) and not i.local]
    return _decide(candidates)


def _registered_match(index: _Index, key: str, vendor: str | None) -> ModelInfo | None:
    for table in (index.registered.get(vendor or "", {}), index.registered.get("*", {})):
        for form in _forms(key):
            if form in table:
                return table[form]
    return None


def _forms(key: str) -> list[str]:
    """The name, then its undated base (a dated snapshot)."""
    base = _SNAPSHOT.sub("", key)
    return [key] if base == key or not base else [key, base]


def _everywhere(index: _Index, key: str, *, allow_local: bool) -> list[ModelInfo]:
    out: list[ModelInfo] = []
    for table in index.by_vendor.values():
        info = table.get(key)
        if info is None:
            base = _forms(key)[-1]
            info = table.get(base) if base != key else None
            if info is not None and info.local:
                info = None  # a dated snapshot is never of a local model
        if info is None and allow_local and ":" in key:  # an Ollama tag: llama3.1:8b
            info = table.get(key.split(":", 1)[0])
            if info is not None and not info.local:
                info = None
        if info is not None and (allow_local or not info.local):
            out.append(info)
    return out


def _decide(candidates: list[ModelInfo]) -> Match:
    unique = list({(i.provider, i.name): i for i in candidates}.values())
    if not unique:
        return Match("unpriced")
    if all(i.local for i in unique):
        return Match("local", min(unique, key=lambda i: i.context_window or 0))
    prices = {(i.input, i.output, i.per_1k_searches, i.long_context) for i in unique}
    if len(prices) == 1 and not any(i.local for i in unique):
        return Match("priced", unique[0])
    return Match("ambiguous", None, tuple(unique))


def _window_entry(index: _Index, key: str, rest: str | None) -> ModelInfo | None:
    """An entry giving a locally served model's context window (the smallest if several do)."""
    found = _everywhere(index, key, allow_local=True) or (_everywhere(index, rest, allow_local=True) if rest else [])
    return min(found, key=lambda i: i.context_window or 10**12, default=None)


def model_info(model: str, provider: str | None = None) -> ModelInfo | None:
    """The entry for ``model`` as ``provider`` serves it, for its facts (window, output limit,
    capabilities, dimension), or None; never warns. Where the price is ambiguous or ``provider``
    is not the model's vendor (``nomic-embed-text`` through a generic endpoint), the entry of the
    same name elsewhere still gives the facts (the smallest window if several do) — never a price:
    the price functions use :func:`lookup`."""
    match = lookup(model, provider)
    if match.info is not None:
        return match.info
    if match.candidates:
        return min(match.candidates, key=lambda i: i.context_window or 10**12)
    key = (model or "").strip().lower()
    return _window_entry(_get_index(), key, key.partition("/")[2] or None)


def context_window(model: str, provider: str | None = None) -> int | None:
    info = model_info(model, provider)
    return info.context_window if info else None


def max_output_tokens(model: str, provider: str | None = None) -> int | None:
    info = model_info(model, provider)
    return info.max_output_tokens if info else None


# --------------------------------------------------------------------------- prices


def price_llm(model: str, input_tokens: int, output_tokens: int, *, provider: str | None = None,
              cached_input_tokens: int = 0, images: int = 0) -> float | None:
    """USD for one chat request; None when the model is unpriced (with one warning per model).
    ``images``: how many images the request carried. The vendors bill an image as input tokens
    (counted in ``input_tokens``), so a request with images is priced only when the entry says
    the model takes images (``vision: true``); otherwise its images, and so its cost, are unpriced."""
    match = lookup(model, provider)
    if match.local:
        return 0.0
    info = match.info
    if info is None or info.input is None or info.output is None:
        warn_unpriced(model, provider, match)
        return None
    if images and info.vision is not True:
        warn_images_unpriced(model, provider)
        return None
    rin, rout, rcached = info.rates(input_tokens)
    cached = max(0, min(cached_input_tokens, input_tokens))
    return ((input_tokens - cached) * rin + cached * rcached + output_tokens * rout) / 1e6


def embedding_rate(model: str, provider: str | None = None) -> float | None:
    """USD per million embedded tokens; None when unpriced (with one warning per model)."""
    match = lookup(model, provider)
    if match.local:
        return 0.0
    if match.info is None or match.info.input is None:
        warn_unpriced(model, provider, match, kind="embedding")
        return None
    return match.info.input


def price_embedding(model: str, tokens: int, *, provider: str | None = None) -> float | None:
    """USD for embedding ``tokens``; None when the model is unpriced."""
    rate = embedding_rate(model, provider)
    return None if rate is None else tokens * rate / 1e6


def unpriced_message(model: str, provider: str | None = None, match: Match | None = None, *,
                     kind: str = "chat") -> str:
    """Why ``model`` has no price, and how to give it one."""
    match = match or lookup(model, provider)
    via = f" through provider '{provider}'" if provider else ""
    fix = (HOW_TO_PRICE_EMBEDDING if kind == "embedding" else HOW_TO_PRICE).format(name=model)
    if match.status == "ambiguous":
        sellers = ", ".join(sorted({i.provider for i in match.candidates}))
        return (f"model {model!r}{via} is sold at different prices by {sellers}, and nothing says which one serves "
                f"it: its cost is unpriced (shown as null, never $0); use that vendor's provider preset, or {fix}")
    local_names = [i for i in _everywhere(_get_index(), model.strip().lower(), allow_local=True) if i.local]
    if local_names:
        return (f"model {model!r}{via} is the name of a local model, but nothing says a local server answers: its "
                f"cost is unpriced (shown as null, never $0); if a local server runs it, use the "
                f"'{local_names[0].provider}' provider (local models cost 0 by design), or {fix}")
    return (f"model {model!r}{via} is not in ragkit's model registry: its cost is unpriced (shown as null, "
            f"never $0); {fix}")


def warn_images_unpriced(model: str, provider: str | None = None) -> None:
    """Log once per (model, provider) that a request's images have no known price."""
    with _lock:
        first = (f"{model} (images)", provider) not in _warned
        _warned.add((f"{model} (images)", provider))
    if first:
        log.warning("model %r: the request carried images and the price entry does not say the model takes them "
                    "(vision: true), so the images' cost is unknown: the cost is unpriced (shown as null, never $0); "
                    "add vision: true to its entry (ragkit.pricing.register(%r, ..., vision=True) or `vision: true` "
                    "under pricing:) when the vendor bills images as input tokens", model, model)


def warn_unpriced(model: str, provider: str | None = None, match: Match | None = None, *,
                  kind: str = "chat") -> None:
    """Log :func:`unpriced_message` once per (model, provider)."""
    with _lock:
        first = (model, provider) not in _warned
        _warned.add((model, provider))
    if first:
        log.warning("%s", unpriced_message(model, provider, match, kind=kind))


# --------------------------------------------------------------------------- registering


def register(name: str, *, input: float, output: float | None = None, cached_input: float | None = None,
             provider: str | None = None, kind: str = "chat", context_window: int | None = None,
             max_output_tokens: int | None = None, dimension: int | None = None,
             aliases: tuple[str, ...] | list[str] = (), vision: bool | None = None,
             origin: str = "ragkit.pricing.register") -> ModelInfo:
    """Give ``name`` a price (USD per million tokens), for any provider or only ``provider``'s.

    It takes precedence over the registry file; registering a name again replaces its price.
    ``ragkit.pricing.register("house-llm", input=0.5, output=1.5, context_window=32_000)``"""
    entry: dict[str, Any] = {"kind": kind, "input": input, "output": output, "cached_input": cached_input,
                             "context_window": context_window, "max_output_tokens": max_output_tokens,
                             "dimension": dimension, "aliases": list(aliases), "vision": vision}
    where = f"{origin}: {name!r}"
    info = parse_entry({k: v for k, v in entry.items() if v is not None}, name=name, provider=provider or "",
                       local=False, where=where, origin=origin)
    if not info.priced:
        raise ConfigError(f"{where}: a chat model needs both input and output prices (USD per million tokens)")
    with _lock:
        global _index
        _registered[:] = [i for i in _registered
                          if not (i.name.lower() == name.lower() and i.provider == info.provider)]
        _registered.append(info)
        _index = None
        _warned.discard((name, provider))
    return info


def register_many(prices: Mapping[str, Mapping[str, Any]], *, origin: str) -> list[ModelInfo]:
    """``pricing:`` of a pipeline: ``{name: {input: ..., output: ..., provider: ..., ...}}``."""
    out = []
    for name, entry in prices.items():
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{origin}: pricing.{name}: expected a mapping such as {{input: 0.5, output: 1.5}}")
        fields = dict(entry)
        if "input" not in fields and "embedding" not in fields:
            raise ConfigError(f"{origin}: pricing.{name}: needs `input` (USD per million input tokens)")
        fields.setdefault("input", fields.pop("embedding", None))
        try:
            out.append(register(str(name), origin=f"{origin}: pricing.{name}", **fields))
        except TypeError as exc:
            raise ConfigError(f"{origin}: pricing.{name}: {exc}; allowed keys: input, output, cached_input, "
                              "provider, kind, context_window, max_output_tokens, dimension, aliases, vision") from None
    return out


__all__ = [
    "ENV_VAR",
    "Match",
    "ModelInfo",
    "as_of",
    "context_window",
    "embedding_rate",
    "is_local",
    "lookup",
    "max_output_tokens",
    "model_info",
    "models",
    "price_embedding",
    "price_llm",
    "register",
    "register_many",
    "reload",
    "unpriced_message",
    "vendors",
    "warn_images_unpriced",
    "warn_unpriced",
]
