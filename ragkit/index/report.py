"""What an indexing run did, for the CLI's final report and the catalog's run log."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit.usage import format_cost


@dataclass
class IndexReport:
    index_dir: str = ""
    run_id: int = 0
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: chunks in the index before the run; before + added - removed = total
    chunks_before: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_total: int = 0
    #: chunks put back into a sink (a new, changed or damaged store; a new BM25 index) from the
    #: catalog and the embedding cache
    chunks_restored: int = 0
    store_rebuilt: bool = False
    texts_embedded: int = 0
    cache_hits: int = 0
    embedding_tokens: int = 0
    embedding_cost: float | None = 0.0  # None: the embedding model has no known price
    seconds: float = 0.0
    #: asset files left out by discovery: extension -> count, and the one-line summary
    assets_skipped: dict[str, int] = field(default_factory=dict)
    assets_summary: str | None = None

    @property
    def chunks_per_second(self) -> float:
        return self.chunks_added / self.seconds if self.seconds > 0 else 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.chunks_added or self.chunks_removed)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["skipped"] = [{"source": s, "reason": r} for s, r in self.skipped]
        d["chunks_per_second"] = round(self.chunks_per_second, 2)
        return d

    def summary_lines(self) -> list[str]:
        lines = [
            f"index: {self.index_dir} (run {self.run_id})",
            f"sources: {len(self.added)} added, {len(self.updated)} updated, {self.unchanged} unchanged, "
            f"{len(self.removed)} removed, {len(self.skipped)} skipped",
            f"chunks: {self.chunks_before} + {self.chunks_added} added - {self.chunks_removed} removed = "
            f"{self.chunks_total} in the index"
            + (f" ({self.chunks_restored} restored from the catalog and the embedding cache)" if self.chunks_restored else ""),
            f"embedding: {self.texts_embedded} texts embedded, {self.cache_hits} from cache, "
            f"{self.embedding_tokens:,} tokens, cost {format_cost(self.embedding_cost, digits=6)}",
            f"time: {self.seconds:.2f} s ({self.chunks_per_second:.1f} chunks/s)",
        ]
        if self.skipped:
            lines.append("skipped files:")
            lines.extend(f"  {src}: {reason}" for src, reason in self.skipped)
        if self.assets_summary:
            lines.append(self.assets_summary)
        return lines
