"""A persistent BM25 index whose commits cost what they add.

A row's terms are those of its indexed text (``ragkit.types.indexed_text``: the chunk's contextual
header, when it has one, and its text); its shown text is the chunk's own. Text is tokenized with
``bm25s``'s tokenizer (lower-case words, stopwords removed, optionally
stemmed with PyStemmer); the postings live in append-only segments (``ragkit.stores._segments``,
the same layout as the faiss store: a commit writes one new segment and one tombstone file,
background merges keep the number of segments low) and are scored at query time with the
statistics of the whole index (``_bm25_segments.py``), so scores equal those of an index built
from scratch on the live documents, with bm25s's formula for each ``method``.

Filters use the shared filter language (``ragkit.stores.filters``) and are evaluated exactly on
the stored metadata: a filtered search returns the top k among the matching documents.
Documents that share no term with the query (BM25 score at its no-match baseline) are never
returned, so a search may return fewer than k hits.

On disk (``path`` is a directory): ``segments.json`` and the segment folders. An index written by
an older ragkit as one ``bm25.jsonl`` file is upgraded when it is opened (re-tokenized from the
texts it holds; nothing else is read).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragkit.errors import MissingDependencyError, StoreDamagedError, StoreError
from ragkit.month_names import ABBREVIATIONS
from ragkit.registry import retrievers
from ragkit.retrieval._bm25_segments import Bm25Kind, postings, score, score_rarer, stats, term_hash
from ragkit.stores._segments import Rows, Segment, SegmentLog
from ragkit.stores.filters import Filter, normalize
from ragkit.types import SearchHit, indexed_text

if TYPE_CHECKING:
    from ragkit.stores.base import SinkRecord

log = logging.getLogger(__name__)

FILE_NAME = "bm25.jsonl"
FORMAT = "ragkit-bm25"
FORMAT_VERSION = 1
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
#: ``best`` scores first the rows holding a query term found in at most this share of the rows
COMMON_SHARE = 0.05
_SOURCES = "sources"  # a segment's cache entry: its rows' sources (filter masks use JSON keys, never this)


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
    """Lower-case word tokens (bm25s's pattern and stopword lists, and dotted numbers whole: a
    version, "3.4") of the NFKC-normalized text (a ligature ``ﬁ`` matches ``fi``, a full-width
    ``Ａ`` matches ``A``), stopwords removed, optionally stemmed. Written here rather than calling
    ``bm25s.tokenize`` (the same words): each word is
    stemmed once per process (a cache), and no vocabulary is built per call, which made
    tokenizing the largest part of a flush's BM25 work."""

    _PATTERN = re.compile(r"(?u)\b\w\w+\b")
    # a dotted number ("3.4", "1.21.0", in "release_3.4.rst" too) is a token as well: its parts
    # alone are single digits that no word token keeps, so "NetworkX 3.4" matched every release alike
    _DOTTED = re.compile(r"(?<![\d.])\d+(?:\.\d+)+")
    _TOKENS = "words-and-dotted-numbers"  # in the stored config: an index tokenized otherwise is re-tokenized
    _CACHE_MAX = 1_000_000

    def __init__(self, *, stemmer: str | None, stopwords: str | Sequence[str] | None) -> None:
        self.stemmer_name = stemmer
        self.stopwords = stopwords if stopwords is None or isinstance(stopwords, str) else list(stopwords)
        self._stem = _make_stemmer(stemmer)
        bm25s = _import_bm25s()
        self._stop = frozenset(bm25s.tokenization._infer_stopwords(self.stopwords or []))
        self._stems: dict[str, str] = {}

    @property
    def config(self) -> dict[str, Any]:
        return {"stemmer": self.stemmer_name, "stopwords": self.stopwords, "tokens": self._TOKENS}

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        split, stop = self._PATTERN.findall, self._stop
        nfkc = [t if unicodedata.is_normalized("NFKC", t) else unicodedata.normalize("NFKC", t) for t in texts]
        dotted = self._DOTTED.findall
        out = [[t for t in split(text.lower()) if t not in stop] + dotted(text) for text in nfkc]
        if self._stem is None:
            return out
        stems = self._stems
        words = {t for toks in out for t in toks}
        new = [t for t in words if t not in stems]
        if new:
            if len(stems) + len(new) > self._CACHE_MAX:  # start afresh: the cache keeps these texts' words
                stems.clear()
                new = list(words)
            stems.update(zip(new, self._stem(new), strict=True))
        return [[stems[t] for t in toks] for toks in out]


