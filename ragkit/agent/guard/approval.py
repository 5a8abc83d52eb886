"""Human approval of tool calls: a run pauses, its state travels, a person decides, the run resumes.

A call that needs review — the *review* decision of the tool policy (``AgentConfig.policy``) or
``Run.needs_approval`` (an ``AgentDefinition``'s ``needs_approval``), both decided in
``agent/guard/decide.py`` — and that no approval handler answers is not run: the decision step records it
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
from typing import Any

from ragkit.messages import ToolCall


def waiting(call: ToolCall, agent: str | None, reason: str = "needs approval") -> dict[str, Any]:
    """The ``pending_approvals`` entry of a call that waits for a decision."""
    shown = json.dumps(call.arguments, ensure_ascii=False, default=str)
    return {"call_id": call.id, "tool": call.name, "arguments": dict(call.arguments),
            "preview": f"{call.name}({shown[:200]})", "reason": reason, "agent": agent, "decision": None,
            "message": ""}


# ``run`` below is an ``agent.state.Run``

def turn_entries(run: Any, calls: Sequence[ToolCall]) -> dict[str, dict[str, Any]]:
    """The ``pending_approvals`` entries of this turn's calls, by call id (a resumed turn has some)."""
    ids = {c.id for c in calls}
    return {e["call_id"]: e for e in run.state.pending_approvals if e["call_id"] in ids}


def request(run: Any, call: ToolCall, reason: str) -> dict[str, Any]:
    """Add the waiting entry of a reviewed call that no handler answers (the run then pauses)."""
    entry = waiting(call, run.agent_name, reason)
    run.state.pending_approvals.append(entry)
    return entry


__all__ = ["request", "turn_entries", "waiting"]
