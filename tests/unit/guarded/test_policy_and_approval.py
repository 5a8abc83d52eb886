"""Tool policy: allow runs, deny never runs, review asks a handler (fail closed) or pauses the run."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from ragkit.agent import Agent, AgentConfig
from ragkit.agent.drivers import drive
from ragkit.agent.guard.audit import AuditLog, digest
from ragkit.agent.loop import run_steps
from ragkit.agent.observe.trace import StepKind
from ragkit.agent.state import Run, RunState
from ragkit.agent.values import ApprovalDecision, ApprovalRequest, ToolPolicy
from ragkit.errors import ConfigError
from ragkit.guardrails import GuardrailSet, PIIRedactor
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool

ran: list[str] = []
POLICY = ToolPolicy(allow=["search_*"], review=["send_*"], deny=["delete_*"])


@tool
def search_docs(query: str) -> str:
    """Search the documents.

    Args:
        query: What to look for.
    """
    ran.append("search_docs")
    return f"3 passages about {query}"


@tool
def send_email(to: str, body: str) -> str:
    """Send an email.

    Args:
        to: Recipient.
        body: Text.
    """
    ran.append("send_email")
    return f"sent to {to}"


@tool
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: Which file.
    """
    ran.append("delete_file")
    return f"deleted {path}"


TOOLS = [search_docs, send_email, delete_file]


def one_turn() -> ScriptedProvider:
    return ScriptedProvider([
        tool_call_response(("search_docs", {"query": "refunds"}),
                           ("send_email", {"to": "ann@example.com", "body": "Refund approved"}),
                           ("delete_file", {"path": "/tmp/log.txt"}), content="I will search, mail and clean up."),
        "Done.",
    ])


def test_policy_order_and_yaml(tmp_path: Path) -> None:
    policy = ToolPolicy(allow=["*"], review=["send_*"], deny=["drop_*"],
                        deny_when=[{"tool": "*", "arg": "path", "pattern": r"^/etc/"}])
    assert policy.decide("read_file", {"path": "/etc/passwd"}).decision == "deny"  # deny_when first
    assert policy.decide("read_file", {"path": "/tmp/x"}).rule == "allow:*"
    assert policy.decide("send_mail", {}).decision == "review"  # review before allow
    assert policy.decide("drop_table", {}).decision == "deny"
    assert ToolPolicy().decide("anything", {}).rule == "default" and ToolPolicy().decide("x", {}).decision == "review"
    f = tmp_path / "agent.yaml"
    f.write_text("policy:\n  allow: [search_*]\n  review: ['send_*']\n  deny: ['delete_*']\n"
                 "  deny_when:\n    - {tool: '*', arg: path, pattern: '^/etc/'}\n")
    loaded = ToolPolicy.from_yaml(f)
    assert [loaded.decide(n, {}).decision for n in ("search_docs", "send_email", "delete_file")] == ["allow", "review", "deny"]
    f.write_text("policy:\n  alow: [x]\n")
    with pytest.raises(ConfigError, match="unknown policy key.*alow"):
        ToolPolicy.from_yaml(f)


def test_allow_runs_review_asks_with_final_arguments_deny_never_runs(tmp_path: Path) -> None:
    ran.clear()
    seen: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        return True

    audit = tmp_path / "audit.jsonl"
    config = AgentConfig(policy=POLICY, approval_handler=approve,
                         guardrails=GuardrailSet(tool_arguments=[PIIRedactor()]))
    result = Agent(one_turn(), tools=TOOLS, config=config, observers=[AuditLog(audit)]).run("refund ann")
    assert sorted(ran) == ["search_docs", "send_email"]
    # the approver saw the arguments after the guardrail rewrite, and a preview of them
    assert seen[0].tool == "send_email" and seen[0].arguments == {"to": "[EMAIL]", "body": "Refund approved"}
    assert "send_email(to='[EMAIL]'" in seen[0].preview
    denied = next(r for r in result.tool_calls if r.name == "delete_file")
    assert denied.is_error and denied.error_kind == "denied" and "denied by policy" in denied.output
    assert [s.decision for s in result.trace.of_type(StepKind.POLICY)] == ["allow", "review", "deny"]
    assert [s.approved for s in result.trace.of_type(StepKind.APPROVAL)] == [True]
    assert result.reasoning == "I will search, mail and clean up."
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    policy_lines = [line for line in lines if line["event"] == "policy"]
    assert [p["tool"] for p in policy_lines] == ["search_docs", "send_email", "delete_file"]
    assert policy_lines[1]["arguments"] == {"to": digest("[EMAIL]"), "body": digest("Refund approved")}
    assert "Refund approved" not in audit.read_text()