#: a month a query names in full, also as the abbreviations tables and logs write it ("Month: Jan",
#: "Sep 2019"); only the query is widened, so no index is tokenized again
_MONTH_ABBREVIATIONS = {name: [short for short, full in ABBREVIATIONS.items() if full == name]
                        for name in set(ABBREVIATIONS.values())}


def _query_tokens(analyzer: _Analyzer, query: str) -> list[str]:
    """``query``'s tokens, with the abbreviations of the months it names in full."""
    tokens = analyzer.tokenize([query])[0]
    short = [a for w in _Analyzer._PATTERN.findall(query.lower()) for a in _MONTH_ABBREVIATIONS.get(w, ())]
    return tokens + analyzer.tokenize([" ".join(short)])[0] if short else tokens


class BM25Index:
    """An upsertable BM25 index of (id, text, metadata) rows, searchable with filters.

    It is an ``IndexSink`` (``ragkit.stores.base``): the index writer keeps it in step with the
    catalog through ``upsert``/``delete``/``persist``; its state is the files under ``path``."""

    local = True
    needs_vectors = False  # IndexSink: rows need no vectors (written before the flush waits for them)

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
        self.last_build_seconds: float | None = None
        self._log = self._open_log()
        self._kept: dict[str, tuple[list[tuple[Segment, np.ndarray | None]], Any]] = {}  # see _per_state

    @property
    def params(self) -> dict[str, Any]:
        return {"k1": self.k1, "b": self.b, "method": self.method, **self._analyzer.config}

    def _open_log(self) -> SegmentLog:
        """The segments under ``path``. Documents tokenized with other settings, or kept by an
        older ragkit in one ``bm25.jsonl``, are read and tokenized into memory; the next
        ``persist`` (the next `ragkit index` run that writes) saves them as segments and removes
        the old files. Readers never write."""
        header = {"format": FORMAT, "version": FORMAT_VERSION, "analyzer": self._analyzer.config}
        log_ = SegmentLog(self.path, Bm25Kind(), header=header, label="BM25 index")
        self._upgrading: str | None = None
        stored = getattr(log_, "stored_header", None)
        if stored is not None and stored.get("analyzer") != self._analyzer.config:
            rows = [seg.rows.record(i) for seg in log_.live_segments() for i in _live_rows(seg)]
            log.info("bm25: tokenizer settings changed (%s -> %s); re-tokenizing %d documents",
                     stored.get("analyzer"), self._analyzer.config, len(rows))
            log_.reset()
            self._fill(log_, rows)
            self._upgrading = ""
        elif stored is None and self.path is not None and (self.path / FILE_NAME).is_file():
            rows = _read_legacy(self.path / FILE_NAME)
            self._fill(log_, [[r["id"], dict(r.get("metadata") or {}), r["text"]] for r in rows])
            self._upgrading = (f"upgraded the BM25 index at {self.path} to segments (files that grow with each "
                               f"commit instead of being rewritten): {len(rows)} documents, nothing is re-embedded")
        return log_

    def _fill(self, log_: SegmentLog, rows: list[list[Any]]) -> None:
        for start in range(0, len(rows), 50_000):
            part = rows[start : start + 50_000]
            tokens = self._analyzer.tokenize([indexed_text(r[2], r[1]) for r in part])
            log_.add([r[0] for r in part], [Rows.encode(r[0], r[1], r[2]) for r in part], [tuple(t) for t in tokens])

    @property
    def unsaved(self) -> bool:
        """Documents read from an older layout (or re-tokenized) that the next ``persist`` saves."""
        return self._upgrading is not None or self._log.dirty()

    # -- updates -------------------------------------------------------------------------------
    def add(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        metadata: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """Insert or replace rows (written by the next ``persist``; searchable at once)."""
        metas = list(metadata) if metadata is not None else [{} for _ in ids]
        if not len(ids) == len(texts) == len(metas):
            raise StoreError(
                f"bm25: add() needs as many texts and metadata as ids "
                f"(got {len(ids)} ids, {len(texts)} texts, {len(metas)} metadata)"
            )
        for doc_id, meta in zip(ids, metas, strict=True):
            _check_row(doc_id, meta)
        if not ids:
            return
        last = {doc_id: n for n, doc_id in enumerate(ids)}  # a repeated id: the last one wins
        keep = sorted(last.values())
        texts = [str(texts[n]) for n in keep]
        ids, metas = [ids[n] for n in keep], [metas[n] for n in keep]
        tokens = self._analyzer.tokenize([indexed_text(t, m) for t, m in zip(texts, metas, strict=True)])
        lines = [Rows.encode(i, dict(m), t) for i, m, t in zip(ids, metas, texts, strict=True)]
        self._log.add(list(ids), lines, [tuple(t) for t in tokens])

    def upsert(self, records: Sequence[SinkRecord]) -> None:
        """``IndexSink.upsert``: rows with ``id``, ``text`` and ``metadata`` (vectors unused)."""
        self.add([r.id for r in records], [r.text for r in records], [r.metadata for r in records])

    def delete(self, ids: Sequence[str]) -> None:
        """Remove rows; unknown ids are ignored."""
        self._log.delete(list(dict.fromkeys(ids)))

    def ids(self) -> set[str]:
        return self._log.ids()

    def iter_ids(self) -> Iterator[str]:
        return self._log.iter_ids()

    def count(self) -> int:
        return self._log.count()

    # -- search --------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        """The top ``k`` documents by BM25 score among those matching ``filter``."""
        if k < 1:
            raise StoreError(f"k must be at least 1 (got {k})")
        norm = normalize(filter)
        hashes = [term_hash(t) for t in _query_tokens(self._analyzer, query) if t]
        if not hashes:
            return []
        segs = self._log.live_segments()
        start = time.perf_counter()
        scores, baseline = score(segs, hashes, method=self.method, k1=self.k1, b=self.b)
        self.last_build_seconds = time.perf_counter() - start
        found = []
        for n, s in enumerate(scores):
            if s is not None:
                rows = np.flatnonzero(np.nan_to_num(s, nan=0.0) > 1e-9)  # above the no-match baseline
                found.append((n, rows, s[rows] + baseline))
        return self._top_hits(segs, found, k, norm)

    def best(self, query: str, filter: Filter | None = None) -> SearchHit | None:
        """``search(query, k=1, filter=filter)``'s hit (None for none), found among the rows holding
        the query's less common terms when one of them outscores what the others can reach, so
        the long postings of common words are read only for those rows."""
        hashes = [term_hash(t) for t in _query_tokens(self._analyzer, query) if t]
        if not hashes:
            return None
        segs = self._log.live_segments()
        pruned = score_rarer(segs, hashes, method=self.method, k1=self.k1, b=self.b, common_share=COMMON_SHARE)
        if pruned is not None:
            found, bound = pruned
            kept = [(n, rows[s > 1e-9], s[s > 1e-9]) for n, rows, s in found]
            top = self._top_hits(segs, kept, 1, normalize(filter))
            if top and top[0].score > bound:
                return top[0]
        hits = self.search(query, k=1, filter=filter)
        return hits[0] if hits else None

    def rare_term_hits(
        self, query: str, *, max_df: float, k: int = 10, filter: Filter | None = None
    ) -> list[SearchHit]:
        """Documents that contain the query's rare terms: index terms found in at most ``max_df``
        (a fraction) of the documents. The score is the fraction of the rare terms a document
        contains, ties in index order; empty when the query has no rare term."""
        if k < 1:
            raise StoreError(f"k must be at least 1 (got {k})")
        norm = normalize(filter)
        hashes = sorted({term_hash(t) for t in _query_tokens(self._analyzer, query) if t})
        segs = self._log.live_segments()
        if not hashes:
            return []
        n_docs, _ = stats(segs)
        posts = postings(segs, hashes)
        rare = [lists for lists in posts.values() if sum(int(d.size) for _, d, _ in lists) <= max_df * n_docs]
        if not rare:
            return []
        counts: dict[int, np.ndarray] = {}
        for lists in rare:
            for n, docs, _ in lists:
                counts.setdefault(n, np.zeros(len(segs[n]), dtype=np.int64))[docs] += 1
        found = [(n, np.flatnonzero(c), c[c > 0] / len(rare)) for n, c in sorted(counts.items())]
        return self._top_hits(segs, found, k, norm)

    def sources(self) -> frozenset[str]:
        """The ``source`` of every live row (each segment's column is read once and kept). The
        same set is returned again while the index holds the same rows (no segment added, merged
        or hidden rows changed), so a caller can key what it derives from it on the set itself."""
        return self._per_state("sources", _live_sources)  # type: ignore[no-any-return]

    def passage_count(self, source: str) -> int:
        """How many live rows have this ``source`` (the counts are kept while the index holds the
        same rows)."""
        counts: Counter[str] = self._per_state("passages", _passage_counts)
        return counts[source] if source else 0

    def _per_state(self, name: str, build: Callable[[list[Segment]], Any]) -> Any:
        """``build(live segments)``, kept while the index holds the same rows."""
        segs = self._log.live_segments()
        state = [(seg, seg.dead) for seg in segs]
        kept = self._kept.get(name)
        if kept is not None and len(kept[0]) == len(state) and all(
            a is c and b is d for (a, b), (c, d) in zip(kept[0], state, strict=True)
        ):
            return kept[1]
        value = build(segs)
        self._kept[name] = (state, value)
        return value

    def _top_hits(self, segs: Sequence[Segment], found: Sequence[tuple[int, np.ndarray, np.ndarray]], k: int,
                  norm: dict[str, dict[str, Any]]) -> list[SearchHit]:
        """The first ``k`` candidates (segment, rows, scores) matching ``norm``, by descending
        score, ties in index order (segment, then row)."""
        parts = []
        for n, rows, scores in found:
            if norm:
                ok = _allowed(segs[n], norm)
                assert ok is not None
                keep = ok[rows]
                rows, scores = rows[keep], scores[keep]
            if rows.size:
                parts.append((np.full(rows.size, n), rows, scores))
        if not parts:
            return []
        seg_of = np.concatenate([p[0] for p in parts])
        rows = np.concatenate([p[1] for p in parts])
        scores = np.concatenate([p[2] for p in parts])
        order = np.lexsort((rows, seg_of, -scores))[:k]
        hits = []
        for i in order.tolist():
            doc_id, meta, text = segs[int(seg_of[i])].rows.record(int(rows[i]))[:3]
            hits.append(SearchHit(id=doc_id, score=float(scores[i]), metadata=_hit_meta(meta, text)))
        return hits

    # -- persistence ---------------------------------------------------------------------------
    def persist(self) -> None:
        """Write what changed since the last ``persist`` as one new segment (a no-op in memory)."""
        self._log.persist()
        if self._upgrading:
            log.warning("%s", self._upgrading)
            self._upgrading = None

    def wait_merges(self) -> None:
        """Wait for the background merge, if one runs (tests and benchmarks)."""
        self._log.wait_merges()

    def describe(self) -> dict[str, Any]:
        return {"params": self.params, **self._log.describe()}

    def close(self) -> None:
        """Let a running merge finish (the rows stay readable)."""
        self._log.wait_merges()


def _live_sources(segs: Sequence[Segment]) -> frozenset[str]:
    out: set[str | None] = set()
    for seg in segs:
        column, every = _source_column(seg)
        out.update(every if seg.dead is None else column[~seg.dead].tolist())
    return frozenset(s for s in out if s)


def _passage_counts(segs: Sequence[Segment]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for seg in segs:
        column, _ = _source_column(seg)
        counts.update(column if seg.dead is None else column[~seg.dead])
    return counts


def _source_column(seg: Segment) -> tuple[np.ndarray, set[str | None]]:
    """The segment's rows' sources and their set, read once and kept with the segment."""
    cached = seg.cache.get(_SOURCES)
    if cached is None:
        column = np.array([_str_or_none(meta.get("source")) for _, meta in seg.rows], dtype=object)
        cached = seg.cache[_SOURCES] = (column, set(column.tolist()))
    return cached  # type: ignore[no-any-return]


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _allowed(seg: Segment, norm: dict[str, dict[str, Any]]) -> np.ndarray | None:
    """``seg.allowed(norm)``; a filter on the source alone (``{"source": {"$in": [...]}}``, as
    hybrid retrieval asks for the files a query names) is read from the kept source column
    instead of every row's metadata."""
    if list(norm) != ["source"] or list(norm["source"]) != ["$in"]:
        return seg.allowed(norm)
    column, _ = _source_column(seg)
    found = np.isin(column, [s for s in norm["source"]["$in"] if isinstance(s, str)])
    return found if seg.dead is None else (found & ~seg.dead)


def _live_rows(seg: Segment) -> list[int]:
    return list(range(len(seg))) if seg.dead is None else np.flatnonzero(~seg.dead).tolist()


def _read_legacy(file: Path) -> list[dict[str, Any]]:
    """The rows of a ``bm25.jsonl`` written by an older ragkit (one JSON line per document)."""
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
    return rows


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


def _hit_meta(meta: dict[str, Any], text: str) -> dict[str, Any]:
    if "text" in meta:
        return dict(meta)
    return {**meta, "text": text}


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

    def best(self, query: str, filter: Filter | None = None) -> SearchHit | None:
        """See ``BM25Index.best`` (used by hybrid retrieval for ``lexical_rank``)."""
        return self.index.best(query, filter=filter)

    def passage_count(self, source: str) -> int:
        """See ``BM25Index.passage_count`` (used by hybrid retrieval: is a passage part of a longer file)."""
        return self.index.passage_count(source)

    def sources(self) -> frozenset[str]:
        """See ``BM25Index.sources`` (used by hybrid retrieval to find the files a query names)."""
        return self.index.sources()
