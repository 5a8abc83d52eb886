"""Human approval of tool calls: a run pauses, its state travels, a person decides, the run resumes.

A call that needs review (``Run.needs_approval``, e.g. the *review* decision of a tool policy)
is not run: the machine records an ``Approval`` for it in ``RunState.approvals`` and ends the run
with ``stop_reason="paused"``, the model's tool-call message last in the history and no tool
result after it. ``state.approve(call_id)`` or ``state.reject(call_id, message)`` decides — in any
process, after ``RunState.from_json`` — and resuming runs the whole paused turn: approved calls run,
rejected ones answer the model with the rejection, the others run as usual. So every tool call of
the turn gets exactly one result (no orphan call).

Exactly once across crashes: an ``ExecutionLog`` (the session store's tool-call records, keyed by
session and call id) is claimed *before* a gated call runs and completed with its result right
after. A resumed run that finds a completed record replays the recorded result instead of running
the tool again; one that finds only the claim (the process died while the tool ran) answers
"interrupted" rather than risk running it twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from ragkit.errors import AgentError
from ragkit.providers.base import ToolCall
from ragkit.tools.tool import ToolResult

APPROVAL_STATUSES = ("pending", "approved", "rejected")


@dataclass
class Approval:
    """One tool call waiting for (or given) a human decision."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    agent: str | None = None
    status: str = "pending"
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ExecutionLog(Protocol):
    """Durable records of executed tool calls (``SessionStore`` backends implement it)."""

    def claim_tool_call(self, session_id: str, call_id: str, data: dict[str, Any]) -> dict[str, Any] | None: ...

    def finish_tool_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None: ...


def decide(approvals: Sequence[Approval], call_id: str, status: str, message: str = "") -> Approval:
    for approval in approvals:
        if approval.call_id == call_id:
            if approval.status != "pending":
                raise AgentError(f"tool call {call_id!r} was already {approval.status}; each call is decided once")
            approval.status, approval.message = status, message
            return approval
    known = ", ".join(a.call_id for a in approvals) or "(none)"
    raise AgentError(f"no approval is waiting for tool call {call_id!r}; pending calls: {known}")


# ``run`` below is an ``agent.state.Run`` (not imported: state imports this module)

def gate(run: Any, calls: Sequence[ToolCall]) -> bool:
    """Record an approval for each new call that needs review; True while one is undecided."""
    check: Callable[[ToolCall], bool] | None = run.needs_approval
    if check is None:
        return False
    approvals = run.state.approvals
    known = {a.call_id for a in approvals}
    for call in calls:
        if call.id not in known and call.name in run.tools and not call.parse_error and check(call):
            approvals.append(Approval(call.id, call.name, dict(call.arguments), run.agent_name))
    ids = {c.id for c in calls}
    return any(a.status == "pending" and a.call_id in ids for a in approvals)


def precheck(run: Any, call: ToolCall) -> ToolResult | None:
    """Rejected calls answer with the rejection; gated calls already executed replay their result."""
    approval = next((a for a in run.state.approvals if a.call_id == call.id), None)
    if approval is None:
        return None
    if approval.status == "rejected":
        reason = approval.message or "no reason given"
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
    """Complete the execution records of the gated calls that just ran (before anything else)."""
    log, session = run.execution_log, run.state.session_id
    if log is None or session is None:
        return
    approved = {a.call_id for a in run.state.approvals if a.status == "approved"}
    for done in runs:
        if done.call.id in approved:
            log.finish_tool_call(session, done.call.id, {
                "content": done.result.content, "is_error": done.result.is_error,
                "error_kind": done.result.error_kind})


__all__ = ["APPROVAL_STATUSES", "Approval", "ExecutionLog", "decide", "gate", "precheck", "record"]
