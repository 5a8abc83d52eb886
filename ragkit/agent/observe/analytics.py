"""``Analytics``: aggregates agent runs into per-tool and per-model figures.

Three ways in, one accounting: as an observer (``Agent(..., observers=[analytics])``), from a
finished run's trace (``analytics.add_trace(result.trace)``; ``ragkit ask --trace`` does this) or
from an audit log (``Analytics.from_audit_log("audit.jsonl")``).

Per tool: calls, errors, success and error rates, latency percentiles (p50/p90/p99, ms), argument
patterns (which parameters are used and with which kinds of value: ``string``, ``empty``,
``integer``, ``number``, ``boolean``, ``list``, ``object``, ``null``, ``hashed``), tokens and
cost the tool reported, and for a streaming (generator) tool its chunks, bytes and time to the
first chunk (p50/p90/p99, ms). Per model: calls, input and output tokens, cost as the run priced it
(from the trace at the end of each run; ``null`` when the model has no known price).
Runs: how many ended,
how many of them failed (raised: ``stop_reason`` "error") and how many were cancelled (their
consumer stopped reading). ``export_json()`` and ``export_csv()`` write them out.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.agent.observe.observers import Observer
from ragkit.messages import ToolCall
from ragkit.usage import ToolUsage, add_costs

if TYPE_CHECKING:
    from ragkit.agent.observe.trace import AgentTrace
    from ragkit.tools.tool import ToolResult


@dataclass
class _ToolStats(ToolUsage):
    """A tool's usage over many runs, with its latencies and argument patterns."""

    latencies: list[float] = field(default_factory=list)
    arguments: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    streamed: int = 0  # calls that yielded at least one chunk
    chunks: int = 0
    chunk_bytes: int = 0
    first_chunks: list[float] = field(default_factory=list)  # seconds to the first chunk, per streamed call


@dataclass
class _ModelStats:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0


def percentile(ordered: list[float], p: float) -> float:
    """The ``p``-th percentile of sorted values, interpolated linearly (numpy's default)."""
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def value_kind(value: Any) -> str:
    if isinstance(value, str):
        return "hashed" if value.startswith("sha256:") else ("empty" if not value.strip() else "string")
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return "list" if isinstance(value, (list, tuple)) else "object"


