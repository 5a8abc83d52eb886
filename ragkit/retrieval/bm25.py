"""A persistent, incrementally updated BM25 index on top of ``bm25s``.

A row's terms are those of its indexed text (``ragkit.types.indexed_text``: the chunk's contextual
header, when it has one, and its text); its shown text is the chunk's own.

``bm25s`` builds immutable sparse matrices, so this index keeps the corpus itself (ids, texts,
tokens, metadata), applies upserts and deletes to it, and rebuilds the ``bm25s`` matrices lazily
on the first search after a change (0.1-0.5 s for the 5,000 msmarco-5k passages on 2 CPU
cores, depending on load). Tokens are kept, so a rebuild never re-tokenizes.

Filters use the shared filter language (``ragkit.stores.filters``) and are evaluated exactly on
the stored metadata: a filtered search returns the top k among the matching documents.
Documents that share no term with the query (BM25 score at its no-match baseline) are never
returned, so a search may return fewer than k hits.

On disk (``path`` is a directory): ``bm25.jsonl``, a header line with the parameters, then one
line per document. ``persist`` writes it atomically (temporary file + ``os.replace``).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragkit.errors import MissingDependencyError, StoreDamagedError, StoreError
from ragkit.registry import retrievers
from ragkit.stores.filters import Filter, matches, normalize
from ragkit.types import SearchHit, indexed_text

if TYPE_CHECKING:
    from ragkit.stores.base import SinkRecord

log = logging.getLogger(__name__)

FILE_NAME = "bm25.jsonl"
FORMAT = "ragkit-bm25"
FORMAT_VERSION = 1
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")


@dataclass(frozen=True)
class _Doc:
    text: str
    tokens: tuple[str, ...]
    metadata: dict[str, Any]


#: optional modules that bm25s imports when they are installed and ragkit never uses: numba
#: (unstructured brings it) for bm25s's numba backend, scipy.sparse for ``csc_backend="scipy"``
#: (ragkit keeps bm25s's defaults, numpy for both), tqdm.auto (and with it asyncio) for progress
#: bars that ragkit turns off. Together 0.2-0.4 s of every cold hybrid search.
_UNUSED_BY_BM25S = ("numba", "scipy.sparse", "tqdm.auto")


def _import_bm25s() -> Any:
    # hide those modules from that one import, unless something has loaded them already; a
    # None entry in sys.modules makes `import numba` raise ImportError, which bm25s handles
    hidden = [] if "bm25s" in sys.modules else [m for m in _UNUSED_BY_BM25S if m not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import bm25s
    except ImportError as exc:
        raise MissingDependencyError("bm25s", "bm25", "BM25 retrieval") from exc
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    # bm25s sets its own logger to DEBUG on import; let the application's logging decide
    logging.getLogger("bm25s").setLevel(logging.NOTSET)
    return bm25s


def _make_stemmer(language: str | None) -> Callable[[list[str]], list[str]] | None:
    if language is None:
        return None
    try:
        import Stemmer
    except ImportError as exc:
        raise MissingDependencyError("PyStemmer", "bm25", f"the {language!r} stemmer") from exc
    if language not in Stemmer.algorithms():
        raise StoreError(
            f"unknown stemmer language {language!r}; use one of "
            f"{', '.join(sorted(Stemmer.algorithms()))}, or stemmer=None to disable stemming"
        )
    return Stemmer.Stemmer(language).stemWords  # type: ignore[no-any-return]


class _Analyzer:
    """Lower-case word tokens (bm25s's tokenizer) of the NFKC-normalized text (a ligature ``ﬁ``
    matches ``fi``, a full-width ``Ａ`` matches ``A``), stopwords removed, optionally stemmed."""

    def __init__(self, *, stemmer: str | None, stopwords: str | Sequence[str] | None) -> None:
        self.stemmer_name = stemmer
        self.stopwords = stopwords if stopwords is None or isinstance(stopwords, str) else list(stopwords)
        self._stem = _make_stemmer(stemmer)
        self._bm25s = _import_bm25s()

    @property
    def config(self) -> dict[str, Any]:
        return {"stemmer": self.stemmer_name, "stopwords": self.stopwords}

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        if not texts:
            return []
        out = self._bm25s.tokenize(
            [t if unicodedata.is_normalized("NFKC", t) else unicodedata.normalize("NFKC", t) for t in texts],
            stopwords=self.stopwords or [],
            stemmer=self._stem,
            return_ids=False,
            show_progress=False,
        )
        return [list(tokens) for tokens in out]


class BM25Index:
    """An upsertable BM25 index of (id, text, metadata) rows, searchable with filters.

    It is an ``IndexSink`` (``ragkit.stores.base``): the index writer keeps it in step with the
    catalog through ``upsert``/``delete``/``persist``; its state is the one file under ``path``."""

    local = True

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        stemmer: str | None = "english",
        stopwords: str | Sequence[str] | None = "en",
    ) -> None:
        if method not in METHODS:
            raise StoreError(f"unknown BM25 method {method!r}; allowed: {', '.join(METHODS)}")
        if k1 <= 0:
            raise StoreError(f"k1 must be positive (got {k1})")
        if not 0 <= b <= 1:
            raise StoreError(f"b must be between 0 and 1 (got {b})")
        self.path = Path(path) if path is not None else None
        self.k1, self.b, self.method = float(k1), float(b), method
        self._analyzer = _Analyzer(stemmer=stemmer, stopwords=stopwords)
        self._docs: dict[str, _Doc] = {}
        self._lock = threading.RLock()
        self._engine: Any = None  # bm25s.BM25 over self._order, or None when stale
        self._order: list[str] = []
        self.last_build_seconds: float | None = None
        if self.path is not None and (self.path / FILE_NAME).is_file():
            self._load(self.path / FILE_NAME)

    @property
    def params(self) -> dict[str, Any]:
        return {"k1": self.k1, "b": self.b, "method": self.method, **self._analyzer.config}

    # -- updates -------------------------------------------------------------------------------
    def add(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        metadata: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """Insert or replace rows; the matrices are rebuilt on the next search."""
        metas = list(metadata) if metadata is not None else [{} for _ in ids]
        if not len(ids) == len(texts) == len(metas):
            raise StoreError(
                f"bm25: add() needs as many texts and metadata as ids "
                f"(got {len(ids)} ids, {len(texts)} texts, {len(metas)} metadata)"
            )
        for doc_id, meta in zip(ids, metas, strict=True):
            _check_row(doc_id, meta)
        tokens = self._analyzer.tokenize([indexed_text(str(t), m) for t, m in zip(texts, metas, strict=True)])
        with self._lock:
            for doc_id, text, toks, meta in zip(ids, texts, tokens, metas, strict=True):
                self._docs[doc_id] = _Doc(str(text), tuple(toks), dict(meta))
            if ids:
                self._engine = None

    def upsert(self, records: Sequence[SinkRecord]) -> None:
        """``IndexSink.upsert``: rows with ``id``, ``text`` and ``metadata`` (vectors unused)."""
        self.add([r.id for r in records], [r.text for r in records], [r.metadata for r in records])

    def delete(self, ids: Sequence[str]) -> None:
        """Remove rows; unknown ids are ignored."""
        with self._lock:
            removed = [self._docs.pop(doc_id, None) for doc_id in ids]
            if any(doc is not None for doc in removed):
                self._engine = None

    def ids(self) -> set[str]:
        with self._lock:
            return set(self._docs)

    def count(self) -> int:
        with self._lock:
            return len(self._docs)

    # -- search --------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        """The top ``k`` documents by BM25 score among those matching ``filter``."""
        if k < 1:
            raise StoreError(f"k must be at least 1 (got {k})")
        norm = normalize(filter)
        query_tokens = self._analyzer.tokenize([query])[0]
        with self._lock:
            engine = self._ensure_built()
            if engine is None:
                return []
            known = [t for t in query_tokens if t in engine.vocab_dict and t != ""]
            if not known:
                return []
            scores = np.asarray(engine.get_scores(known), dtype=np.float64)
            baseline = 0.0
            if engine.nonoccurrence_array is not None:
                baseline = float(engine.nonoccurrence_array[engine.get_tokens_ids(known)].sum())
            candidates = np.flatnonzero(scores > baseline + 1e-9)
            return self._top_hits(candidates, scores, k, norm)

    def rare_term_hits(
        self, query: str, *, max_df: float, k: int = 10, filter: Filter | None = None
    ) -> list[SearchHit]:
        """Documents that contain the query's rare terms: index terms found in at most ``max_df``
        (a fraction) of the documents. The score is the fraction of the rare terms a document
        contains, ties in index order; empty when the query has no rare term."""
        if k < 1:
            raise StoreError(f"k must be at least 1 (got {k})")
        norm = normalize(filter)
        query_tokens = set(self._analyzer.tokenize([query])[0]) - {""}
        with self._lock:
            engine = self._ensure_built()
            if engine is None or not query_tokens:
                return []
            indptr, indices = engine.scores["indptr"], engine.scores["indices"]
            limit = max_df * len(self._order)
            postings = [
                indices[indptr[t] : indptr[t + 1]]
                for t in engine.get_tokens_ids(sorted(query_tokens))
                if indptr[t + 1] - indptr[t] <= limit
            ]
            if not postings:
                return []
            counts = np.bincount(np.concatenate(postings), minlength=len(self._order))
            return self._top_hits(np.flatnonzero(counts), counts / len(postings), k, norm)

    def _top_hits(self, candidates: Any, scores: Any, k: int, norm: dict[str, dict[str, Any]]) -> list[SearchHit]:
        """The first ``k`` of ``candidates`` (positions in index order) matching ``norm``, by
        descending score, ties in index order. Call with the lock held."""
        candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
        hits: list[SearchHit] = []
        for i in candidates:
            doc_id = self._order[int(i)]
            doc = self._docs[doc_id]
            if norm and not matches(doc.metadata, norm):
                continue
            hits.append(SearchHit(id=doc_id, score=float(scores[i]), metadata=_hit_meta(doc)))
            if len(hits) == k:
                break
        return hits

    def _ensure_built(self) -> Any:
        if self._engine is not None:
            return self._engine
        order = [doc_id for doc_id, doc in self._docs.items()]
        corpus = [list(self._docs[doc_id].tokens) for doc_id in order]
        self._order = order
        if not any(corpus):
            return None
        bm25s = _import_bm25s()
        start = time.perf_counter()
        engine = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        engine.index(corpus, show_progress=False)
        self.last_build_seconds = time.perf_counter() - start
        log.debug("bm25: rebuilt matrices for %d documents in %.3f s", len(order), self.last_build_seconds)
        self._engine = engine
        return engine

    # -- persistence ---------------------------------------------------------------------------
    def persist(self) -> None:
        """Write the corpus atomically to ``path``; a no-op for an in-memory index."""
        if self.path is None:
            log.debug("bm25: in-memory index, nothing to persist")
            return
        self.path.mkdir(parents=True, exist_ok=True)
        with self._lock:
            header = {"format": FORMAT, "version": FORMAT_VERSION, "params": self.params}
            fd, tmp = tempfile.mkstemp(prefix=".bm25-", suffix=".tmp", dir=self.path)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(json.dumps(header) + "\n")
                    for doc_id, doc in self._docs.items():
                        row = {"id": doc_id, "text": doc.text, "tokens": doc.tokens, "metadata": doc.metadata}
                        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                os.chmod(tmp, 0o644)  # mkstemp creates 0600
                os.replace(tmp, self.path / FILE_NAME)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise

    def close(self) -> None:
        """Release the matrices (the corpus stays); kept for symmetry with stores."""
        with self._lock:
            self._engine = None

    def _load(self, file: Path) -> None:
        lines = file.read_bytes().decode("utf-8").split("\n")
        try:
            header = json.loads(lines[0])
        except (json.JSONDecodeError, IndexError):
            raise StoreDamagedError(f"the BM25 index {file} is damaged (line 1 is not a ragkit BM25 header); "
                                    f"{StoreDamagedError.HINT}") from None
        if header.get("format") != FORMAT or header.get("version") != FORMAT_VERSION:
            raise StoreError(
                f"{file}: unsupported BM25 index format {header.get('format')!r} v{header.get('version')}; "
                "delete it and re-index"
            )
        stored = header.get("params", {})
        same_tokens = all(stored.get(key) == val for key, val in self._analyzer.config.items())
        rows = []
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise StoreDamagedError(
                    f"the BM25 index {file} is damaged (line {number}: {exc.msg}); {StoreDamagedError.HINT}"
                ) from None
        if same_tokens:
            tokens = [row["tokens"] for row in rows]
        else:
            log.info(
                "bm25: tokenizer settings changed (%s -> %s); re-tokenizing %d documents",
                {k: stored.get(k) for k in self._analyzer.config},
                self._analyzer.config,
                len(rows),
            )
            tokens = self._analyzer.tokenize([indexed_text(row["text"], row.get("metadata") or {}) for row in rows])
        for row, toks in zip(rows, tokens, strict=True):
            self._docs[row["id"]] = _Doc(row["text"], tuple(toks), dict(row.get("metadata") or {}))


def _check_row(doc_id: Any, meta: Any) -> None:
    if not isinstance(doc_id, str) or not doc_id:
        raise StoreError(f"bm25: ids must be non-empty strings (got {doc_id!r})")
    if not isinstance(meta, Mapping):
        raise StoreError(f"bm25: metadata for {doc_id!r} must be a mapping (got {type(meta).__name__})")
    try:
        json.dumps(dict(meta))
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"bm25: metadata for {doc_id!r} is not JSON-serializable ({exc}); "
            "store only strings, numbers, booleans, lists and dicts"
        ) from exc


def _hit_meta(doc: _Doc) -> dict[str, Any]:
    if "text" in doc.metadata:
        return dict(doc.metadata)
    return {**doc.metadata, "text": doc.text}


@retrievers.register("bm25")
class BM25Retriever:
    """Lexical retrieval over a ``BM25Index``."""

    needs = frozenset({"lexical"})

    def __init__(self, *, index: BM25Index) -> None:
        self.index = index

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        return self.index.search(query, k=k, filter=filter)

    def rare_term_hits(
        self, query: str, *, max_df: float, k: int = 10, filter: Filter | None = None
    ) -> list[SearchHit]:
        """See ``BM25Index.rare_term_hits`` (used by dense-first hybrid retrieval)."""
        return self.index.rare_term_hits(query, max_df=max_df, k=k, filter=filter)
