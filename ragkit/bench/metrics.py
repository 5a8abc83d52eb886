"""Pure functions for benchmark figures: recall, latency percentiles, sanity checks.

Recall follows VectorDBBench/ann-benchmarks: ``|returned ∩ true top-k| / k`` per query, averaged
over the queries (when fewer than ``k`` rows can match a filter, the denominator is the number
that can). Sanity checks look at every result list; a failing check marks the result invalid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_PROBLEMS = 10  # examples kept per result; the counts are always complete


def recall_at(returned: Sequence[int], truth: np.ndarray, k: int) -> float:
    """``|returned[:k] ∩ truth[:k]| / k`` (truth rows padded with -1 shrink the denominator)."""
    true_k = [int(t) for t in truth[:k] if t >= 0]
    if not true_k:
        return 1.0
    return len(set(returned[:k]) & set(true_k)) / len(true_k)


def mean_recall(results: Sequence[Sequence[int]], truth: np.ndarray, k: int) -> float:
    if not results:
        return float("nan")
    return float(np.mean([recall_at(r, truth[i], k) for i, r in enumerate(results)]))


def latency_summary(seconds: Iterable[float]) -> dict[str, float]:
    """p50/p95/p99/mean in milliseconds."""
    ms = np.asarray(list(seconds), dtype=np.float64) * 1000.0
    if not ms.size:
        return {
            "p50_ms": float("nan"),
            "p95_ms": float("nan"),
            "p99_ms": float("nan"),
            "mean_ms": float("nan"),
        }
    p50, p95, p99 = np.percentile(ms, [50, 95, 99])
    return {"p50_ms": float(p50), "p95_ms": float(p95), "p99_ms": float(p99), "mean_ms": float(ms.mean())}


@dataclass
class Sanity:
    """Accumulates problems found in result lists; ``valid`` is False after the first one."""

    checked: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.counts

    def _flag(self, kind: str, example: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if len(self.examples) < MAX_PROBLEMS:
            self.examples.append(example)

    def check(
        self, ids: Sequence[str], *, k: int, n: int, where: str, allowed: np.ndarray | None = None
    ) -> list[int]:
        """Check one result list; return its row numbers (unknown ids dropped).

        Problems: more than ``k`` hits, a duplicate id, an id that is not in the dataset, a hit
        that does not match the filter (``allowed`` is the filter's row mask).
        """
        self.checked += 1
        if len(ids) > k:
            self._flag("too_many_hits", f"{where}: {len(ids)} hits for k={k}")
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if list(ids).count(i) > 1})[:3]
            self._flag("duplicate_ids", f"{where}: duplicate ids {dup}")
        rows: list[int] = []
        for hit_id in ids:
            row = parse_id(hit_id, n)
            if row is None:
                self._flag("unknown_id", f"{where}: id {hit_id!r} is not in the dataset")
                continue
            if allowed is not None and not allowed[row]:
                self._flag("filter_violated", f"{where}: id {hit_id!r} does not match the filter")
            rows.append(row)
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "checked": self.checked,
            "problems": dict(self.counts),
            "examples": list(self.examples),
        }


def parse_id(hit_id: str, n: int) -> int | None:
    """Row number of a benchmark id ``v{row}``, or None when it is not one of the ``n`` rows."""
    if not isinstance(hit_id, str) or not hit_id.startswith("v") or not hit_id[1:].isdigit():
        return None
    row = int(hit_id[1:])
    return row if row < n else None
