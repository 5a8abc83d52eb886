"""What an indexing run did, for the CLI's final report and the catalog's run log."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit.usage import format_cost

#: example sources named per skip reason
SKIP_EXAMPLES = 3
_NUMBER = re.compile(r"0x[0-9a-fA-F]+|\d+")


@dataclass(frozen=True)
class SkipGroup:
    """The files skipped for one reason: the reason (numbers that vary between the files shown
    as ``…``), how many, and the first few sources."""

    reason: str
    count: int
    examples: tuple[str, ...]

    def line(self) -> str:
        more = f" and {self.count - len(self.examples)} more" if self.count > len(self.examples) else ""
        noun = "file" if self.count == 1 else "files"
        return f"{self.count} {noun}: {self.reason} ({', '.join(self.examples)}{more})"

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "count": self.count, "examples": list(self.examples)}


def group_skips(skipped: Sequence[tuple[str, str]], *, examples: int = SKIP_EXAMPLES) -> list[SkipGroup]:
    """Group ``(source, reason)`` pairs by reason (reasons that differ only in numbers, such as a
    byte offset or a line, are one), the largest group first."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for source, reason in skipped:
        groups.setdefault(_NUMBER.sub("N", reason), []).append((source, reason))
    out = []
    for members in groups.values():
        reasons = {r for _, r in members}
        shown = reasons.pop() if len(reasons) == 1 else _vary(members[0][1], reasons)
        out.append(SkipGroup(shown, len(members), tuple(s for s, _ in members[:examples])))
    return sorted(out, key=lambda g: (-g.count, g.reason))


def _vary(first: str, reasons: set[str]) -> str:
    """``first`` with each number that is not the same in all ``reasons`` written ``…``."""
    others = [_NUMBER.findall(r) for r in reasons]
    numbers = _NUMBER.findall(first)
    fixed = [all(i < len(o) and o[i] == n for o in others) for i, n in enumerate(numbers)]
    it = iter(fixed)
    return _NUMBER.sub(lambda m: m.group(0) if next(it) else "…", first)


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
    #: ``old -> new`` embedder id when this run embedded the whole index again with another
    #: backend or int8 recipe of the same model
    embedder_switch: str | None = None
    texts_embedded: int = 0
    cache_hits: int = 0
    embedding_tokens: int = 0
    embedding_cost: float | None = 0.0  # None: the embedding model has no known price
    seconds: float = 0.0
    #: asset files left out by discovery: extension -> count, and the one-line summary
    assets_skipped: dict[str, int] = field(default_factory=dict)
    assets_summary: str | None = None
    #: symlinked folders discovery did not follow (a cycle, or a folder already walked), one line each
    links_not_followed: list[str] = field(default_factory=list)
    #: ``(source, message)``: what a loader warned about a file it indexed (a table it dropped)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    #: ``indexing.engine: ray``: batches done per Ray node id; sources shipped again after the
    #: cluster lost work (a node or worker died and Ray's own restarts did not recover it)
    ray_nodes: dict[str, int] = field(default_factory=dict)
    ray_reshipped: int = 0

    @property
    def chunks_per_second(self) -> float:
        return self.chunks_added / self.seconds if self.seconds > 0 else 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.chunks_added or self.chunks_removed)

    @property
    def nothing_indexed(self) -> bool:
        """Files were found, and every one of them was skipped: the index got nothing from them."""
        return bool(self.skipped) and not (self.added or self.updated or self.unchanged)

    def ray_line(self) -> str:
        nodes = ", ".join(f"{node[:8]} {n}" for node, n in sorted(self.ray_nodes.items(), key=lambda kv: (-kv[1], kv[0])))
        again = f"; {self.ray_reshipped} source(s) shipped again after lost work" if self.ray_reshipped else ""
        return f"ray: {sum(self.ray_nodes.values())} batches on {len(self.ray_nodes)} node(s) ({nodes}){again}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["skipped"] = [{"source": s, "reason": r} for s, r in self.skipped]
        d["warnings"] = [{"source": s, "message": m} for s, m in self.warnings]
        d["skipped_groups"] = [g.to_dict() for g in group_skips(self.skipped)]
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
            *([f"embedder changed: {self.embedder_switch}; re-embedded the index's "
               f"{self.chunks_restored} chunks from the catalog"] if self.embedder_switch else []),
            f"embedding: {self.texts_embedded} texts embedded, {self.cache_hits} from cache, "
            f"{self.embedding_tokens:,} tokens, cost {format_cost(self.embedding_cost, digits=6)}",
            f"time: {self.seconds:.2f} s ({self.chunks_per_second:.1f} chunks/s)",
            *([self.ray_line()] if self.ray_nodes or self.ray_reshipped else []),
        ]
        if self.skipped:
            groups = group_skips(self.skipped)
            lines.append(f"skipped files: {len(self.skipped)} ({len(groups)} reason{'s' if len(groups) > 1 else ''})")
            lines.extend(f"  {g.line()}" for g in groups)
        if self.warnings:
            lines.append(f"warnings: {len(self.warnings)} (files indexed with a part left out)")
            lines.extend(f"  {source}: {message}" for source, message in self.warnings[:SKIP_EXAMPLES * 3])
            if len(self.warnings) > SKIP_EXAMPLES * 3:
                lines.append(f"  and {len(self.warnings) - SKIP_EXAMPLES * 3} more")
        if self.assets_summary:
            lines.append(self.assets_summary)
        if self.links_not_followed:
            lines.append(f"symlinked folders not followed: {len(self.links_not_followed)}")
            lines.extend(f"  {line}" for line in self.links_not_followed)
        return lines
