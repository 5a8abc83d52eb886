"""What an indexing run did, for the CLI's final report and the catalog's run log."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class IndexReport:
    index_dir: str = ""
    run_id: int = 0
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_total: int = 0
    texts_embedded: int = 0
    cache_hits: int = 0
    embedding_tokens: int = 0
    embedding_cost: float = 0.0
    seconds: float = 0.0

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
            f"chunks: {self.chunks_added} added, {self.chunks_removed} removed, {self.chunks_total} in the index",
            f"embedding: {self.texts_embedded} texts embedded, {self.cache_hits} from cache, "
            f"{self.embedding_tokens:,} tokens, cost ${self.embedding_cost:.6f}",
            f"time: {self.seconds:.2f} s ({self.chunks_per_second:.1f} chunks/s)",
        ]
        if self.skipped:
            lines.append("skipped files:")
            lines.extend(f"  {src}: {reason}" for src, reason in self.skipped)
        return lines
