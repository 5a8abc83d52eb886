"""A two-agent app for the pause/resume tests, run as a separate process:

    python approval_app.py start  STATE DB "question"   -> runs until the refund waits for approval
    python approval_app.py resume STATE DB approve|reject [crash]

Each process builds its own registry (nothing is shared with the test process but the files).
``crash``: ``in_tool`` dies inside the tool after its effect, ``after_tool`` right after the tool
returned (its result recorded) and before the session or the state is written.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.handoff import handoff
from ragkit.agent.multi.runner import AgentRunner, ToolContext
from ragkit.agent.state import RunState
from ragkit.messages import Message, Response, ToolSpec, Usage
from ragkit.sessions.sql import SQLSessionStore
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool

CRASH = os.environ.get("APPROVAL_APP_CRASH", "")


@dataclass
class Claim:
    customer: str
    ledger: str
    refunds: list[int] = field(default_factory=list)


@tool(inject=["ctx"])
def refund(amount: int, ctx: ToolContext) -> str:
    """Refund the customer."""
    with open(ctx.context.ledger, "a") as f:
        f.write(f"{amount}\n")
    if CRASH == "in_tool":
        os._exit(4)
    ctx.context.refunds.append(amount)
    ctx.state["refunded"] = ctx.state.get("refunded", 0) + amount
    return f"refunded {amount} to {ctx.context.customer}"


def refunds_turn(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Response:
    last = messages[-1]
    if last.role == "tool" and last.name == "refund":
        return Response(content=f"Done: {last.content}.", usage=Usage(30, 6))
    return tool_call_response(("refund", {"amount": 5}), usage=Usage(20, 4))


class CrashAfterTool:
    def on_tool_end(self, run_id: str, call: object, result: object) -> None:
        if CRASH == "after_tool":
            os._exit(3)


def build(db: str) -> AgentRunner:
    refunds = AgentDefinition(name="refunds", instructions="You issue refunds.", tools=[refund],
                              provider=ScriptedProvider([refunds_turn] * 4), needs_approval={"refund"})
    desk = AgentDefinition(name="desk", instructions="Route.", handoffs=[handoff(refunds)],
                           provider=ScriptedProvider([tool_call_response(("transfer_to_refunds", {}),
                                                                         usage=Usage(10, 2))]))
    return AgentRunner([desk, refunds], entry="desk", session_store=SQLSessionStore(db), context_type=Claim,
                       observers=[CrashAfterTool()])


def main(argv: list[str]) -> None:
    command, state_path, db = argv[:3]
    runner = build(db)
    if command == "start":
        ledger = str(Path(state_path).with_suffix(".ledger"))
        result = runner.run(argv[3], context=Claim("ada", ledger), session_id="s1")
    else:
        state = RunState.from_json(Path(state_path).read_text(), agents=runner)
        for pending in state.pending:
            if argv[3] == "approve":
                state.approve(pending["call_id"])
            else:
                state.reject(pending["call_id"], "amount too high")
        result = runner.resume(state)
    Path(state_path).write_text(result.state.to_json())
    print(json.dumps({"stop_reason": result.stop_reason, "agent": result.agent, "content": result.content,
                      "pending": [e["call_id"] for e in result.state.pending]}))


if __name__ == "__main__":
    main(sys.argv[1:])
