"""Hybrid retrieval: a dense and a lexical retriever, fused.

Both retrievers get the same filter and return up to ``candidates`` hits each; the lists are
fused by one of ``FUSIONS`` (the functions are in ``ragkit.retrieval.fusion``):

- ``"rrf"``: reciprocal rank fusion. ``weight`` is the dense share and the weights are scaled by
  2, so ``weight=0.5`` is plain RRF and any other value is weighted RRF.
- ``"minmax"``, ``"zscore"``, ``"dbsf"``: a convex combination of normalized scores, ``weight``
  on dense and ``1 - weight`` on lexical. ``dbsf`` (distribution-based score fusion) normalizes
  each list by its mean -/+ 3 standard deviations.
- ``"adaptive"``: DBSF with a lexical share that follows BM25's confidence in this query: the
  lexical weight is ``(1 - weight) * c`` with ``c = 1 - s2/s1`` from the two best BM25 scores.
  When BM25's top hit does not stand out (c near 0) the result is the dense ranking; when a rare
  term singles out one document, lexical gets up to ``1 - weight``.
- ``"dense-first"``: the dense ranking, plus ``boost`` (on the DBSF-normalized dense scores) for
  documents that contain the query's rare terms, i.e. index terms found in at most ``rare_df`` of
  the documents (names, codes, numbers), in proportion to how many of them they contain. A query
  without rare terms gets exactly the dense ranking from this boost (so does any query on a collection of fewer
  than ``1 / rare_df`` chunks, where no term is that rare), and the boost does not search BM25 in full: the
  lexical retriever must offer ``rare_term_hits`` (``BM25Retriever`` does). ``weight`` is unused.
  Identifiers and quoted phrases in the query (``ragkit.retrieval.exact_terms``: ``SESSION_COOKIE_NAME``,
  ``getUserName``, ``os.path.join``, ``--haddock-lib``, ``"tidy data"``) ask for an exact match: a passage holding
  those of them that are rare gets ``exact_boost`` more, in proportion, so it is not drowned by
  a longer passage the dense side prefers; a long option is matched as written (its words,
  "haddock" and "lib", may be common where the option is not). A query without them ranks as before.
  A file the query names by its path (``ragkit.retrieval.name_match``: "the foreword of Get
  Started" names ``get-started/foreword.md``, "Git v2.30.7" names ``2.30.7.adoc``) has its best
  passage raised by ``name_boost`` times how fully it is named; the files are looked up among all
  the lexical index's sources (``sources()``, kept by their name words in a ``NameIndex`` until
  the index holds other files), so one that neither side ranked enters with its best
  lexical passage (a file named only by words most file names share, the collection's own name,
  is named by no query). A query that asks for the collection's first release ("When did the very
  first Gammapy release come out?") names the file of its lowest release (``NameIndex.first_release``),
  and that file's opening passage, where its notes say which release it is and when, stands for it.
  A query that names no file (and any collection whose sources are opaque ids, as
  in the shared retrieval sets) ranks as before. The first passage of a section whose heading
  names a release the query names (``ragkit.retrieval.heading_match``: "2.0 Changelog > 2.0.0"
  for "When was SQLAlchemy 2.0.0 released?", a change log of a whole series in one file) ranks
  at least ``lexical_rank``, found among the lexical index's passages that hold the version; a
  query naming no release of three dotted parts ranks as before.
  BM25's best passage ranks at least ``lexical_rank`` (2: second) when it is a passage of a longer
  file (its file holds other passages, as the lexical index's ``passage_count`` tells): a passage
  cut from a longer file lacks the context its file gives it, which the dense model needs more
  than an exact match of the query's words does (a command named in one line of a release's
  notes). Collections whose files are single passages (the shared retrieval sets) rank as before;
  so does a query whose best lexical passage the fused ranking already holds that high.
  The default: the only fusion measured at least as good as dense on both shared datasets
  (msmarco-5k, dbpedia-5k-dev) and better on average (docs/benchmarks/quality.md).
"""

from __future__ import annotations

import logging

from ragkit.errors import ConfigError
from ragkit.registry import retrievers
from ragkit.retrieval.base import Retriever, check_k
from ragkit.retrieval.exact_terms import exact_terms
from ragkit.retrieval.fusion import (
    boost_matches,
    convex_combination,
    reciprocal_rank_fusion,
    score_gap_confidence,
)
from ragkit.retrieval.heading_match import names_release, query_releases
from ragkit.retrieval.name_match import NameIndex, boost_named, has_body
from ragkit.stores.filters import Filter
from ragkit.types import SearchHit

