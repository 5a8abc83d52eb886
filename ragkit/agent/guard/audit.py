"""``AuditLog``: an observer that appends one JSON line per model call, tool call, policy decision,
guardrail finding, approval, coherence check, budget stop and finished run.

    AuditLog("audit.jsonl", privacy="hashed", max_bytes=10_000_000, backups=5)

``privacy`` says how arguments and texts are written: ``full`` (as they are), ``keys-only``
(argument names, text lengths), ``hashed`` (argument names with a SHA-256 prefix of each value;
texts as a hash and a length) or ``none`` (neither). Guardrail lines carry only the kinds of what
was found, never the values. When the file would pass ``max_bytes`` it is rotated
(``audit.jsonl.1`` … ``.N``, oldest dropped). Writing never raises into the run: a failure is
logged and the line is lost. Lines are written under a lock (tool hooks come from threads).

Every line has ``ts`` (UTC ISO time), ``run_id`` and ``event``: ``model_call``, ``tool_call``,
``policy``, ``guardrail``, ``approval``, ``coherence``, ``budget`` or ``run_end``. A ``model_call``
line has tokens, timing and the names of the tools asked for, not the text (which the output
guardrails have not screened yet); ``run_end`` has the final, screened answer. Every run writes a
``run_end``, a failed one too (``stop_reason`` "error" with ``error_type`` and ``error``, or
"cancelled" when its consumer stopped reading it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.agent.observe.observers import Observer
from ragkit.errors import ConfigError
from ragkit.messages import Response, ToolCall

if TYPE_CHECKING:
    from ragkit.agent.result import AgentResult
    from ragkit.agent.values import CoherenceResult, PolicyDecision
    from ragkit.guardrails.base import GuardrailResult
    from ragkit.tools.tool import ToolResult

log = logging.getLogger(__name__)
PRIVACY = ("full", "keys-only", "hashed", "none")


def digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class AuditLog(Observer):
    def __init__(self, path: str | Path, *, privacy: str = "hashed", max_bytes: int = 10_000_000,
                 backups: int = 5) -> None:
        if privacy not in PRIVACY:
            raise ConfigError(f"audit privacy must be one of {', '.join(PRIVACY)} (got {privacy!r})")
        if max_bytes < 1 or backups < 0:
            raise ConfigError(f"audit rotation needs max_bytes >= 1 and backups >= 0 (got {max_bytes}, {backups})")
        self.path = Path(path)
        self.privacy, self.max_bytes, self.backups = privacy, max_bytes, backups
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"AuditLog({str(self.path)!r}, privacy={self.privacy!r})"

    # --- what is written -----------------------------------------------------------------------

    def arguments(self, arguments: Mapping[str, Any]) -> Any:
        if self.privacy == "full":
            return dict(arguments)
        if self.privacy == "keys-only":
            return sorted(arguments)
        if self.privacy == "hashed":
            return {k: digest(v) for k, v in arguments.items()}
        return None

    def text(self, text: str) -> Any:
        if self.privacy == "full":
            return text
        if self.privacy == "hashed":
            return {"hash": digest(text), "chars": len(text)}
        if self.privacy == "keys-only":
            return {"chars": len(text)}
        return None

    def write(self, run_id: str, event: str, **fields: Any) -> None:
        """Append one line; never raises."""
        line = {"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "run_id": run_id,
                "event": event, **{k: v for k, v in fields.items() if v is not None}}
        try:
            data = (json.dumps(line, ensure_ascii=False, default=str) + "\n").encode("utf-8")
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._rotate(len(data))
                with open(self.path, "ab") as fh:
                    fh.write(data)
        except Exception:  # noqa: BLE001 - auditing must never break a run
            log.exception("audit log %s: could not write a %s line; continuing", self.path, event)

    def _rotate(self, incoming: int) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size + incoming <= self.max_bytes:
            return
        if self.backups == 0:
            self.path.unlink()
            return
        for i in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{i + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))

    def lines(self) -> Iterator[dict[str, Any]]:
        """The current file's lines, parsed (rotated files not included)."""
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as fh:
            for raw in fh:
                if raw.strip():
                    yield json.loads(raw)

    # --- hooks ---------------------------------------------------------------------------------

    def on_llm_end(self, run_id: str, iteration: int, response: Response, duration: float) -> None:
        self.write(run_id, "model_call", iteration=iteration, model=response.model,
                   input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens,
                   tool_calls=[c.name for c in response.tool_calls], duration=round(duration, 4))

    def _tool(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self.write(run_id, "tool_call", tool=call.name, call_id=call.id, arguments=self.arguments(call.arguments),
                   is_error=result.is_error, error_kind=result.error_kind, duration=round(result.duration, 4),
                   output=self.text(result.content), **_stream_fields(result))

    def on_tool_end(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self._tool(run_id, call, result)

    def on_tool_error(self, run_id: str, call: ToolCall, result: ToolResult) -> None:
        self._tool(run_id, call, result)

    def on_policy(self, run_id: str, call: ToolCall, decision: PolicyDecision) -> None:
        self.write(run_id, "policy", tool=call.name, call_id=call.id, decision=decision.decision,
                   rule=decision.rule, reason=decision.reason, arguments=self.arguments(call.arguments))

    def on_guardrail(self, run_id: str, stage: str, result: GuardrailResult, tool: str | None) -> None:
        self.write(run_id, "guardrail", stage=stage, guardrail=result.guardrail, action=result.action,
                   findings=list(result.findings), tool=tool)

    def on_approval(self, run_id: str, call: ToolCall, approved: bool, reason: str) -> None:
        self.write(run_id, "approval", tool=call.name, call_id=call.id, approved=approved, reason=reason,
                   arguments=self.arguments(call.arguments))

    def on_coherence(self, run_id: str, call: ToolCall, result: CoherenceResult) -> None:
        self.write(run_id, "coherence", tool=call.name, call_id=call.id, coherent=result.coherent,
                   explanation=result.explanation)

    def on_budget(self, run_id: str, limit: str, maximum: float, used: float) -> None:
        self.write(run_id, "budget", limit=limit, maximum=maximum, used=used)

    def on_agent_end(self, run_id: str, result: AgentResult) -> None:
        """Every run ends with this line: an answer, a stop (guardrail, budget...), or a failure
        (``stop_reason`` "error" with ``error_type`` and ``error``, or "cancelled")."""
        failure = result.extra() if result.stop_reason in ("error", "cancelled") else {}
        self.write(run_id, "run_end", stop_reason=result.stop_reason, iterations=result.iterations,
                   input_tokens=result.usage.input_tokens, output_tokens=result.usage.output_tokens,
                   cost=None if result.usage.total_cost is None else round(result.usage.total_cost, 8),
                   unpriced=list(result.usage.unpriced), content=self.text(result.content),
                   **{k: v for k, v in failure.items() if v})


def _stream_fields(result: ToolResult) -> dict[str, Any]:
    """A streaming tool's chunks, bytes and seconds to the first chunk (nothing for other tools)."""
    if not result.chunks:
        return {}
    first = None if result.first_chunk is None else round(result.first_chunk, 4)
    return {"chunks": result.chunks, "chunk_bytes": result.chunk_bytes, "first_chunk": first}


__all__ = ["PRIVACY", "AuditLog", "digest"]
