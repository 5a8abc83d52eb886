"""The model registry: prices (USD per million tokens) and context windows.

Loaded lazily from ``configs/models.yaml`` at the repository root, or from the file named by the
environment variable ``RAGKIT_MODELS_FILE``. Lookups accept exact names, aliases, a provider
prefix (``openai/gpt-4o``) and dated or tagged variants (``gpt-4o-mini-2024-07-18``,
``llama3.1:8b``). An unknown model costs 0 and logs one warning per name; it never raises.
A malformed file raises ``ConfigError`` naming the file and the key.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError

log = logging.getLogger(__name__)

ENV_VAR = "RAGKIT_MODELS_FILE"
DEFAULT_FILE = Path(__file__).resolve().parents[1] / "configs" / "models.yaml"
PACKAGED_FILE = Path(__file__).resolve().parent / "_data" / "models.yaml"  # a copy shipped in wheels
_KINDS = ("llm", "embedding", "rerank")
_NUMBER_KEYS = ("input", "output", "embedding", "per_1k_searches")
_ALLOWED_KEYS = {*_NUMBER_KEYS, "provider", "kind", "context_window", "aliases", "notes"}


@dataclass(frozen=True)
class ModelInfo:
    """One model's list prices (USD per million tokens) and context window."""

    name: str
    provider: str = "unknown"
    kind: str = "llm"
    input: float = 0.0
    output: float = 0.0
    embedding: float = 0.0
    per_1k_searches: float = 0.0
    context_window: int | None = None
    aliases: tuple[str, ...] = field(default_factory=tuple)


_lock = threading.Lock()
_cache: dict[Path, dict[str, ModelInfo]] = {}
_warned: set[str] = set()


def models_file() -> Path:
    """The file in effect: ``$RAGKIT_MODELS_FILE`` if set, else ``configs/models.yaml``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    if not DEFAULT_FILE.exists() and PACKAGED_FILE.exists():  # installed wheel without the repo
        return PACKAGED_FILE
    return DEFAULT_FILE


def load_models(path: Path | None = None) -> dict[str, ModelInfo]:
    """Name (and alias, lowercased) -> ModelInfo. Cached per file; ``reload()`` clears it."""
    path = path or models_file()
    with _lock:
        if path not in _cache:
            _cache[path] = _parse_file(path)
        return _cache[path]


def reload() -> None:
    """Forget cached files and warnings (after editing models.yaml, or in tests)."""
    with _lock:
        _cache.clear()
        _warned.clear()


def model_info(name: str) -> ModelInfo | None:
    """The registry entry for ``name`` or ``None`` (no warning) when it is unknown."""
    if not name:
        return None
    table = load_models()
    key = name.strip().lower()
    candidates = [key]
    if "/" in key:  # provider prefix: openai/gpt-4o, sentence-transformers/all-MiniLM-L6-v2
        candidates.append(key.split("/", 1)[1])
    for cand in candidates:
        if cand in table:
            return table[cand]
    for cand in candidates:  # dated or tagged variant: longest registered prefix wins
        best = max((k for k in table if _is_variant(cand, k)), key=len, default=None)
        if best is not None:
            return table[best]
    return None


def price_llm(model: str, input_tokens: int, output_tokens: int) -> float:
    """USD for a chat call; 0 (with one warning) for an unknown model."""
    info = _known(model)
    if info is None:
        return 0.0
    return (input_tokens * info.input + output_tokens * info.output) / 1e6


def price_embedding(model: str, tokens: int) -> float:
    """USD for embedding ``tokens``; 0 (with one warning) for an unknown model."""
    info = _known(model)
    if info is None:
        return 0.0
    rate = info.embedding if info.embedding else info.input
    return tokens * rate / 1e6


def context_window(model: str) -> int | None:
    info = model_info(model)
    return info.context_window if info else None


def _known(model: str) -> ModelInfo | None:
    info = model_info(model)
    if info is None:
        with _lock:
            first = model not in _warned
            _warned.add(model)
        if first:
            log.warning(
                "unknown model %r: its cost is counted as 0; add it to %s (or the file named by $%s)",
                model, models_file(), ENV_VAR,
            )
    return info


def _is_variant(name: str, registered: str) -> bool:
    if len(name) <= len(registered) or not name.startswith(registered):
        return False
    return name[len(registered)] in "-:@"


def _parse_file(path: Path) -> dict[str, ModelInfo]:
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(
            f"model registry {path} does not exist; create it or point ${ENV_VAR} at a models.yaml"
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"model registry {path} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), dict):
        raise ConfigError(f"model registry {path}: expected a top-level mapping 'models:' of name -> entry")
    table: dict[str, ModelInfo] = {}
    for name, entry in raw["models"].items():
        info = _parse_entry(path, str(name), entry)
        for key in (info.name, *info.aliases):
            table[key.lower()] = info
    return table


def _parse_entry(path: Path, name: str, entry: Any) -> ModelInfo:
    where = f"model registry {path}, key 'models.{name}'"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping with prices, got {entry!r}")
    unknown = sorted(set(entry) - _ALLOWED_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_ALLOWED_KEYS))}")
    values: dict[str, Any] = {}
    for key in _NUMBER_KEYS:
        value = entry.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{where}.{key}: expected a non-negative number (USD per million tokens), got {value!r}")
        values[key] = float(value)
    window = entry.get("context_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window <= 0):
        raise ConfigError(f"{where}.context_window: expected a positive integer, got {window!r}")
    kind = entry.get("kind", "llm")
    if kind not in _KINDS:
        raise ConfigError(f"{where}.kind: expected one of {', '.join(_KINDS)}, got {kind!r}")
    aliases = entry.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise ConfigError(f"{where}.aliases: expected a list of names, got {aliases!r}")
    return ModelInfo(
        name=name, provider=str(entry.get("provider", "unknown")), kind=kind,
        context_window=window, aliases=tuple(aliases), **values,
    )


__all__ = [
    "ENV_VAR",
    "ModelInfo",
    "context_window",
    "load_models",
    "model_info",
    "models_file",
    "price_embedding",
    "price_llm",
    "reload",
]
