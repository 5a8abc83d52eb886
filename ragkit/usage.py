"""Token and cost accounting: per call (``UsageStats``) and per agent run (``AgentUsage``).

LLM tokens come from every provider response (priced with ``ragkit.pricing``); embedding tokens
come from tools: a tool returns ``ToolOutput(usage=UsageStats(embedding_tokens=..., model=...))``
and the agent folds it into the run's embedding totals and into ``by_tool[name]``. Cache hits
count their tokens at zero cost. All costs are USD.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

Cost = float | None  # USD; None = unpriced (a model without a known price), never shown as $0


def add_costs(a: Cost, b: Cost) -> Cost:
    """The sum of two costs; unpriced if either is."""
    return None if a is None or b is None else a + b


def format_cost(cost: Cost, unpriced: list[str] | tuple[str, ...] = (), *, digits: int = 4) -> str:
    """``$0.0036``, or ``unpriced`` naming the models without a price."""
    if cost is not None:
        return f"${cost:.{digits}f}"
    return f"unpriced (no price for {', '.join(unpriced)})" if unpriced else "unpriced"


@dataclass(frozen=True)
class UsageStats:
    """What one call consumed.

    ``cost=None`` (and ``unpriced=False``) means "price it from the model registry using
    ``model``" (LLM tokens with ``price_llm``, embedding tokens with ``price_embedding``); a number
    is taken as is. After ``priced()``, ``unpriced=True`` with ``cost=None`` says a model had no
    price: the cost is unknown, not zero.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    embedding_tokens: int = 0
    cost: float | None = None
    model: str | None = None
    embedding_model: str | None = None
    provider: str | None = None
    unpriced: bool = False

    def __add__(self, other: UsageStats) -> UsageStats:
        a, b = self.priced(), other.priced()
        return UsageStats(
            input_tokens=a.input_tokens + b.input_tokens,
            output_tokens=a.output_tokens + b.output_tokens,
            embedding_tokens=a.embedding_tokens + b.embedding_tokens,
            cost=add_costs(a.cost, b.cost),
            model=a.model if a.model == b.model else None,
            embedding_model=a.embedding_model if a.embedding_model == b.embedding_model else None,
            provider=a.provider if a.provider == b.provider else None,
            unpriced=a.unpriced or b.unpriced,
        )

    def llm_cost(self) -> Cost:
        """Cost of the LLM tokens from the registry (0 without LLM tokens; None when unpriced)."""
        from ragkit import pricing

        if not (self.input_tokens or self.output_tokens):
            return 0.0
        if not self.model:
            return None
        return pricing.price_llm(self.model, self.input_tokens, self.output_tokens, provider=self.provider)

    def embedding_cost(self) -> Cost:
        from ragkit import pricing

        model = self.embedding_model or self.model
        if not self.embedding_tokens:
            return 0.0
        if not model:
            return None
        return pricing.price_embedding(model, self.embedding_tokens)

    def priced(self) -> UsageStats:
        """A copy whose ``cost`` is filled in from the model registry when it was ``None``."""
        if self.cost is not None or self.unpriced:
            return self
        cost = add_costs(self.llm_cost(), self.embedding_cost())
        return replace(self, cost=cost, unpriced=cost is None)

    @classmethod
    def from_embedding_usage(cls, usage: Any, *, model: str | None = None) -> UsageStats:
        """Convert an embedder's ``EmbeddingUsage`` (or a ``since()`` delta of it)."""
        cost = None if usage.cost is None else float(usage.cost)
        return cls(embedding_tokens=int(usage.tokens), cost=cost, embedding_model=model, unpriced=cost is None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self.priced())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageStats:
        return cls(**data)


@dataclass
class ToolUsage:
    """Per-tool attribution within one run (``cost`` None: a model it used has no price)."""

    calls: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    embedding_tokens: int = 0
    cost: float | None = 0.0


@dataclass
class IterationUsage:
    """What one iteration of a run used: its model call (or cache hit) and its tool calls."""

    iteration: int
    model: str = ""
    llm_calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_cost: float | None = 0.0
    tool_calls: int = 0
    embedding_tokens: int = 0
    embedding_cost: float | None = 0.0

    @property
    def cost(self) -> Cost:
        return add_costs(self.llm_cost, self.embedding_cost)


