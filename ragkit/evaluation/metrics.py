"""Ranking metrics with the definitions trec_eval uses. Pure functions, no I/O.

Conventions (the same as ``trec_eval`` / ``pytrec_eval``):

- A run is ``{doc_id: score}`` for one query; it is ranked by score descending, ties broken by
  doc id in *descending* string order (trec_eval's rule, so results are reproducible).
- Qrels are ``{doc_id: relevance}``; a document is relevant when ``relevance >= 1``
  (trec_eval's default ``relevance_level``). Graded relevance is used as the gain in nDCG.
- nDCG@k: DCG = sum(rel_i / log2(i + 1)) over the top k; the ideal DCG is computed from *all*
  judged documents of the query (not only the retrieved ones), also cut at k.
- Recall@k: relevant documents in the top k / all relevant documents of the query.
- MRR@k: 1 / rank of the first relevant document within the top k, else 0.
- MAP@k (trec_eval ``map_cut``): sum of precision at each relevant document in the top k,
  divided by the total number of relevant documents of the query.
- A query with no relevant documents scores 0 on every metric.
- ``ndcg_exp@k`` is nDCG with the exponential gain ``2**rel - 1`` (Burges et al. 2005; ranx's
  ``ndcg_burges``) instead of trec_eval's linear gain; everything else is the same. The
  reference figures in ``shared/datasets/msmarco-5k/README.md`` are of this kind (BM25 0.575,
  dense 0.704 reproduce to three decimals with it; trec_eval's ``ndcg_cut_10`` gives 0.688 and
  0.798 on the same runs). With binary relevance both are identical.

``evaluate`` averages over the queries that have judgments in the qrels. Queries without any
judgment are excluded (they cannot be scored); a judged query missing from the run counts as an
empty ranking and scores 0 (``trec_eval -c``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ragkit.errors import ConfigError

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]
DEFAULT_METRICS: tuple[str, ...] = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map@100")


def rank(scores: Mapping[str, float]) -> list[str]:
    """Doc ids by score descending, ties by doc id descending (trec_eval's order)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def _check_k(k: int) -> None:
    if not isinstance(k, int) or k < 1:
        raise ConfigError(f"the metric cut-off k must be an integer of at least 1 (got {k!r})")


def _num_relevant(qrels: Mapping[str, int]) -> int:
    return sum(1 for rel in qrels.values() if rel >= 1)


def dcg(gains: Iterable[float]) -> float:
    """Discounted cumulative gain with the log2(rank + 1) discount (rank starts at 1)."""
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


GAINS = ("linear", "exponential")


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], *, k: int, gain: str = "linear") -> float:
    """nDCG@k with graded gains; the ideal ranking uses every judged document of the query.

    ``gain="linear"`` uses the relevance grade (trec_eval); ``"exponential"`` uses 2**rel - 1.
    """
    _check_k(k)
    if gain not in GAINS:
        raise ConfigError(f"unknown nDCG gain {gain!r}; allowed: {', '.join(GAINS)}")

    def g(rel: int) -> float:
        rel = max(rel, 0)
        return float(rel) if gain == "linear" else float(2**rel - 1)

    gains = [g(qrels.get(doc, 0)) for doc in ranking[:k]]
    ideal = sorted((g(rel) for rel in qrels.values() if rel > 0), reverse=True)[:k]
    idcg = dcg(ideal)
    return dcg(gains) / idcg if idcg > 0 else 0.0


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, int], *, k: int) -> float:
    """Fraction of the query's relevant documents (rel >= 1) found in the top k."""
    _check_k(k)
    total = _num_relevant(qrels)
    if total == 0:
        return 0.0
    return sum(1 for doc in ranking[:k] if qrels.get(doc, 0) >= 1) / total


def mrr_at_k(ranking: Sequence[str], qrels: Mapping[str, int], *, k: int) -> float:
    """Reciprocal rank of the first relevant document in the top k (0 when none)."""
    _check_k(k)
    for i, doc in enumerate(ranking[:k]):
        if qrels.get(doc, 0) >= 1:
            return 1.0 / (i + 1)
    return 0.0


def map_at_k(ranking: Sequence[str], qrels: Mapping[str, int], *, k: int) -> float:
    """Average precision over the top k, divided by *all* relevant documents (trec_eval map_cut)."""
    _check_k(k)
    total = _num_relevant(qrels)
    if total == 0:
        return 0.0
    found = 0
    precision_sum = 0.0
    for i, doc in enumerate(ranking[:k]):
        if qrels.get(doc, 0) >= 1:
            found += 1
            precision_sum += found / (i + 1)
    return precision_sum / total


MetricFn = Callable[..., float]


def ndcg_exp_at_k(ranking: Sequence[str], qrels: Mapping[str, int], *, k: int) -> float:
    """nDCG@k with the exponential gain 2**rel - 1 (see the module docstring)."""
    return ndcg_at_k(ranking, qrels, k=k, gain="exponential")


METRICS: dict[str, MetricFn] = {
    "ndcg": ndcg_at_k,
    "ndcg_exp": ndcg_exp_at_k,
    "recall": recall_at_k,
    "mrr": mrr_at_k,
    "map": map_at_k,
}
_SPEC = re.compile(r"^(?P<name>[a-z_]+)@(?P<k>\d+)$")


def parse_metric(spec: str) -> tuple[str, int]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; unknown names or a missing cut-off are errors."""
    m = _SPEC.match(spec.strip().lower())
    if not m or m.group("name") not in METRICS:
        raise ConfigError(
            f"unknown metric {spec!r}; write NAME@K with NAME one of "
            f"{', '.join(sorted(METRICS))} (e.g. 'ndcg@10')"
        )
    k = int(m.group("k"))
    _check_k(k)
    return m.group("name"), k


@dataclass(frozen=True)
class EvalResult:
    """Per-query and mean values of each metric, over the judged queries."""

    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    mean: dict[str, float] = field(default_factory=dict)
    excluded_queries: tuple[str, ...] = ()

    @property
    def num_queries(self) -> int:
        return len(self.per_query)


def evaluate(run: Run, qrels: Qrels, *, metrics: Sequence[str] = DEFAULT_METRICS) -> EvalResult:
    """Score ``run`` against ``qrels`` on each metric; see the module docstring for conventions.

    Queries in the run that have no judgments are excluded and listed in ``excluded_queries``.
    """
    parsed = [(spec, *parse_metric(spec)) for spec in metrics]
    judged = sorted(qid for qid, docs in qrels.items() if docs)
    per_query: dict[str, dict[str, float]] = {}
    for qid in judged:
        ranking = rank(run.get(qid, {}))
        per_query[qid] = {spec: METRICS[name](ranking, qrels[qid], k=k) for spec, name, k in parsed}
    mean = {
        spec: (sum(v[spec] for v in per_query.values()) / len(per_query) if per_query else 0.0)
        for spec, _, _ in parsed
    }
    excluded = tuple(sorted(qid for qid in run if qid not in per_query))
    return EvalResult(per_query=per_query, mean=mean, excluded_queries=excluded)
