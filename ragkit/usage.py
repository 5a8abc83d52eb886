"""Token and cost accounting: per call (``UsageStats``) and per agent run (``AgentUsage``).

LLM tokens come from every provider response (priced with ``ragkit.pricing``); embedding tokens
come from tools: a tool returns ``ToolOutput(usage=UsageStats(embedding_tokens=..., model=...))``
and the agent folds it into the run's embedding totals and into ``by_tool[name]``. Cache hits
count their tokens at zero cost. All costs are USD.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class UsageStats:
    """What one call consumed.

    ``cost=None`` means "price it from the model registry using ``model``" (LLM tokens with
    ``price_llm``, embedding tokens with ``price_embedding``); a number is taken as is.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    embedding_tokens: int = 0
    cost: float | None = None
    model: str | None = None
    embedding_model: str | None = None

    def __add__(self, other: UsageStats) -> UsageStats:
        a, b = self.priced(), other.priced()
        return UsageStats(
            input_tokens=a.input_tokens + b.input_tokens,
            output_tokens=a.output_tokens + b.output_tokens,
            embedding_tokens=a.embedding_tokens + b.embedding_tokens,
            cost=(a.cost or 0.0) + (b.cost or 0.0),
            model=a.model if a.model == b.model else None,
            embedding_model=a.embedding_model if a.embedding_model == b.embedding_model else None,
        )

    def llm_cost(self) -> float:
        """Cost of the LLM tokens alone (0 when ``cost`` was given explicitly for embeddings)."""
        from ragkit import pricing

        if not (self.input_tokens or self.output_tokens) or not self.model:
            return 0.0
        return pricing.price_llm(self.model, self.input_tokens, self.output_tokens)

    def embedding_cost(self) -> float:
        from ragkit import pricing

        model = self.embedding_model or self.model
        if not self.embedding_tokens or not model:
            return 0.0
        return pricing.price_embedding(model, self.embedding_tokens)

    def priced(self) -> UsageStats:
        """A copy whose ``cost`` is filled in from the model registry when it was ``None``."""
        if self.cost is not None:
            return self
        return replace(self, cost=self.llm_cost() + self.embedding_cost())

    @classmethod
    def from_embedding_usage(cls, usage: Any, *, model: str | None = None) -> UsageStats:
        """Convert an embedder's ``EmbeddingUsage`` (or a ``since()`` delta of it)."""
        return cls(embedding_tokens=int(usage.tokens), cost=float(usage.cost), embedding_model=model)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self.priced())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageStats:
        return cls(**data)


@dataclass
class ToolUsage:
    """Per-tool attribution within one run."""

    calls: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    embedding_tokens: int = 0
    cost: float = 0.0


@dataclass
class AgentUsage:
    """Usage aggregated over one agent run (or several, with ``merge``)."""

    llm_calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_cost: float = 0.0
    embedding_tokens: int = 0
    embedding_cost: float = 0.0
    by_tool: dict[str, ToolUsage] = field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.embedding_tokens

    @property
    def total_cost(self) -> float:
        return self.llm_cost + self.embedding_cost

    def add_llm(self, *, model: str, input_tokens: int, output_tokens: int, cached: bool = False) -> float:
        """Count one model call; returns its cost (0 for a cache hit)."""
        from ragkit import pricing

        cost = 0.0 if cached else pricing.price_llm(model, input_tokens, output_tokens)
        self.llm_calls += 1
        self.cache_hits += int(cached)
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.llm_cost += cost
        return cost

    def add_tool(self, name: str, usage: UsageStats | None = None, *, error: bool = False) -> None:
        """Count one tool call and fold what it reported into the run's totals."""
        entry = self.by_tool.setdefault(name, ToolUsage())
        entry.calls += 1
        entry.errors += int(error)
        if usage is None:
            return
        llm_cost, emb_cost = _split_cost(usage)
        entry.input_tokens += usage.input_tokens
        entry.output_tokens += usage.output_tokens
        entry.embedding_tokens += usage.embedding_tokens
        entry.cost += llm_cost + emb_cost
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.llm_cost += llm_cost
        self.embedding_tokens += usage.embedding_tokens
        self.embedding_cost += emb_cost

    def merge(self, other: AgentUsage) -> AgentUsage:
        """Add ``other`` into this one (e.g. to total a batch); returns self."""
        for name in ("llm_calls", "cache_hits", "input_tokens", "output_tokens", "llm_cost",
                     "embedding_tokens", "embedding_cost"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for tool_name, tu in other.by_tool.items():
            mine = self.by_tool.setdefault(tool_name, ToolUsage())
            for key, value in asdict(tu).items():
                setattr(mine, key, getattr(mine, key) + value)
        return self

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["total_tokens"] = self.total_tokens
        data["total_cost"] = self.total_cost
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentUsage:
        fields = {k: v for k, v in data.items() if k not in ("total_tokens", "total_cost", "by_tool")}
        by_tool = {k: ToolUsage(**v) for k, v in data.get("by_tool", {}).items()}
        return cls(**fields, by_tool=by_tool)

    def summary_line(self) -> str:
        """E.g. ``LLM 1,234 in / 210 out tokens · embeddings 35 tokens · cost $0.0012``."""
        parts = [f"LLM {self.input_tokens:,} in / {self.output_tokens:,} out tokens"]
        if self.embedding_tokens:
            parts.append(f"embeddings {self.embedding_tokens:,} tokens")
        if self.cache_hits:
            parts.append(f"{self.cache_hits} cached")
        parts.append(f"cost ${self.total_cost:.4f}")
        return " · ".join(parts)


def _split_cost(usage: UsageStats) -> tuple[float, float]:
    """(llm_cost, embedding_cost) of a tool's usage; an explicit cost goes to where tokens are."""
    if usage.cost is None:
        return usage.llm_cost(), usage.embedding_cost()
    if usage.embedding_tokens and not (usage.input_tokens or usage.output_tokens):
        return 0.0, usage.cost
    if usage.embedding_tokens:  # mixed: attribute the embedding part at list price, rest to LLM
        emb = min(usage.cost, usage.embedding_cost())
        return usage.cost - emb, emb
    return usage.cost, 0.0


__all__ = ["AgentUsage", "ToolUsage", "UsageStats"]