def _handler_returning_none(request: ApprovalRequest) -> None:
    return None


def _handler_raising(request: ApprovalRequest) -> bool:
    raise RuntimeError("approval service down")


def _handler_hanging(request: ApprovalRequest) -> bool:
    threading.Event().wait(5)
    return True


async def _async_handler_denying(request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(False, "not today")


@pytest.mark.parametrize("handler, why", [
    (_handler_returning_none, "returned nothing"),
    (_handler_raising, "RuntimeError"),
    (_handler_hanging, "no answer within 0.2 s"),
    (_async_handler_denying, "not today"),
])
@pytest.mark.parametrize("mode", ["run", "arun"])
def test_a_handler_that_says_nothing_fails_or_times_out_denies(handler: Any, why: str, mode: str) -> None:
    ran.clear()
    agent = Agent(one_turn(), tools=TOOLS, config=AgentConfig(policy=POLICY, approval_handler=handler, approval_timeout=0.2))
    result = agent.run("refund") if mode == "run" else asyncio.run(agent.arun("refund"))
    assert ran == ["search_docs"]
    mail = next(r for r in result.tool_calls if r.name == "send_email")
    assert mail.is_error and why in mail.output  # the denial goes back to the model as the tool result
    assert result.stop_reason == "stop" and result.content == "Done."


def test_without_a_handler_the_run_pauses_cleanly_and_resumes_after_a_decision() -> None:
    ran.clear()
    provider = one_turn()
    agent = Agent(provider, tools=TOOLS, config=AgentConfig(policy=POLICY))
    events = list(agent.stream("refund"))
    paused = events[-1].result
    assert paused.stop_reason == "paused" and ran == [] and len(provider.calls) == 1
    assert [e.type for e in events] == ["text", "result"]  # no tool started
    assert [(p["tool"], p["decision"]) for p in paused.pending_approvals] == [("send_email", None)]
    state = RunState.from_dict(json.loads(json.dumps(paused.state.to_dict())))  # plain data
    assert state.pending_approvals[0]["arguments"] == {"to": "ann@example.com", "body": "Refund approved"}

    def resume(saved: RunState) -> Any:
        run = Run(provider=provider, config=agent.config, tools=agent.tools, observers=agent.observers,
                  context={}, state=saved)
        return list(drive(run_steps(run, streaming=False), provider))[-1].result

    again = resume(RunState.from_dict(state.to_dict()))  # still undecided: pauses again, nothing ran
    assert again.stop_reason == "paused" and ran == []
    state.pending_approvals[0]["decision"] = "approved"
    done = resume(state)
    assert done.stop_reason == "stop" and done.content == "Done."
    assert sorted(ran) == ["search_docs", "send_email"]
    assert done.pending_approvals == [] and done.trace.of_type(StepKind.APPROVAL)[-1].approved
    assert len(done.trace.of_type(StepKind.POLICY)) == 3  # recorded once, before the pause
    ran.clear()
    rejected = RunState.from_dict(paused.state.to_dict())
    rejected.pending_approvals[0].update(decision="rejected", message="wrong customer")
    provider.add("Ok, not sent.")
    result = resume(rejected)
    assert sorted(ran) == ["search_docs"]
    assert "wrong customer" in next(r for r in result.tool_calls if r.name == "send_email").output


def test_the_pipeline_yaml_declares_the_agent_policy(tmp_path: Path) -> None:
    from ragkit.config import parse_pipeline
    from ragkit.index.reader import KnowledgeBase
    from ragkit.rag.agent import RAGAgent

    spec = parse_pipeline({"index": str(tmp_path / "i"), "embedder": {"type": "hashing", "dimension": 16},
                           "store": {"type": "memory"},
                           "agent": {"guardrails": True, "policy": {"allow": ["search_*"], "deny": ["delete_*"]}}},
                          origin="p.yaml")
    agent = RAGAgent(KnowledgeBase(spec), provider=ScriptedProvider([]))
    assert agent.config.policy is not None and agent.config.policy.decide("delete_x", {}).decision == "deny"
    assert agent.config.guardrails is not None and agent.config.guardrails.has("input")
    bad = parse_pipeline({"index": str(tmp_path / "j"), "agent": {"policy": {"alow": []}}}, origin="p.yaml")
    with pytest.raises(ConfigError, match=r"p.yaml: agent.policy: unknown policy key"):
        RAGAgent(KnowledgeBase(bad), provider=ScriptedProvider([]))
