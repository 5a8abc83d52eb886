"""BM25 postings in segments (``ragkit.stores._segments``), scored with statistics of the whole
index at query time.

A segment keeps, per term (a 64-bit hash of the token, sorted: ``terms.npy``), the rows holding it
(``docs.npy``, CSR offsets in ``indptr.npy``) and how often (``tfs.npy``: one byte each unless a
segment holds a frequency over 255), plus every row's token
count (``lengths.npy``). Nothing is precomputed from global statistics, so adding a segment never
touches the others: a query takes document frequencies, the live document count and the average
length over every segment (rows hidden by tombstones left out, so scores equal those of an index
built from scratch on the live documents) and applies bm25s's formulas for each ``method``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.stores._segments import Segment, save_npy

_TERM_CACHE: dict[str, int] = {}
_BUCKETS = 8
DELTA = 0.5  # bm25l / bm25+ (bm25s's default)


def term_hash(token: str) -> int:
    h = _TERM_CACHE.get(token)
    if h is None:
        h = int.from_bytes(hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
        if len(_TERM_CACHE) > 2_000_000:
            _TERM_CACHE.clear()
        _TERM_CACHE[token] = h
    return h


class Bm25Payload:
    def __init__(self, terms: np.ndarray, indptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray,
                 lengths: np.ndarray) -> None:
        self.terms, self.indptr, self.docs, self.tfs, self.lengths = terms, indptr, docs, tfs, lengths

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def write(self, folder: Path) -> None:
        for name in ("terms", "indptr", "docs", "tfs", "lengths"):
            save_npy(folder / f"{name}.npy", np.ascontiguousarray(getattr(self, name)))

    def postings(self, h: int) -> tuple[np.ndarray, np.ndarray] | None:
        t = self.terms
        pos = int(np.searchsorted(t, np.uint64(h)))
        if pos >= t.shape[0] or int(t[pos]) != h:
            return None
        a, b = int(self.indptr[pos]), int(self.indptr[pos + 1])
        return np.asarray(self.docs[a:b]), np.asarray(self.tfs[a:b])


def _csr(term: np.ndarray, doc: np.ndarray, tf: np.ndarray, lengths: np.ndarray) -> Bm25Payload:
    """A payload from postings sorted by (term, doc)."""
    if term.size:
        starts = np.flatnonzero(np.concatenate([[True], term[1:] != term[:-1]]))
        terms = term[starts]
        indptr = np.append(starts, term.size).astype(np.int64)
    else:
        terms, indptr = np.empty(0, np.uint64), np.zeros(1, np.int64)
    return Bm25Payload(terms, indptr, doc.astype(np.int32), tf.astype(_tf_dtype(tf)), lengths.astype(np.int32))


def _tf_dtype(tf: np.ndarray) -> type[np.unsignedinteger[Any]]:
    """One byte per term frequency when every one fits (almost always: a chunk rarely holds a word
    256 times), else two (frequencies are capped at 65,535)."""
    return np.uint8 if not tf.size or int(tf.max()) <= 255 else np.uint16


class Bm25Kind:
    name = "bm25"

    def build(self, rows: list[Any]) -> Bm25Payload:
        """``rows``: each row's tokens."""
        lengths = np.fromiter((len(t) for t in rows), dtype=np.int32, count=len(rows))
        total = int(lengths.sum())
        term = np.fromiter((term_hash(tok) for toks in rows for tok in toks), dtype=np.uint64, count=total)
        doc = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        if not total:
            return _csr(term, doc.astype(np.int32), np.empty(0, np.uint16), lengths)
        order = np.lexsort((doc, term))
        term, doc = term[order], doc[order]
        new = np.concatenate([[True], (term[1:] != term[:-1]) | (doc[1:] != doc[:-1])])
        starts = np.flatnonzero(new)
        tf = np.diff(np.append(starts, term.size))
        return _csr(term[starts], doc[starts], np.minimum(tf, 65535), lengths)

    def unindexed(self, payload: Bm25Payload) -> bool:
        """Postings are the whole search structure: a sealed segment lacks nothing."""
        return False

    def load(self, folder: Path, n: int) -> Bm25Payload:
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r")
                  for name in ("terms", "indptr", "docs", "tfs", "lengths")}
        if arrays["lengths"].shape[0] != n:
            raise ValueError(f"{folder.name}/lengths.npy holds {arrays['lengths'].shape[0]} rows, expected {n}")
        return Bm25Payload(**arrays)

    def merge(self, parts: Sequence[tuple[Any, np.ndarray]], scratch: Path | None) -> tuple[Bm25Payload, None]:
        """The live rows of ``parts``, in order; postings merged a range of term hashes at a time."""
        remaps, base = [], 0
        for payload, idx in parts:
            remap = np.full(len(payload), -1, dtype=np.int64)
            remap[idx] = np.arange(base, base + idx.size)
            remaps.append(remap)
            base += idx.size
        lengths = np.concatenate([np.asarray(p.lengths)[idx] for p, idx in parts]) if parts else np.empty(0, np.int32)
        edges = [i * 2**64 // _BUCKETS for i in range(_BUCKETS + 1)]
        out_t, out_d, out_f = [], [], []
        for lo, hi in zip(edges, edges[1:], strict=False):
            ts, ds, fs = [], [], []
            for (payload, _), remap in zip(parts, remaps, strict=True):
                terms = np.asarray(payload.terms)
                a = int(np.searchsorted(terms, np.uint64(lo))) if lo else 0
                b = int(np.searchsorted(terms, np.uint64(hi))) if hi < 2**64 else terms.shape[0]
                if a == b:
                    continue
                pa, pb = int(payload.indptr[a]), int(payload.indptr[b])
                counts = np.diff(np.asarray(payload.indptr[a : b + 1]))
                d = remap[np.asarray(payload.docs[pa:pb])]
                keep = d >= 0
                ts.append(np.repeat(terms[a:b], counts)[keep])
                ds.append(d[keep])
                fs.append(np.asarray(payload.tfs[pa:pb])[keep])
            if not ts:
                continue
            t, d, f = np.concatenate(ts), np.concatenate(ds), np.concatenate(fs)
            order = np.lexsort((d, t))
            out_t.append(t[order])
            out_d.append(d[order])
            out_f.append(f[order])
        cat = (lambda xs, dt: np.concatenate(xs) if xs else np.empty(0, dt))  # noqa: E731
        return _csr(cat(out_t, np.uint64), cat(out_d, np.int64), cat(out_f, np.uint16), lengths), None


# -- scoring -------------------------------------------------------------------------------


def _idf(method: str) -> Callable[[float, float], float]:
    return {
        "lucene": lambda df, n: math.log(1 + (n - df + 0.5) / (df + 0.5)),
        "robertson": lambda df, n: math.log(max(1.0, (n - df + 0.5) / (df + 0.5))),
        "atire": lambda df, n: math.log(n / df),
        "bm25l": lambda df, n: math.log((n + 1) / (df + 0.5)),
        "bm25+": lambda df, n: math.log((n + 1) / df),
    }[method]


def _tfc(method: str, tf: np.ndarray, ld: np.ndarray, avg: float, k1: float, b: float) -> np.ndarray:
    norm = 1 - b + b * ld / avg
    if method in ("lucene", "robertson"):
        return tf / (k1 * norm + tf)
    if method == "atire":
        return tf * (k1 + 1) / (tf + k1 * norm)
    if method == "bm25l":
        c = tf / norm
        return (k1 + 1) * (c + DELTA) / (k1 + c + DELTA)
    return (k1 + 1) * tf / (k1 * norm + tf) + DELTA  # bm25+


def stats(segs: Sequence[Segment]) -> tuple[int, float]:
    """Live documents and their average length over every segment."""
    n = total = 0
    for seg in segs:
        lengths = np.asarray(seg.payload.lengths)
        if seg.dead is None:
            n += lengths.shape[0]
            total += int(lengths.sum())
        else:
            n += int((~seg.dead).sum())
            total += int(lengths[~seg.dead].sum())
    return n, (total / n if n else 0.0)


def postings(segs: Sequence[Segment], hashes: Sequence[int]) -> dict[int, list[tuple[int, np.ndarray, np.ndarray]]]:
    """term -> [(segment number, live docs, tfs)] for the terms any live document holds."""
    out: dict[int, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for h in dict.fromkeys(hashes):
        for n, seg in enumerate(segs):
            found = seg.payload.postings(h)
            if found is None:
                continue
            docs, tfs = found
            if seg.dead is not None:
                keep = ~seg.dead[docs]
                docs, tfs = docs[keep], tfs[keep]
            if docs.size:
                out.setdefault(h, []).append((n, docs, tfs))
    return out


def score(segs: Sequence[Segment], hashes: Sequence[int], *, method: str, k1: float, b: float
          ) -> tuple[list[np.ndarray | None], float]:
    """Per segment, the BM25 score of each row for the query terms ``hashes`` (None: no row holds
    one), and the no-match baseline (non-zero for bm25l and bm25+: a row without a term still
    scores that term's non-occurrence part, as in bm25s)."""
    n_docs, avg = stats(segs)
    posts = postings(segs, hashes)
    idf = _idf(method)
    scores: list[np.ndarray | None] = [None] * len(segs)
    baseline = 0.0
    for h in hashes:  # repeated query terms count again, as in bm25s
        lists = posts.get(h)
        if not lists:
            continue
        df = sum(int(d.size) for _, d, _ in lists)
        w = idf(df, n_docs)
        zero = float(_tfc(method, np.zeros(1), np.full(1, avg), avg, k1, b)[0]) * w
        baseline += zero
        for n, docs, tfs in lists:
            ld = np.asarray(segs[n].payload.lengths)[docs].astype(np.float64)
            part = w * _tfc(method, tfs.astype(np.float64), ld, avg, k1, b) - zero
            if scores[n] is None:
                scores[n] = np.full(len(segs[n]), np.nan)
            arr = scores[n]
            assert arr is not None
            arr[docs] = np.where(np.isnan(arr[docs]), part, arr[docs] + part)
    return scores, baseline


#: methods whose term score is below the term's idf weight (tf / (k1 * norm + tf) < 1), so the
#: score a row can reach without a term is bounded by the other terms' weights
BOUNDED_METHODS = ("lucene", "robertson")


def score_rarer(segs: Sequence[Segment], hashes: Sequence[int], *, method: str, k1: float, b: float,
                common_share: float) -> tuple[list[tuple[int, np.ndarray, np.ndarray]], float] | None:
    """The rows holding one of the query's terms found in at most ``common_share`` of the rows,
    with their full scores (as ``score`` computes them, to the bit), and the bound every other row
    scores below (the summed weights of the common terms); None for a method without that bound.
    The best row overall is among them when its score exceeds the bound, and reading the rare
    terms' postings costs far less than scoring the common ones."""
    if method not in BOUNDED_METHODS:
        return None
    n_docs, avg = stats(segs)
    posts = postings(segs, hashes)
    idf = _idf(method)
    df = {h: sum(int(d.size) for _, d, _ in lists) for h, lists in posts.items()}
    weight = {h: idf(df[h], n_docs) for h in posts}
    common = {h for h in posts if df[h] > common_share * n_docs}
    bound = sum(weight[h] for h in hashes if h in common)
    parts: dict[int, list[np.ndarray]] = {}
    for h, lists in posts.items():
        if h not in common:
            for n, docs, _ in lists:
                parts.setdefault(n, []).append(docs)
    rows = {n: np.unique(np.concatenate(d)) for n, d in parts.items()}
    scores = {n: np.full(r.size, np.nan) for n, r in rows.items()}
    for h in hashes:  # repeated query terms count again, as in ``score``
        for n, docs, tfs in posts.get(h, []):
            if n not in rows:
                continue
            pos = np.minimum(np.searchsorted(docs, rows[n]), docs.size - 1)
            held = np.flatnonzero(docs[pos] == rows[n])
            w = weight[h]
            zero = float(_tfc(method, np.zeros(1), np.full(1, avg), avg, k1, b)[0]) * w
            ld = np.asarray(segs[n].payload.lengths)[rows[n][held]].astype(np.float64)
            part = w * _tfc(method, tfs[pos[held]].astype(np.float64), ld, avg, k1, b) - zero
            arr = scores[n]
            arr[held] = np.where(np.isnan(arr[held]), part, arr[held] + part)
    return [(n, rows[n], scores[n]) for n in sorted(rows)], bound
