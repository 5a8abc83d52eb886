"""``Analytics``: aggregates agent runs into per-tool and per-model figures.

Three ways in, one accounting: as an observer (``Agent(..., observers=[analytics])``), from a
finished run's trace (``analytics.add_trace(result.trace)``; ``ragkit ask --trace`` does this) or
from an audit log (``Analytics.from_audit_log("audit.jsonl")``).

Per tool: calls, errors, success and error rates, latency percentiles (p50/p90/p99, ms), argument
patterns (which parameters are used and with which kinds of value: ``string``, ``empty``,
``integer``, ``number``, ``boolean``, ``list``, ``object``, ``null``, ``hashed``), tokens and
cost the tool reported. Per model: calls, input and output tokens, cost. ``export_json()`` and
``export_csv()`` write them out.
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

from ragkit.agent.observers import Observer
from ragkit.messages import Response, ToolCall
from ragkit.usage import ToolUsage

if TYPE_CHECKING:
    from ragkit.agent.trace import AgentTrace
    from ragkit.tools.tool import ToolResult


@dataclass
class _ToolStats(ToolUsage):
    """A tool's usage over many runs, with its latencies and argument patterns."""

    latencies: list[float] = field(default_factory=list)
    arguments: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))


@dataclass
class _ModelStats:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0


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
        self._lock = threading.Lock()

    # --- the one accounting ----------------------------------------------------------------------

    def record_tool(self, name: str, arguments: Mapping[str, Any] | list[str] | None, *, error: bool,
                    duration: float, usage: Any = None) -> None:
        with self._lock:
            stats = self.tools[name]
            stats.calls += 1
            stats.errors += int(error)
            stats.latencies.append(float(duration))
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
                stats.cost += priced.cost or 0.0

    def record_model(self, model: str, input_tokens: int, output_tokens: int, cost: float | None = None) -> None:
        from ragkit import pricing

        with self._lock:
            stats = self.models[model or "(unknown)"]
            stats.calls += 1
            stats.input_tokens += input_tokens
            stats.output_tokens += output_tokens
            stats.cost += pricing.price_llm(model, input_tokens, output_tokens) if cost is None else cost

    # --- feeders -----------------------------------------------------------------------------------

    def on_llm_end(self, run_id: str, iteration: int, response: Response, duration: float) -> None:
        self.record_model(response.model, response.usage.input_tokens, response.usage.output_tokens)

    def on_tool_end(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self.record_tool(call.name, call.arguments, error=False, duration=result.duration, usage=result.usage)

    def on_tool_error(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self.record_tool(call.name, call.arguments, error=True, duration=result.duration, usage=result.usage)

    def on_agent_end(self, run_id: str, result: Any) -> None:
        with self._lock:
            self.runs += 1

    def add_trace(self, trace: AgentTrace) -> Analytics:
        for step in trace.steps:
            if step.type == "llm_call":
                self.record_model(step.model, step.input_tokens, step.output_tokens, step.cost)  # type: ignore[union-attr]
            elif step.type == "tool_call":
                self.record_tool(step.name, step.arguments, error=step.is_error, duration=step.duration)  # type: ignore[union-attr]
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
                    analytics.record_model(line.get("model", ""), line.get("input_tokens", 0), line.get("output_tokens", 0))
                elif line.get("event") == "tool_call":
                    analytics.record_tool(line["tool"], line.get("arguments"), error=bool(line.get("is_error")),
                                          duration=float(line.get("duration") or 0.0))
                elif line.get("event") == "run_end":
                    analytics.runs += 1
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
                    "embedding_tokens": s.embedding_tokens, "cost": round(s.cost, 8),
                }
            models = {name: {"calls": m.calls, "input_tokens": m.input_tokens, "output_tokens": m.output_tokens,
                             "cost": round(m.cost, 8)} for name, m in sorted(self.models.items())}
            return {"runs": self.runs, "tools": tools, "models": models}

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
                         "p99_ms", "input_tokens", "output_tokens", "embedding_tokens", "cost", "arguments"])
        for name, t in data["tools"].items():
            lat = t["latency_ms"]
            writer.writerow(["tool", name, t["calls"], t["errors"], t["success_rate"], t["error_rate"], lat["p50"],
                             lat["p90"], lat["p99"], t["input_tokens"], t["output_tokens"], t["embedding_tokens"],
                             t["cost"], json.dumps(t["arguments"], sort_keys=True)])
        for name, m in data["models"].items():
            writer.writerow(["model", name, m["calls"], "", "", "", "", "", "", m["input_tokens"], m["output_tokens"],
                             "", m["cost"], ""])
        text = out.getvalue()
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text


__all__ = ["Analytics", "value_kind"]
