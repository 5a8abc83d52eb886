"""Pause for approval, resume in another process; the approved tool runs exactly once, crashes too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ragkit.agent.multi.definition import AgentDefinition
from ragkit.agent.multi.runner import AgentRunner
from ragkit.agent.state import RunState
from ragkit.errors import AgentError
from ragkit.sessions.memory import MemorySessionStore
from ragkit.sessions.sql import SQLSessionStore
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool

APP = Path(__file__).with_name("approval_app.py")
ROOT = Path(__file__).resolve().parents[3]


def app(*args: str, crash: str = "") -> tuple[int, dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "APPROVAL_APP_CRASH": crash}
    proc = subprocess.run([sys.executable, str(APP), *args], capture_output=True, text=True, env=env, timeout=120)
    if proc.returncode == 0:
        return 0, json.loads(proc.stdout.strip().splitlines()[-1])
    return proc.returncode, {"stderr": proc.stderr}


@pytest.fixture()
def paused(tmp_path: Path) -> tuple[Path, Path]:
    state, db = tmp_path / "run.json", tmp_path / "state.db"
    code, out = app("start", str(state), str(db), "Please refund my 5 EUR")
    assert code == 0, out
    assert out["stop_reason"] == "paused" and out["agent"] == "refunds" and len(out["pending"]) == 1
    return state, db


def ledger(state: Path) -> list[str]:
    path = state.with_suffix(".ledger")
    return path.read_text().split() if path.exists() else []


def assert_no_orphan_call(db: Path) -> list[Any]:
    items = SQLSessionStore(db).get_items("s1")
    answered = {i.data.get("tool_call_id") for i in items if i.role == "tool"}
    for item in items:
        for call in item.data.get("tool_calls", ()):
            assert call["id"] in answered, f"tool call {call['id']} has no result in the session"
    return items


def test_paused_state_is_plain_json_and_waits_for_a_decision(paused: tuple[Path, Path]) -> None:
    state_path, db = paused
    data = json.loads(state_path.read_text())  # plain JSON, nothing custom
    entry = data["pending_approvals"][0]
    assert data["current_agent"] == "refunds" and entry["decision"] is None and entry["agent"] == "refunds"
    assert entry["tool"] == "refund" and entry["arguments"] == {"amount": 5} and entry["preview"] == 'refund({"amount": 5})'
    assert data["context"]["dataclass"] == "Claim" and data["schema_version"] == 2
    assert ledger(state_path) == []  # nothing ran yet
    assert_no_orphan_call(db)  # the paused turn is not in the session yet
    state = RunState.from_dict(data)
    with pytest.raises(AgentError, match="no approval is waiting for tool call 'nope'"):
        state.approve("nope")


def test_resume_in_another_process_runs_the_approved_tool_once(paused: tuple[Path, Path]) -> None:
    state_path, db = paused
    copy = state_path.with_name("paused-copy.json")
    copy.write_text(state_path.read_text())
    code, out = app("resume", str(state_path), str(db), "approve")
    assert code == 0, out
    assert out["stop_reason"] == "stop" and out["agent"] == "refunds"
    assert out["content"] == "Done: refunded 5 to ada."
    assert ledger(state_path) == ["5"]
    final = json.loads(state_path.read_text())
    usage = final["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (60, 12)  # 10+20+30, 2+4+6 over both processes
    assert final["context"] == {"dataclass": "Claim", "data": {
        "customer": "ada", "ledger": str(state_path.with_suffix(".ledger")), "refunds": [5]}}
    assert final["tool_state"] == {"refunded": 5} and final["current_agent"] == "refunds"
    agents = [(m["role"], m.get("agent")) for m in final["messages"] if m["role"] == "assistant"]
    assert agents == [("assistant", "desk"), ("assistant", "refunds"), ("assistant", "refunds")]
    items = assert_no_orphan_call(db)
    assert [(i.role, i.agent) for i in items] == [("user", None), ("assistant", "desk"), ("tool", None),
                                                  ("assistant", "refunds"), ("tool", None), ("assistant", "refunds")]
    # resuming the same paused state again (a retry) replays the recorded result and writes nothing twice
    code, again = app("resume", str(copy), str(db), "approve")
    assert code == 0 and again["content"] == out["content"] and ledger(state_path) == ["5"]
    assert len(SQLSessionStore(db).get_items("s1")) == len(items)
    code, ended = app("resume", str(state_path), str(db), "approve")  # the finished run cannot be resumed
    assert code != 0 and "not paused for approval" in ended["stderr"]


def test_rejected_call_answers_the_model_and_never_runs(paused: tuple[Path, Path]) -> None:
    state_path, db = paused
    code, out = app("resume", str(state_path), str(db), "reject")
    assert code == 0, out
    assert ledger(state_path) == []
    final = json.loads(state_path.read_text())
    tool_msgs = [m["content"] for m in final["messages"] if m["role"] == "tool" and m["name"] == "refund"]
    assert tool_msgs == ["rejected: a reviewer declined this call (amount too high)"]
    assert_no_orphan_call(db)


@pytest.mark.parametrize(("crash", "code", "tool_result"), [
    ("after_tool", 3, "refunded 5 to ada"),  # result recorded, then the process died
    ("in_tool", 4, "interrupted"),  # died inside the tool: its outcome is unknown, so never re-run
])
def test_a_crash_between_tool_and_session_write_does_not_run_it_again(
        paused: tuple[Path, Path], crash: str, code: int, tool_result: str) -> None:
    state_path, db = paused
    died, _ = app("resume", str(state_path), str(db), "approve", crash=crash)
    assert died == code
    assert ledger(state_path) == ["5"]
    assert_no_orphan_call(db)  # nothing of the interrupted turn reached the session
    ok, out = app("resume", str(state_path), str(db), "approve")  # the saved (paused) state, resumed again
    assert ok == 0, out
    assert ledger(state_path) == ["5"]  # exactly once
    final = json.loads(state_path.read_text())
    refund_results = [m["content"] for m in final["messages"] if m["role"] == "tool" and m["name"] == "refund"]
    assert len(refund_results) == 1 and tool_result in refund_results[0]
    assert_no_orphan_call(db)


def test_resume_refuses_undecided_approvals_and_works_in_process() -> None:
    @tool
    def delete_all() -> str:
        """Delete everything."""
        return "deleted"

    agent = AgentDefinition(name="ops", tools=[delete_all], needs_approval=lambda call: call.name == "delete_all",
                            provider=ScriptedProvider([tool_call_response(("delete_all", {})), "All gone."]))
    runner = AgentRunner([agent], entry="ops", session_store=MemorySessionStore())
    paused = runner.run("clean up", session_id="x")
    assert paused.stop_reason == "paused" and [e["tool"] for e in paused.interruptions] == ["delete_all"]
    with pytest.raises(AgentError, match="still waiting for approval"):
        runner.resume(paused.state)
    paused.state.approve(paused.interruptions[0]["call_id"])
    with pytest.raises(AgentError, match="already approved"):
        paused.state.reject(paused.state.pending_approvals[0]["call_id"])
    done = runner.resume(paused.state)
    assert done.content == "All gone." and [r.output for r in done.tool_calls] == ["deleted"]
    assert done.state.pending_approvals == []  # the answered turn leaves no entry


def test_a_tool_policy_review_decision_pauses() -> None:
    class Decision:
        def __init__(self, decision: str) -> None:
            self.decision = decision

    class Policy:  # the shape of agent.values.ToolPolicy: decide(tool, arguments).decision
        def decide(self, tool: str, arguments: dict) -> Decision:
            return Decision("review" if arguments.get("amount", 0) > 100 else "allow")

    @tool
    def pay(amount: int) -> str:
        """Pay an amount."""
        return f"paid {amount}"

    agent = AgentDefinition(name="pay", tools=[pay], needs_approval=Policy(), provider=ScriptedProvider([
        tool_call_response(("pay", {"amount": 5}), ("pay", {"amount": 500})), "done"]))
    paused = AgentRunner([agent], entry="pay").run("pay both")
    assert paused.stop_reason == "paused"
    assert [e["arguments"] for e in paused.interruptions] == [{"amount": 500}]
    assert paused.tool_calls == []  # nothing of the turn ran, not even the allowed call
    paused.state.reject(paused.interruptions[0]["call_id"], "too much")
    done = AgentRunner([agent], entry="pay").resume(paused.state)
    assert [r.output for r in done.tool_calls] == ["paid 5", "rejected: a reviewer declined this call (too much)"]
