"""Optional OpenTelemetry export of agent traces as spans (``pip install 'ragkit[otel]'``).

    from opentelemetry.sdk.trace.export import ConsoleSpanExporter
    Agent(..., observers=[OTelExporter(ConsoleSpanExporter())])

Nothing leaves the machine unless you pass an exporter: ragkit configures no endpoint and reads no
``OTEL_*`` variable itself. At the end of each run the trace becomes one ``agent.run`` span with a
child span per step (``llm_call``, ``tool_call``, ``guardrail``, ``policy``, ``approval``,
``coherence``, ``budget``, ...) carrying the step's fields as ``ragkit.*`` attributes (argument
values are not exported: only their names). A run that raised is exported too, its root span
with status ERROR and ``ragkit.error_type``. An exporter that raises is logged and ignored: it
never stops the run, and the next run is exported again.
"""

from __future__ import annotations

import logging
from typing import Any

from ragkit.agent.observe.observers import Observer
from ragkit.agent.observe.trace import step_to_dict
from ragkit.errors import MissingDependencyError

log = logging.getLogger(__name__)
_SKIP = {"type", "start", "duration", "arguments", "output", "message"}


class OTelExporter(Observer):
    def __init__(self, exporter: Any, *, service_name: str = "ragkit") -> None:
        try:
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
        except ImportError as exc:
            raise MissingDependencyError(
                "OpenTelemetry export needs the SDK; install it with pip install 'ragkit[otel]'") from exc
        self.exporter = exporter
        self.provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
        self.tracer = self.provider.get_tracer("ragkit.agent")

    def on_agent_end(self, run_id: str, result: Any) -> None:
        try:
            spans = self._spans(run_id, result)
            self.exporter.export(spans)
        except Exception:  # noqa: BLE001 - telemetry never breaks a run
            log.exception("OpenTelemetry export of run %s failed; continuing", run_id)

    def _spans(self, run_id: str, result: Any) -> list[Any]:
        import time

        trace = result.trace
        end_ns = time.time_ns()
        t0 = end_ns - int(trace.duration * 1e9)
        root = self.tracer.start_span("agent.run", start_time=t0, attributes={
            "ragkit.run_id": run_id, "ragkit.stop_reason": result.stop_reason, "ragkit.iterations": result.iterations,
            "ragkit.input_tokens": result.usage.input_tokens, "ragkit.output_tokens": result.usage.output_tokens,
            **_cost_attributes(result.usage)})
        from opentelemetry import trace as otel_trace

        if result.stop_reason == "error":  # a run that raised: the span says so (RunFailed)
            root.set_attribute("ragkit.error_type", getattr(result, "error_type", ""))
            root.set_status(otel_trace.Status(otel_trace.StatusCode.ERROR, getattr(result, "error", "")))

        context = otel_trace.set_span_in_context(root)
        children = []
        for step in trace.steps:
            data = step_to_dict(step)
            attrs = {f"ragkit.{k}": _attr(v) for k, v in data.items() if k not in _SKIP and v is not None}
            if isinstance(data.get("arguments"), dict):
                attrs["ragkit.argument_names"] = sorted(data["arguments"])
            start = t0 + int(float(data.get("start") or 0) * 1e9)
            span = self.tracer.start_span(data["type"], context=context, start_time=start, attributes=attrs)
            span.end(end_time=start + int(float(data.get("duration") or 0) * 1e9))
            children.append(span)
        root.end(end_time=end_ns)
        return [*children, root]


def _attr(value: Any) -> Any:
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return str(value)


def _cost_attributes(usage: Any) -> dict[str, Any]:
    """``ragkit.cost_usd``, or ``ragkit.cost_unpriced`` naming the models without a price (never 0)."""
    if usage.total_cost is None:
        return {"ragkit.cost_unpriced": ", ".join(usage.unpriced) or "unknown"}
    return {"ragkit.cost_usd": float(usage.total_cost)}


__all__ = ["OTelExporter"]
