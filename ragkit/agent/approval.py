"""Human approval of tool calls: a run pauses, its state travels, a person decides, the run resumes.

A call that needs review — the *review* decision of the tool policy (``AgentConfig.policy``) or
``Run.needs_approval`` (an ``AgentDefinition``'s ``needs_approval``), both decided in
``agent/decide.py`` — and that no approval handler answers is not run: the decision step records it
in ``RunState.pending_approvals`` (plain dicts: ``call_id``, ``tool``, ``arguments``, ``preview``,
``reason``, ``agent``, ``decision`` — None while waiting, then "approved" or "rejected" — and
``message``) and ``Run.pause`` ends the run with ``stop_reason="paused"``, the model's tool-call
message last in the history and no tool result after it. ``state.approve(call_id)`` or
``state.reject(call_id, message)`` decides — in any process, after ``RunState.from_json`` — and
resuming runs the whole paused turn: approved calls run, rejected ones answer the model with the
rejection, the others run as usual, and the turn's entries leave ``pending_approvals``. So every
tool call of the turn gets exactly one result (no orphan call).

Exactly once across crashes: an ``ExecutionLog`` (the session store's tool-call records, keyed by
session and call id) is claimed *before* a gated call runs and completed with its result right
after. A resumed run that finds a completed record replays the recorded result instead of running
the tool again; one that finds only the claim (the process died while the tool ran) answers
"interrupted" rather than risk running it twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from ragkit.errors import AgentError
from ragkit.messages import ToolCall
from ragkit.tools.tool import ToolResult

DECISIONS = ("approved", "rejected")


def waiting(call: ToolCall, agent: str | None, reason: str = "needs approval") -> dict[str, Any]:
    """The ``pending_approvals`` entry of a call that waits for a decision."""
    shown = json.dumps(call.arguments, ensure_ascii=False, default=str)
    return {"call_id": call.id, "tool": call.name, "arguments": dict(call.arguments),
            "preview": f"{call.name}({shown[:200]})", "reason": reason, "agent": agent, "decision": None,
            "message": ""}


class ExecutionLog(Protocol):
    """Durable records of executed tool calls (``SessionStore`` backends implement it)."""

    def claim_tool_call(self, session_id: str, call_id: str, data: dict[str, Any]) -> dict[str, Any] | None: ...

    def finish_tool_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None: ...


def decide(pending: Sequence[dict[str, Any]], call_id: str, decision: str, message: str = "") -> dict[str, Any]:
    for entry in pending:
        if entry["call_id"] == call_id:
            if entry.get("decision") is not None:
                raise AgentError(f"tool call {call_id!r} was already {entry['decision']}; each call is decided once")
            entry["decision"], entry["message"] = decision, message
            return entry
    known = ", ".join(e["call_id"] for e in pending) or "(none)"
    raise AgentError(f"no approval is waiting for tool call {call_id!r}; pending calls: {known}")


# ``run`` below is an ``agent.state.Run`` (not imported: state imports this module)

def turn_entries(run: Any, calls: Sequence[ToolCall]) -> dict[str, dict[str, Any]]:
    """The ``pending_approvals`` entries of this turn's calls, by call id (a resumed turn has some)."""
    ids = {c.id for c in calls}
    return {e["call_id"]: e for e in run.state.pending_approvals if e["call_id"] in ids}


def request(run: Any, call: ToolCall, reason: str) -> dict[str, Any]:
    """Add the waiting entry of a reviewed call that no handler answers (the run then pauses)."""
    entry = waiting(call, run.agent_name, reason)
    run.state.pending_approvals.append(entry)
    return entry


def _entry(run: Any, call_id: str) -> dict[str, Any] | None:
    return next((e for e in run.state.pending_approvals if e["call_id"] == call_id), None)


def precheck(run: Any, call: ToolCall) -> ToolResult | None:
    """Rejected calls answer with the rejection; approved calls already executed replay their result."""
    entry = _entry(run, call.id)
    if entry is None:
        return None
    if entry.get("decision") == "rejected":
        reason = entry.get("message") or "no reason given"
        return ToolResult(call.name, f"rejected: a reviewer declined this call ({reason})", is_error=True,
                          error_kind="rejected")
    log, session = run.execution_log, run.state.session_id
    if log is None or session is None:
        return None
    record = log.claim_tool_call(session, call.id, {"tool": call.name, "arguments": dict(call.arguments)})
    if record is None:  # claimed now: the tool runs
        return None
    result = record.get("result")
    if result is None:
        return ToolResult(call.name, (
            f"error: tool '{call.name}' was interrupted in an earlier attempt of this run and may or may not "
            "have taken effect; it is not run again"), is_error=True, error_kind="interrupted")
    return ToolResult(call.name, result["content"], is_error=result.get("is_error", False),
                      error_kind=result.get("error_kind"))


def record(run: Any, runs: Sequence[Any]) -> None:
    """After a turn's calls ran: complete the execution records of the approved ones (before
    anything else is written) and drop the turn's entries from ``pending_approvals``."""
    pending = run.state.pending_approvals
    ids = {done.call.id for done in runs}
    if not pending or not ids & {e["call_id"] for e in pending}:
        return
    log, session = run.execution_log, run.state.session_id
    approved = {e["call_id"] for e in pending if e.get("decision") == "approved"}
    for done in runs:
        if done.call.id in approved and log is not None and session is not None:
            log.finish_tool_call(session, done.call.id, {
                "content": done.result.content, "is_error": done.result.is_error,
                "error_kind": done.result.error_kind})
    pending[:] = [e for e in pending if e["call_id"] not in ids]


__all__ = ["DECISIONS", "ExecutionLog", "decide", "precheck", "record", "request", "turn_entries", "waiting"]
