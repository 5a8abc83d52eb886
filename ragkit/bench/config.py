"""``configs/bench.yaml`` (a copy ships in the package as ``ragkit/_data/bench.yaml``, used
outside the repository): named backends and profiles (dataset size, query counts, concurrency).

A *backend* is a store type plus its options, an optional query-parameter sweep (a dotted key into
the options, e.g. ``search.ef_search``, and its values), an optional server the bench starts
(``chroma`` or ``postgres``) and an optional ``max_queries`` cap for slow exact scans. A
*profile* picks the dataset, the backends, and per-backend overrides (merged into the backend).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError
from ragkit.registry import did_you_mean

SERVERS = ("chroma", "postgres")
BACKEND_KEYS = frozenset({"store", "options", "sweep", "server", "max_queries", "timeout_s"})
PROFILE_KEYS = frozenset(
    {"dataset", "backends", "overrides", "batch_size", "warmup", "concurrency", "filtered_queries", "k"}
)
DEFAULT_CONFIG = Path("configs/bench.yaml")
#: the copy shipped in the package; used when there is no ``configs/bench.yaml`` in the current directory
PACKAGED_CONFIG = Path(__file__).resolve().parents[1] / "_data" / "bench.yaml"


def config_path(path: Path | str | None) -> Path:
    """The bench config in effect: ``path`` when given (it must exist), else ``configs/bench.yaml``
    in the current directory, else the packaged copy."""
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(
                f"bench config {p} does not exist; pass an existing YAML file with --config, or leave "
                "--config out to use the built-in profiles (default, quick, msmarco)"
            )
        return p
    return DEFAULT_CONFIG if DEFAULT_CONFIG.is_file() else PACKAGED_CONFIG


@dataclass(frozen=True)
class Backend:
    name: str
    store: str
    options: dict[str, Any] = field(default_factory=dict)
    sweep_param: str | None = None
    sweep_values: tuple[Any, ...] = ()
    server: str | None = None
    max_queries: int | None = None
    timeout_s: float = 1800.0

    def settings(self) -> list[dict[str, Any]]:
        """One dict per query-parameter setting (``[{}]`` without a sweep)."""
        if not self.sweep_param:
            return [{}]
        return [{self.sweep_param: v} for v in self.sweep_values]


@dataclass(frozen=True)
class Profile:
    name: str
    dataset: dict[str, Any]
    backends: tuple[Backend, ...]
    batch_size: int = 5000
    warmup: int = 50
    concurrency: tuple[int, ...] = (1, 2, 4)
    filtered_queries: int = 200
    k: int = 10


def load_profile(
    path: Path | str | None,
    profile: str,
    *,
    backends: list[str] | None = None,
    dataset_overrides: Mapping[str, Any] | None = None,
) -> Profile:
    """Read the YAML, pick ``profile``, keep only ``backends`` (names) when given."""
    import yaml

    p = config_path(path)
    raw = yaml.safe_load(p.read_text()) or {}
    all_backends = raw.get("backends") or {}
    profiles = raw.get("profiles") or {}
    if profile not in profiles:
        raise ConfigError(f"{p}: unknown profile '{profile}'{did_you_mean(profile, profiles)}")
    prof = dict(profiles[profile])
    _check_keys(prof, PROFILE_KEYS, f"{p}: profiles.{profile}")
    names = list(prof.get("backends") or all_backends)
    if backends:
        for b in backends:
            if b not in all_backends:
                raise ConfigError(f"{p}: unknown backend '{b}'{did_you_mean(b, all_backends)}")
        names = [b for b in backends]
    overrides = prof.get("overrides") or {}
    built = tuple(
        _backend(name, _merge(all_backends.get(name), overrides.get(name)), f"{p}: backends.{name}")
        for name in names
    )
    dataset = dict(prof.get("dataset") or {})
    dataset.update({k: v for k, v in (dataset_overrides or {}).items() if v is not None})
    return Profile(
        name=profile,
        dataset=dataset,
        backends=built,
        batch_size=int(prof.get("batch_size", 5000)),
        warmup=int(prof.get("warmup", 50)),
        concurrency=tuple(int(c) for c in prof.get("concurrency", (1, 2, 4))),
        filtered_queries=int(prof.get("filtered_queries", 200)),
        k=int(prof.get("k", 10)),
    )


def _merge(base: Any, over: Any) -> Any:
    if isinstance(base, Mapping) and isinstance(over, Mapping):
        out = dict(base)
        for key, value in over.items():
            out[key] = _merge(base.get(key), value)
        return out
    return copy.deepcopy(over if over is not None else base)


def _check_keys(data: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise ConfigError(f"{where}: unknown key '{key}'{did_you_mean(str(key), allowed)}")


def _backend(name: str, raw: Any, where: str) -> Backend:
    if not isinstance(raw, Mapping) or "store" not in raw:
        raise ConfigError(f"{where}: a backend needs at least `store: <registry name>`")
    _check_keys(raw, BACKEND_KEYS, where)
    sweep = raw.get("sweep") or {}
    if sweep and (set(sweep) != {"param", "values"} or not sweep["values"]):
        raise ConfigError(f"{where}.sweep: give `param: <dotted option>` and a non-empty `values: [...]`")
    server = raw.get("server")
    if server is not None and server not in SERVERS:
        raise ConfigError(f"{where}.server: '{server}' is not one of {', '.join(SERVERS)}")
    return Backend(
        name=name,
        store=str(raw["store"]),
        options=dict(raw.get("options") or {}),
        sweep_param=sweep.get("param"),
        sweep_values=tuple(sweep.get("values") or ()),
        server=server,
        max_queries=raw.get("max_queries"),
        timeout_s=float(raw.get("timeout_s", 1800)),
    )


def set_dotted(options: Mapping[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``options`` with ``a.b.c`` set to ``value``."""
    out = copy.deepcopy(dict(options))
    node = out
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out