log = logging.getLogger(__name__)
FUSIONS = ("rrf", "minmax", "zscore", "dbsf", "adaptive", "dense-first")
HEADED_CANDIDATES = 50  # lexical hits of a release's version searched for the section it heads
_MAX_OPTIONS = 4  # long options of a query matched as written (each one lexical search)
OPENING_CANDIDATES = 200  # lexical hits of the first release's files searched for their opening passage


@retrievers.register("hybrid")
class HybridRetriever:
    """Dense + lexical retrieval with a choice of fusion."""

    needs = frozenset({"dense", "lexical"})

    def __init__(
        self,
        *,
        dense: Retriever,
        lexical: Retriever,
        fusion: str = "dense-first",
        rrf_k: float = 60,
        weight: float = 0.5,
        candidates: int = 100,
        rare_df: float = 0.01,
        boost: float = 0.1,
        exact_boost: float = 0.5,
        name_boost: float = 0.7,
        lexical_rank: int = 2,
    ) -> None:
        if fusion not in FUSIONS:
            raise ConfigError(f"unknown fusion {fusion!r}; allowed: {', '.join(FUSIONS)}")
        if not 0.0 <= weight <= 1.0:
            raise ConfigError(f"weight (the dense share) must be between 0 and 1 (got {weight})")
        if rrf_k < 0:
            raise ConfigError(f"rrf_k must be non-negative (got {rrf_k})")
        if not 0.0 < rare_df <= 1.0:
            raise ConfigError(f"rare_df (a fraction of the documents) must be in (0, 1] (got {rare_df})")
        if boost < 0:
            raise ConfigError(f"boost must be non-negative (got {boost})")
        if exact_boost < 0:
            raise ConfigError(f"exact_boost must be non-negative (got {exact_boost})")
        if name_boost < 0:
            raise ConfigError(f"name_boost must be non-negative (got {name_boost})")
        if isinstance(lexical_rank, bool) or not isinstance(lexical_rank, int | float) or lexical_rank < 0 \
                or lexical_rank != int(lexical_rank):
            raise ConfigError(f"lexical_rank must be a whole number, 0 (off) or more (got {lexical_rank!r})")
        self.dense = dense
        self.lexical = lexical
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.weight = float(weight)
        self.candidates = check_k(candidates, name="candidates")
        self.rare_df = float(rare_df)
        self.boost = float(boost)
        self.exact_boost = float(exact_boost)
        self.name_boost = float(name_boost)
        self.lexical_rank = int(lexical_rank)
        self._names: tuple[object, NameIndex] | None = None  # (the sources it was built from, the map)

    @property
    def params(self) -> dict[str, object]:
        return {
            "fusion": self.fusion,
            "rrf_k": self.rrf_k,
            "weight": self.weight,
            "candidates": self.candidates,
            "rare_df": self.rare_df,
            "boost": self.boost,
            "exact_boost": self.exact_boost,
            "name_boost": self.name_boost,
            "lexical_rank": self.lexical_rank,
        }

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        check_k(k)
        n = max(self.candidates, k)
        dense_hits = self.dense.retrieve(query, k=n, filter=filter)
        if self.fusion == "dense-first":
            rare_term_hits = getattr(self.lexical, "rare_term_hits", None)
            if rare_term_hits is None:  # checked here, not at construction: the wiring comes later
                raise ConfigError(
                    f"fusion 'dense-first' (the default) needs a lexical retriever with rare_term_hits "
                    f"(BM25), got {type(self.lexical).__name__}; choose another fusion: {', '.join(FUSIONS[:-1])}"
                )
            rare = rare_term_hits(query, max_df=self.rare_df, k=n, filter=filter)
            exact = exact_terms(query) if self.exact_boost else []
            if not exact:
                fused = boost_matches(dense_hits, rare, boost=self.boost)
            else:
                exact_hits = rare_term_hits(" ".join(exact), max_df=self.rare_df, k=n, filter=filter)
                fused = self._boosted(dense_hits, rare, self._with_options(exact, exact_hits, n, filter))
            named = self._headed(query, self._named(query, fused, filter), filter)
            return self._lexical_best(query, named, filter)[:k]
        lexical_hits = self.lexical.retrieve(query, k=n, filter=filter)
        return self.fuse(dense_hits, lexical_hits)[:k]

    def _named(self, query: str, fused: list[SearchHit], filter: Filter | None) -> list[SearchHit]:
        """``fused`` with ``name_boost`` for the files the query names (``ragkit.retrieval.name_match``),
        found among all the lexical index's sources; a named file missing from ``fused`` enters
        with its best lexical passage at the floor of the fused scores."""
        if not self.name_boost:
            return fused
        index = self._name_index(fused)
        named = index.named(query)
        first = index.first_release(query)
        if first and "source" not in (filter or {}):
            named = {**dict.fromkeys(first, 1.0), **{s: v for s, v in named.items() if s not in first}}
            fused = self._opening_first(query, fused, first, filter)
        present = {h.source for h in fused}
        missing = [s for s in named if s not in present]
        if missing and "source" not in (filter or {}):
            floor = min((h.score for h in fused), default=0.0)
            found = self.lexical.retrieve(query, k=10 * len(missing), filter={**(filter or {}), "source": {"$in": missing}})
            best = {h.source: h for h in reversed(found)}  # each file's best passage
            fused = fused + [SearchHit(id=h.id, score=floor, metadata=h.metadata) for h in best.values()]
        return boost_named(fused, named, boost=self.name_boost)

    def _opening_first(self, query: str, fused: list[SearchHit], sources: list[str], filter: Filter | None) -> list[SearchHit]:
        """``fused`` with the opening passage of each file of ``sources`` (the first release's: where
        a release notes file says which release it is and when) standing for its file, ahead of
        the file's other passages, with the best score among them (or the floor of ``fused``)."""
        found = self.lexical.retrieve(query, k=OPENING_CANDIDATES, filter={**(filter or {}), "source": {"$in": sources}})
        floor = min((h.score for h in fused), default=0.0)
        for source in sources:
            own = [h for h in found if h.source == source and has_body(h.text)]
            if not own:
                continue
            opening = min(own, key=lambda h: int(h.metadata.get("start") or 0))
            at = next((i for i, h in enumerate(fused) if h.source == source), None)
            score = fused[at].score if at is not None else floor
            rest = [h for h in fused if h.id != opening.id]
            at = next((i for i, h in enumerate(rest) if h.source == source), len(rest))
            fused = rest[:at] + [SearchHit(id=opening.id, score=score, metadata=opening.metadata)] + rest[at:]
        return fused

    def _headed(self, query: str, fused: list[SearchHit], filter: Filter | None) -> list[SearchHit]:
        """``fused`` with the first passage of each section whose heading names a release the
        query names (``ragkit.retrieval.heading_match``: "2.0 Changelog > 2.0.0" for "When was
        2.0.0 released?") moved up to ``lexical_rank`` (or entered there), found among the
        lexical index's passages that hold the version; the hits it passes keep their order."""
        if not self.lexical_rank:
            return fused
        first: list[SearchHit] = []
        for version in query_releases(query):
            hits = self.lexical.retrieve(version, k=HEADED_CANDIDATES, filter=filter)
            headed = [h for h in hits if names_release(str(h.metadata.get("heading") or ""), version)]
            if not headed:
                continue
            top = headed[0]  # the section of the best lexical hit; its first passage there
            section = [h for h in headed if h.source == top.source and h.metadata.get("heading") == top.metadata.get("heading")
                       and (has_body(h.text) or not h.text.strip())]  # a title alone ("# What's New in Kiln 2.14") says nothing
            if not section:
                continue
            hit = min(section, key=lambda h: int(h.metadata.get("start") or 0))
            if all(hit.id != f.id for f in first):
                first.append(hit)
        for hit in reversed(first):
            fused = _raised(fused, hit, self.lexical_rank)
        return fused

    def _lexical_best(self, query: str, fused: list[SearchHit], filter: Filter | None) -> list[SearchHit]:
        """``fused`` with BM25's best passage moved up to ``lexical_rank`` (or entered there) when it
        ranks lower and its file holds other passages; the hits it passes keep their order."""
        passage_count = getattr(self.lexical, "passage_count", None)
        if not self.lexical_rank or passage_count is None:
            return fused
        one = getattr(self.lexical, "best", None)
        found = one(query, filter=filter) if one is not None else next(
            iter(self.lexical.retrieve(query, k=1, filter=filter)), None)
        if found is None or passage_count(found.source) < 2:
            return fused
        return _raised(fused, found, self.lexical_rank)

    def _name_index(self, fused: list[SearchHit]) -> NameIndex:
        """The lexical index's sources by their name words, built again only when ``sources()``
        returns another set (the BM25 and PostgreSQL lexical indexes return the same one while
        they hold the same files); without ``sources()``, those of ``fused``."""
        sources = getattr(self.lexical, "sources", None)
        if sources is None:
            return NameIndex(h.source for h in fused)
        found = sources()
        kept = self._names
        if kept is None or kept[0] is not found:
            kept = self._names = (found, NameIndex(found))
        return kept[1]

    def _with_options(self, exact: list[str], hits: list[SearchHit], n: int, filter: Filter | None) -> list[SearchHit]:
        """The exact-term ``hits`` with the passages that write a long option of the query as it is
        written (``--haddock-lib``: its words, "haddock" and "lib", are common in the collection,
        the option is not), each scored the share of the exact terms it writes, at least; the
        query's first ``_MAX_OPTIONS`` options only (a query of a thousand options is a thousand
        searches otherwise)."""
        options = [t for t in exact if t.startswith("--")][:_MAX_OPTIONS]  # one lexical search each: a few
        counts: dict[str, int] = {}
        found = {h.id: h for h in hits}
        for option in options:
            for hit in self.lexical.retrieve(option, k=n, filter=filter):
                if option.lower() in hit.text.lower():
                    counts[hit.id] = counts.get(hit.id, 0) + 1
                    found.setdefault(hit.id, hit)
        if not counts:
            return hits
        scores = {h.id: h.score for h in hits}
        scores |= {d: max(c / len(exact), scores.get(d, 0.0)) for d, c in counts.items()}
        return [SearchHit(id=d, score=scores[d], metadata=found[d].metadata) for d in sorted(scores, key=lambda d: -scores[d])]

    def _boosted(self, dense_hits: list[SearchHit], rare: list[SearchHit], exact: list[SearchHit]) -> list[SearchHit]:
        """Dense-first with two match lists: ``boost`` times the rare-term share plus
        ``exact_boost`` times the exact-term share, as one boost of their sum."""
        total = self.boost + self.exact_boost
        if total == 0:
            return boost_matches(dense_hits, [], boost=0.0)
        shares: dict[str, float] = {}
        meta = {}
        for weight, hits in ((self.boost, rare), (self.exact_boost, exact)):
            for hit in hits:
                shares[hit.id] = shares.get(hit.id, 0.0) + weight * hit.score
                meta.setdefault(hit.id, hit.metadata)
        order = sorted(shares, key=lambda d: -shares[d])
        matches = [SearchHit(id=d, score=shares[d] / total, metadata=meta[d]) for d in order]
        return boost_matches(dense_hits, matches, boost=total)

    def fuse(self, dense_hits: list[SearchHit], lexical_hits: list[SearchHit]) -> list[SearchHit]:
        """Fuse two candidate lists with this retriever's settings (useful for sweeps).

        For ``dense-first`` the second list holds the rare-term matches (scores in [0, 1])."""
        if self.fusion == "dense-first":
            return boost_matches(dense_hits, lexical_hits, boost=self.boost)
        weights = [self.weight, 1.0 - self.weight]
        if self.fusion == "rrf":
            return reciprocal_rank_fusion(
                [dense_hits, lexical_hits], k=self.rrf_k, weights=[2 * w for w in weights]
            )
        if self.fusion == "adaptive":
            lexical_share = (1.0 - self.weight) * score_gap_confidence(lexical_hits)
            return convex_combination(
                [dense_hits, lexical_hits], weights=[1.0 - lexical_share, lexical_share], normalization="dbsf"
            )
        return convex_combination([dense_hits, lexical_hits], weights=weights, normalization=self.fusion)


def _raised(fused: list[SearchHit], hit: SearchHit, rank: int) -> list[SearchHit]:
    """``fused`` with ``hit`` moved up to ``rank`` (1: first) when it ranks lower or is missing,
    taking the score of the hit it now precedes; the hits it passes keep their order."""
    at = next((i for i, h in enumerate(fused) if h.id == hit.id), None)
    if at is not None and at < rank:
        return fused
    kept = fused[at] if at is not None else hit
    rest = [h for h in fused if h.id != kept.id]
    slot = min(rank - 1, len(rest))
    score = rest[slot].score if slot < len(rest) else (rest[-1].score if rest else kept.score)
    return [*rest[:slot], SearchHit(id=kept.id, score=score, metadata=kept.metadata), *rest[slot:]]