class Analytics(Observer):
    def __init__(self) -> None:
        self.tools: dict[str, _ToolStats] = defaultdict(_ToolStats)
        self.models: dict[str, _ModelStats] = defaultdict(_ModelStats)
        self.runs = 0
        self.failed_runs = 0
        self.cancelled_runs = 0
        self._lock = threading.Lock()

    # --- the one accounting ----------------------------------------------------------------------

    def record_tool(self, name: str, arguments: Mapping[str, Any] | list[str] | None, *, error: bool,
                    duration: float, usage: Any = None, chunks: int = 0, chunk_bytes: int = 0,
                    first_chunk: float | None = None) -> None:
        with self._lock:
            stats = self.tools[name]
            stats.calls += 1
            stats.errors += int(error)
            stats.latencies.append(float(duration))
            if chunks:
                stats.streamed += 1
                stats.chunks += int(chunks)
                stats.chunk_bytes += int(chunk_bytes)
                if first_chunk is not None:
                    stats.first_chunks.append(float(first_chunk))
            if isinstance(arguments, Mapping):
                for key, value in arguments.items():
                    stats.arguments[key][value_kind(value)] += 1
            elif isinstance(arguments, list):  # keys-only audit lines
                for key in arguments:
                    stats.arguments[key]["unknown"] += 1
            if usage is not None:
                priced = usage.priced()
                stats.input_tokens += usage.input_tokens
                stats.output_tokens += usage.output_tokens
                stats.embedding_tokens += usage.embedding_tokens
                stats.cost = add_costs(stats.cost, priced.cost)

    def record_model(self, model: str, input_tokens: int, output_tokens: int, cost: float | None = None,
                     *, priced: bool = False, provider: str | None = None) -> None:
        """One model call. ``cost`` as the run priced it when ``priced`` (None: unpriced), else
        priced here from the registry (``provider``: who served it, when known)."""
        from ragkit import pricing

        if not priced and cost is None:
            cost = pricing.price_llm(model, input_tokens, output_tokens, provider=provider)
        with self._lock:
            stats = self.models[model or "(unknown)"]
            stats.calls += 1
            stats.input_tokens += input_tokens
            stats.output_tokens += output_tokens
            stats.cost = add_costs(stats.cost, cost)

    # --- feeders -----------------------------------------------------------------------------------

    def on_tool_end(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self._tool_result(call, result, error=False)

    def on_tool_error(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self._tool_result(call, result, error=True)

    def _tool_result(self, call: ToolCall, result: ToolResult, *, error: bool) -> None:
        self.record_tool(call.name, call.arguments, error=error, duration=result.duration, usage=result.usage,
                         chunks=result.chunks, chunk_bytes=result.chunk_bytes, first_chunk=result.first_chunk)

    def on_agent_end(self, run_id: str, result: Any) -> None:
        """The run's model calls, from its trace: the costs are the run's own (priced with the provider
        that served each call), so the figures agree with ``result.usage``."""
        self._model_steps(result.trace)
        self.record_run(result.stop_reason)

    def record_run(self, stop_reason: str) -> None:
        """One run ended (every run does, a failed one too)."""
        with self._lock:
            self.runs += 1
            self.failed_runs += stop_reason == "error"
            self.cancelled_runs += stop_reason == "cancelled"

    def _model_steps(self, trace: AgentTrace) -> None:
        for step in trace.steps:
            if step.type == "llm_call":
                self.record_model(step.model, step.input_tokens, step.output_tokens, step.cost, priced=True)  # type: ignore[union-attr]

    def add_trace(self, trace: AgentTrace) -> Analytics:
        self._model_steps(trace)
        for step in trace.steps:
            if step.type == "tool_call":
                self.record_tool(step.name, step.arguments, error=step.is_error, duration=step.duration,  # type: ignore[union-attr]
                                 chunks=step.chunks, chunk_bytes=step.chunk_bytes, first_chunk=step.first_chunk)  # type: ignore[union-attr]
        with self._lock:
            self.runs += 1
        return self

    @classmethod
    def from_audit_log(cls, path: str | Path) -> Analytics:
        analytics = cls()
        with open(path, encoding="utf-8") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                line = json.loads(raw)
                if line.get("event") == "model_call":
                    analytics.record_model(line.get("model", ""), line.get("input_tokens", 0), line.get("output_tokens", 0),
                                           line.get("cost"), priced="cost" in line)
                elif line.get("event") == "tool_call":
                    analytics.record_tool(line["tool"], line.get("arguments"), error=bool(line.get("is_error")),
                                          duration=float(line.get("duration") or 0.0), chunks=line.get("chunks", 0),
                                          chunk_bytes=line.get("chunk_bytes", 0), first_chunk=line.get("first_chunk"))
                elif line.get("event") == "run_end":
                    analytics.record_run(line.get("stop_reason", "stop"))
        return analytics

    # --- reports -------------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        with self._lock:
            tools = {}
            for name, s in sorted(self.tools.items()):
                lat = sorted(x * 1000 for x in s.latencies) or [0.0]
                tools[name] = {
                    "calls": s.calls, "errors": s.errors,
                    "success_rate": round((s.calls - s.errors) / s.calls, 4) if s.calls else 0.0,
                    "error_rate": round(s.errors / s.calls, 4) if s.calls else 0.0,
                    "latency_ms": {f"p{p}": round(percentile(lat, p), 3) for p in (50, 90, 99)},
                    "arguments": {k: dict(v) for k, v in sorted(s.arguments.items())},
                    "input_tokens": s.input_tokens, "output_tokens": s.output_tokens,
                    "embedding_tokens": s.embedding_tokens, "cost": _round(s.cost),
                }
                if s.streamed:
                    first = sorted(x * 1000 for x in s.first_chunks) or [0.0]
                    tools[name]["streaming"] = {
                        "calls": s.streamed, "chunks": s.chunks, "bytes": s.chunk_bytes,
                        "chunks_per_call": round(s.chunks / s.streamed, 2),
                        "first_chunk_ms": {f"p{p}": round(percentile(first, p), 3) for p in (50, 90, 99)},
                    }
            models = {name: {"calls": m.calls, "input_tokens": m.input_tokens, "output_tokens": m.output_tokens,
                             "cost": _round(m.cost)} for name, m in sorted(self.models.items())}
            return {"runs": self.runs, "failed_runs": self.failed_runs, "cancelled_runs": self.cancelled_runs,
                    "tools": tools, "models": models}

    def export_json(self, path: str | Path | None = None) -> str:
        text = json.dumps(self.summary(), indent=2)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def export_csv(self, path: str | Path | None = None) -> str:
        """One row per tool and per model: kind, name, calls, errors, rates, latencies, tokens, cost."""
        data = self.summary()
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["kind", "name", "calls", "errors", "success_rate", "error_rate", "p50_ms", "p90_ms",
                         "p99_ms", "input_tokens", "output_tokens", "embedding_tokens", "cost", "arguments",
                         "chunks", "chunk_bytes", "first_chunk_p50_ms"])
        for name, t in data["tools"].items():
            lat, st = t["latency_ms"], t.get("streaming")
            writer.writerow(["tool", name, t["calls"], t["errors"], t["success_rate"], t["error_rate"], lat["p50"],
                             lat["p90"], lat["p99"], t["input_tokens"], t["output_tokens"], t["embedding_tokens"],
                             _csv_cost(t["cost"]), json.dumps(t["arguments"], sort_keys=True),
                             st["chunks"] if st else "", st["bytes"] if st else "",
                             st["first_chunk_ms"]["p50"] if st else ""])
        for name, m in data["models"].items():
            writer.writerow(["model", name, m["calls"], "", "", "", "", "", "", m["input_tokens"], m["output_tokens"],
                             "", _csv_cost(m["cost"]), "", "", "", ""])
        text = out.getvalue()
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text


def _round(cost: float | None) -> float | None:
    return None if cost is None else round(cost, 8)


def _csv_cost(cost: float | None) -> Any:
    return "unpriced" if cost is None else cost


__all__ = ["Analytics", "value_kind"]