@dataclass
class AgentUsage:
    """Usage aggregated over one agent run (or several, with ``merge``).

    A cost is ``None`` when a model without a known price was used (``unpriced`` names them):
    ragkit never counts an unknown price as $0. ``iterations`` breaks the run down per iteration.
    """

    llm_calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_cost: float | None = 0.0
    embedding_tokens: int = 0
    embedding_cost: float | None = 0.0
    images: int = 0  # images sent to the model (their tokens are part of input_tokens)
    by_tool: dict[str, ToolUsage] = field(default_factory=dict)
    unpriced: list[str] = field(default_factory=list)
    iterations: list[IterationUsage] = field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.embedding_tokens

    @property
    def total_cost(self) -> Cost:
        return add_costs(self.llm_cost, self.embedding_cost)

    def _iteration(self, number: int | None) -> IterationUsage | None:
        if number is None:
            return None
        if not self.iterations or self.iterations[-1].iteration != number:
            self.iterations.append(IterationUsage(number))
        return self.iterations[-1]

    def _unpriced(self, name: str | None) -> None:
        name = name or "(unnamed model)"
        if name not in self.unpriced:
            self.unpriced.append(name)

    def add_llm(self, *, model: str, input_tokens: int, output_tokens: int, cached: bool = False,
                provider: str | None = None, iteration: int | None = None, cached_input_tokens: int = 0,
                images: int = 0) -> Cost:
        """Count one model call; returns its cost (0 for a response-cache hit, None when unpriced).
        ``cached_input_tokens`` (part of ``input_tokens``) are priced at the vendor's cached-input rate;
        ``images``: how many the request carried (priced as the registry knows, see ``price_llm``)."""
        from ragkit import pricing

        cost = 0.0 if cached else pricing.price_llm(model, input_tokens, output_tokens, provider=provider,
                                                    cached_input_tokens=cached_input_tokens, images=images)
        if cost is None:
            self._unpriced(model)
        self.images += images
        self.llm_calls += 1
        self.cache_hits += int(cached)
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.llm_cost = add_costs(self.llm_cost, cost)
        step = self._iteration(iteration)
        if step is not None:
            step.model = step.model or model
            step.llm_calls += 1
            step.cache_hits += int(cached)
            step.input_tokens += input_tokens
            step.output_tokens += output_tokens
            step.llm_cost = add_costs(step.llm_cost, cost)
        return cost

    def add_tool(self, name: str, usage: UsageStats | None = None, *, error: bool = False,
                 iteration: int | None = None) -> None:
        """Count one tool call and fold what it reported into the run's totals."""
        entry = self.by_tool.setdefault(name, ToolUsage())
        entry.calls += 1
        entry.errors += int(error)
        step = self._iteration(iteration)
        if step is not None:
            step.tool_calls += 1
        if usage is None:
            return
        llm_cost, emb_cost = _split_cost(usage)
        if llm_cost is None:
            self._unpriced(usage.model)
        if emb_cost is None:
            self._unpriced(usage.embedding_model or usage.model)
        entry.input_tokens += usage.input_tokens
        entry.output_tokens += usage.output_tokens
        entry.embedding_tokens += usage.embedding_tokens
        entry.cost = add_costs(entry.cost, add_costs(llm_cost, emb_cost))
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.llm_cost = add_costs(self.llm_cost, llm_cost)
        self.embedding_tokens += usage.embedding_tokens
        self.embedding_cost = add_costs(self.embedding_cost, emb_cost)
        if step is not None:
            step.input_tokens += usage.input_tokens
            step.output_tokens += usage.output_tokens
            step.llm_cost = add_costs(step.llm_cost, llm_cost)
            step.embedding_tokens += usage.embedding_tokens
            step.embedding_cost = add_costs(step.embedding_cost, emb_cost)

    def merge(self, other: AgentUsage) -> AgentUsage:
        """Add ``other`` into this one (e.g. to total a batch); returns self."""
        for name in ("llm_calls", "cache_hits", "input_tokens", "output_tokens", "embedding_tokens", "images"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.llm_cost = add_costs(self.llm_cost, other.llm_cost)
        self.embedding_cost = add_costs(self.embedding_cost, other.embedding_cost)
        for tool_name, tu in other.by_tool.items():
            mine = self.by_tool.setdefault(tool_name, ToolUsage())
            for key, value in asdict(tu).items():
                add = add_costs if key == "cost" else (lambda a, b: a + b)
                setattr(mine, key, add(getattr(mine, key), value))
        for name in other.unpriced:
            self._unpriced(name)
        self.iterations.extend(IterationUsage(**asdict(i)) for i in other.iterations)
        return self

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["total_tokens"] = self.total_tokens
        data["total_cost"] = self.total_cost
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentUsage:
        skip = ("total_tokens", "total_cost", "by_tool", "iterations", "unpriced")
        fields = {k: v for k, v in data.items() if k not in skip}
        by_tool = {k: ToolUsage(**v) for k, v in data.get("by_tool", {}).items()}
        iterations = [IterationUsage(**i) for i in data.get("iterations", [])]
        return cls(**fields, by_tool=by_tool, unpriced=list(data.get("unpriced", [])), iterations=iterations)

    def summary_line(self) -> str:
        """E.g. ``LLM 1,234 in / 210 out tokens · embeddings 35 tokens · cost $0.0012`` (or ``cost
        unpriced (no price for my-model)`` when a model has no known price)."""
        parts = [f"LLM {self.input_tokens:,} in / {self.output_tokens:,} out tokens"]
        if self.images:
            parts.append(f"{self.images} image{'s' if self.images != 1 else ''}")
        if self.embedding_tokens:
            parts.append(f"embeddings {self.embedding_tokens:,} tokens")
        if self.cache_hits:
            parts.append(f"{self.cache_hits} cached")
        parts.append(f"cost {format_cost(self.total_cost, self.unpriced)}")
        return " · ".join(parts)


def _split_cost(usage: UsageStats) -> tuple[Cost, Cost]:
    """(llm_cost, embedding_cost) of a tool's usage; an explicit cost goes to where tokens are."""
    if usage.unpriced:  # a known unknown: each part that has tokens is unpriced
        return (None if usage.input_tokens or usage.output_tokens else 0.0, None if usage.embedding_tokens else 0.0)
    if usage.cost is None:
        return usage.llm_cost(), usage.embedding_cost()
    if usage.embedding_tokens and not (usage.input_tokens or usage.output_tokens):
        return 0.0, usage.cost
    if usage.embedding_tokens:  # mixed: attribute the embedding part at list price, rest to LLM
        listed = usage.embedding_cost()
        emb = usage.cost if listed is None else min(usage.cost, listed)
        return usage.cost - emb, emb
    return usage.cost, 0.0


__all__ = ["AgentUsage", "Cost", "IterationUsage", "ToolUsage", "UsageStats", "add_costs", "format_cost"]
