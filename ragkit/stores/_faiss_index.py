"""Options, index construction and search parameters for the ``faiss`` store.

Kept apart from ``faiss.py`` so the store reads as bookkeeping (labels, tombstones, files) and
this module as the FAISS specifics. ``faiss`` itself is imported only by ``import_faiss``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragkit.errors import ConfigError, MissingDependencyError
from ragkit.registry import did_you_mean

AUTO = None
# index kind -> build parameter defaults (None = chosen from the data: "auto")
BUILD_DEFAULTS: dict[str, dict[str, Any]] = {
    # segmented (``ragkit.stores.faiss``): merged segments of ann_min+ rows get an approximate
    # index: ann pq = PQ fast scan + exact re-rank (pq_m auto = d/2, then d if recall falls short),
    # ann ivfpq = the same codes in IVF lists (nlist auto = 4 sqrt(rows)), ann ivf = IVF lists of
    # float rows (nlist auto = sqrt(rows))
    "auto": {"ann": "pq", "ann_min": 20_000, "pq_m": AUTO, "nlist": AUTO, "merge_factor": 8},
    "flat": {"merge_factor": 8},
    "hnsw": {"M": 32, "ef_construction": 200},
    "ivf_flat": {"nlist": AUTO, "train_min": 1000},
    "ivf_pq": {"nlist": AUTO, "train_min": 1000, "pq_m": AUTO, "pq_nbits": 8},
}
# index kind -> query-time parameter defaults
SEARCH_DEFAULTS: dict[str, dict[str, int | None]] = {
    # exact search below exact_max live rows; rerank (pq, ivfpq) and nprobe (ivfpq, ivf) auto = what reached
    # recall@10 >= 0.95 when the segment was built
    "auto": {"exact_max": 100_000, "rerank": AUTO, "nprobe": AUTO},
    "flat": {},
    "hnsw": {"ef_search": 64},
    "ivf_flat": {"nprobe": 16},
    "ivf_pq": {"nprobe": 16, "refine": 10},
}
INDEX_KINDS = tuple(BUILD_DEFAULTS)
#: parameters that take one of a few words instead of a number
CHOICES = {"ann": ("pq", "ivfpq", "ivf")}
#: kinds kept in append-only segments (``stores/_segments.py``); the others are one file each
SEGMENTED = ("auto", "flat")


@dataclass(frozen=True)
class FaissOptions:
    """Validated options: ``build`` shapes the index, ``search`` applies to every query."""

    kind: str
    build: dict[str, Any] = field(default_factory=dict)
    search: dict[str, int | None] = field(default_factory=dict)

    @property
    def is_ivf(self) -> bool:
        return self.kind.startswith("ivf")

    def train_threshold(self) -> int:
        """Live rows needed before an IVF index is trained (exact search until then)."""
        need = int(self.build["train_min"] or 0)
        if self.build.get("nlist"):
            need = max(need, 39 * int(self.build["nlist"] or 1))
        return need

    def nlist_for(self, n: int) -> int:
        """The configured ``nlist``, or ≈4·sqrt(n) capped so each list gets ≥39 training points."""
        if self.build.get("nlist"):
            return int(self.build["nlist"] or 1)
        return max(1, min(int(4 * math.sqrt(n)), n // 39))


def import_faiss() -> Any:
    try:
        import faiss  # noqa: PLC0415 - heavy optional import, on first use only
    except ImportError as exc:
        raise MissingDependencyError("faiss-cpu", "faiss", "the faiss vector store") from exc
    return faiss


def parse_options(
    dimension: int, kind: str, build: Mapping[str, Any] | None, search: Mapping[str, Any] | None
) -> FaissOptions:
    """Check ``index``/``build``/``search`` and fill in defaults; ConfigError names the bad key."""
    if not isinstance(dimension, int) or dimension < 1:
        raise ConfigError(f"faiss store: dimension must be a positive integer (got {dimension!r})")
    if kind not in BUILD_DEFAULTS:
        raise ConfigError(f"faiss store: unknown index '{kind}'{did_you_mean(str(kind), INDEX_KINDS)}")
    b = _merge("build", kind, BUILD_DEFAULTS[kind], build, auto_ok={"nlist", "pq_m"})
    s = _merge("search", kind, SEARCH_DEFAULTS[kind], search, auto_ok={"nprobe", "rerank"} if kind == "auto" else set())
    if kind == "ivf_pq":
        nbits = int(b["pq_nbits"] or 8)
        if nbits > 16:
            raise ConfigError(f"faiss store: build.pq_nbits must be between 1 and 16 (got {nbits})")
        if b["pq_m"] is None:
            b["pq_m"] = default_pq_m(dimension)
        if dimension % int(b["pq_m"] or 1):
            raise ConfigError(
                f"faiss store: build.pq_m must divide the dimension {dimension} (got {b['pq_m']}); "
                f"try {default_pq_m(dimension)}"
            )
        if int(b["train_min"] or 0) < 2**nbits:
            raise ConfigError(
                f"faiss store: build.train_min must be at least 2**pq_nbits = {2**nbits} "
                f"(got {b['train_min']}) so the product quantizer can be trained"
            )
    if kind == "auto" and b["pq_m"] is not None and dimension % int(b["pq_m"]):
        raise ConfigError(f"faiss store: build.pq_m must divide the dimension {dimension} (got {b['pq_m']}); "
                          f"try {dimension // 2 or 1} or auto")
    if kind in SEGMENTED and int(b["merge_factor"] or 2) < 2:
        raise ConfigError(f"faiss store: build.merge_factor must be at least 2 (got {b['merge_factor']})")
    return FaissOptions(kind=kind, build=b, search={k: None if v is None else int(v) for k, v in s.items()})


def _merge(
    section: str, kind: str, defaults: Mapping[str, int | None], given: Mapping[str, Any] | None,
    *, auto_ok: set[str],
) -> dict[str, int | None]:
    if given is not None and not isinstance(given, Mapping):
        raise ConfigError(f"faiss store: '{section}' must be a mapping of parameters (got {given!r})")
    out = dict(defaults)
    for key, value in (given or {}).items():
        if key not in defaults:
            allowed = ", ".join(sorted(defaults)) or "none"
            raise ConfigError(
                f"faiss store: unknown {section} parameter '{key}' for index '{kind}'; allowed: {allowed}"
            )
        if key in auto_ok and value in (None, "auto"):
            out[key] = None
            continue
        if key in CHOICES:
            if value not in CHOICES[key]:
                raise ConfigError(f"faiss store: {section}.{key} must be one of {', '.join(CHOICES[key])} (got {value!r})")
            out[key] = value
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(
                f"faiss store: {section}.{key} must be a positive integer"
                f"{' or auto' if key in auto_ok else ''} (got {value!r})"
            )
        out[key] = value
    return out


def default_pq_m(dimension: int) -> int:
    """The largest divisor of ``dimension`` that is at most dimension/8 (8+ dims per sub-quantizer).

    Training cost grows with the number of sub-quantizers (384-d: 48 trains ~2.5x faster than 96)
    and the exact re-ranking (``search.refine``) recovers the recall a coarser code loses.
    """
    cap = max(1, dimension // 8)
    return max(m for m in range(1, cap + 1) if dimension % m == 0)


def build_index(faiss: Any, opts: FaissOptions, dimension: int, n_train: int = 0) -> tuple[Any, int]:
    """A new empty index (IVF: its factory string needs ``nlist``). Returns (index, nlist or 0)."""
    metric = faiss.METRIC_INNER_PRODUCT
    b = opts.build
    if opts.kind in SEGMENTED:
        return faiss.IndexFlatIP(dimension), 0
    if opts.kind == "hnsw":
        index = faiss.IndexHNSWFlat(dimension, int(b["M"] or 32), metric)
        index.hnsw.efConstruction = int(b["ef_construction"] or 200)
        return index, 0
    nlist = opts.nlist_for(n_train)
    if opts.kind == "ivf_flat":
        return faiss.index_factory(dimension, f"IVF{nlist},Flat", metric), nlist
    # "np": no polysemous training, which costs ~40 s and only helps Hamming-distance search
    spec = f"IVF{nlist},PQ{b['pq_m']}x{b['pq_nbits']}np"
    return faiss.index_factory(dimension, spec, metric), nlist


def search_params(faiss: Any, opts: FaissOptions, k: int, nlist: int, sel: Any) -> Any:
    if opts.kind == "hnsw":
        return faiss.SearchParametersHNSW(efSearch=max(opts.search["ef_search"], k), sel=sel)
    if opts.is_ivf:
        return faiss.SearchParametersIVF(nprobe=min(opts.search["nprobe"], max(nlist, 1)), sel=sel)
    return faiss.SearchParameters(sel=sel) if sel is not None else None


def flat_vectors(faiss: Any, index: Any, dimension: int) -> np.ndarray:
    """Zero-copy (ntotal, d) view of a Flat or HNSW-Flat index's vectors; valid until the next add."""
    flat = faiss.downcast_index(index.storage) if hasattr(index, "storage") else index
    n = int(flat.ntotal)
    if n == 0:
        return np.empty((0, dimension), dtype=np.float32)
    return faiss.rev_swig_ptr(flat.get_xb(), n * dimension).reshape(n, dimension)


def bitmap_selector(faiss: Any, mask: np.ndarray) -> tuple[Any, np.ndarray]:
    """An ``IDSelectorBitmap`` over labels; keep the returned array alive while searching."""
    bits = np.packbits(mask.astype(bool), bitorder="little")
    return faiss.IDSelectorBitmap(int(mask.shape[0]), faiss.swig_ptr(bits)), bits
