"""Observers: a raising observer changes nothing; audit log privacy and rotation; analytics; OTel."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from ragkit.agent import Agent, AgentConfig
from ragkit.agent.guard.audit import AuditLog, digest
from ragkit.agent.observe.analytics import Analytics
from ragkit.agent.observe.observers import HOOKS, Observer
from ragkit.agent.values import ToolPolicy
from ragkit.guardrails import GuardrailSet, PIIRedactor
from ragkit.messages import Usage
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool


@tool
def search(query: str, top_k: int = 3) -> str:
    """Search.

    Args:
        query: What.
        top_k: How many.
    """
    if query == "boom":
        raise RuntimeError("index offline")
    return f"passages for {query}"


class Raising(Observer):
    def __getattribute__(self, name: str) -> Any:
        if name in HOOKS:
            def hook(*args: Any) -> None:
                raise RuntimeError(f"observer broke in {name}")
            return hook
        return object.__getattribute__(self, name)


def script() -> ScriptedProvider:
    return ScriptedProvider([
        tool_call_response(("search", {"query": "ferry", "top_k": 2}), ("search", {"query": "boom"}),
                           usage=Usage(50, 10), content="Searching."),
        tool_call_response(("search", {"query": "mail ann@example.com"}), usage=Usage(80, 10)),
        "The ferry sails on Tuesdays.",
    ], model="gpt-4o-mini")


def config() -> AgentConfig:
    return AgentConfig(policy=ToolPolicy(allow=["search"]), guardrails=GuardrailSet(tool_arguments=[PIIRedactor()]))


def _summary(result: Any) -> Any:
    steps = [(s.type, getattr(s, "name", getattr(s, "tool", ""))) for s in result.trace.steps]
    return (result.content, result.stop_reason, [(r.name, r.output) for r in result.tool_calls], steps,
            result.usage.to_dict(), result.reasoning)


@pytest.mark.parametrize("mode", ["run", "stream"])
def test_an_observer_that_raises_in_every_hook_changes_nothing(mode: str) -> None:
    def go(observers: list[Observer]) -> Any:
        agent = Agent(script(), tools=[search], config=config(), observers=observers)
        return agent.run("q") if mode == "run" else list(agent.stream("q"))[-1].result

    assert _summary(go([Raising()])) == _summary(go([]))


def test_audit_privacy_levels_and_rotation(tmp_path: Path) -> None:
    for privacy in ("full", "keys-only", "hashed", "none"):
        path = tmp_path / f"{privacy}.jsonl"
        Agent(script(), tools=[search], config=config(), observers=[AuditLog(path, privacy=privacy)]).run("q")
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        events = [line["event"] for line in lines]
        assert events.count("policy") == 3 and events.count("tool_call") == 3 and events.count("model_call") == 3
        assert events.count("guardrail") == 1 and events[-1] == "run_end"
        args = [line.get("arguments") for line in lines if line["event"] == "tool_call"]
        expected = {
            "full": {"query": "ferry", "top_k": 2},
            "keys-only": ["query", "top_k"],
            "hashed": {"query": digest("ferry"), "top_k": digest(2)},
            "none": None,
        }[privacy]
        assert args[0] == expected
        assert "ann@example.com" not in path.read_text()
    rotating = AuditLog(tmp_path / "r.jsonl", privacy="none", max_bytes=600, backups=2)
    for _ in range(6):
        Agent(script(), tools=[search], observers=[rotating]).run("q")
    files = sorted(p.name for p in tmp_path.glob("r.jsonl*"))
    assert files == ["r.jsonl", "r.jsonl.1", "r.jsonl.2"]
    assert all(p.stat().st_size <= 600 for p in tmp_path.glob("r.jsonl*"))


def test_an_unwritable_audit_log_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = Agent(script(), tools=[search], observers=[AuditLog(blocker / "audit.jsonl")]).run("q")
    assert result.content == "The ferry sails on Tuesdays."


def test_analytics_from_observer_trace_and_audit_log(tmp_path: Path) -> None:
    live = Analytics()
    audit = tmp_path / "a.jsonl"
    result = Agent(script(), tools=[search], observers=[live, AuditLog(audit, privacy="full")]).run("q")
    data = live.summary()
    s = data["tools"]["search"]
    assert (s["calls"], s["errors"], s["success_rate"]) == (3, 1, round(2 / 3, 4))
    assert s["arguments"] == {"query": {"string": 3}, "top_k": {"integer": 1}}
    assert set(s["latency_ms"]) == {"p50", "p90", "p99"}
    assert data["models"]["gpt-4o-mini"]["input_tokens"] == 130 and data["runs"] == 1
    from_trace = Analytics().add_trace(result.trace).summary()
    from_audit = Analytics.from_audit_log(audit).summary()
    for other in (from_trace, from_audit):
        assert other["tools"]["search"]["calls"] == 3 and other["tools"]["search"]["errors"] == 1
        assert other["models"]["gpt-4o-mini"]["output_tokens"] == 20
    rows = list(csv.DictReader(io.StringIO(live.export_csv())))
    assert [(r["kind"], r["name"]) for r in rows] == [("tool", "search"), ("model", "gpt-4o-mini")]
    assert json.loads(live.export_json()) == data


def test_otel_export_of_the_trace_and_a_raising_exporter() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace.export import SpanExportResult
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from ragkit.agent.observe.otel import OTelExporter

    memory = InMemorySpanExporter()
    result = Agent(script(), tools=[search], config=config(), observers=[OTelExporter(memory)]).run("q")
    spans = memory.get_finished_spans()
    names = [s.name for s in spans]
    assert names[-1] == "agent.run" and names.count("tool_call") == 3 and names.count("policy") == 3
    root = spans[-1]
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in spans[:-1])
    tool_span = next(s for s in spans if s.name == "tool_call")
    assert tool_span.attributes["ragkit.argument_names"] == ("query", "top_k")
    assert "ragkit.arguments" not in tool_span.attributes

    class Broken:
        calls = 0

        def export(self, spans: Any) -> SpanExportResult:
            Broken.calls += 1
            raise ConnectionError("collector unreachable")

    exporter = OTelExporter(Broken())
    agent = Agent(script(), tools=[search], observers=[exporter])
    assert agent.run("q").content == result.content
    agent.provider = script()
    assert Agent(script(), tools=[search], observers=[exporter]).run("q").content == result.content
    assert Broken.calls == 2  # the second run was exported again


def test_the_overhead_benchmark_runs() -> None:
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "benchmarks/guarded_overhead.py", "--rounds", "1", "--runs", "3",
                          "--passages", "20"], capture_output=True, text=True, cwd=repo, timeout=300, check=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["passages"] == 20 and figures["run_ms_guarded"] > 0 and figures["pii_mb_per_s"] > 0
