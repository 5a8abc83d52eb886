"""The decision step of a tool turn: policy → coherence → approval, for each call of the turn.

``decide_step(run, calls)`` returns ``{index: ToolResult}`` for the calls that must not run (the
denial goes back to the model as that call's tool result); the other calls run in ``tools_step``.
For each call that can run at all (known tool, valid JSON, arguments that pass its schema — the
others are reported by ``tools_step``), with the **final** arguments (after the tool-argument
guardrails):

1. the ``ToolPolicy`` decides allow, review or deny (a POLICY step, ``on_policy``); an allowed call
   that the agent's ``needs_approval`` rule (``Run.needs_approval``, from an ``AgentDefinition``)
   flags is reviewed too;
2. the ``CoherenceChecker`` (if any) checks allowed and reviewed calls (a COHERENCE step); an
   incoherent call is denied; a checker that fails denies a reviewed call (fail closed);
3. a reviewed call asks the approval handler (an APPROVAL step, ``on_approval``): True approves;
   None, False, an exception or ``approval_timeout`` deny. Without a handler the call becomes a
   pending approval in ``RunState.pending_approvals`` (``approval.request``) and, after the whole
   turn is decided, ``Run.pause`` ends the run (``stop_reason="paused"``) before any call of the
   turn runs — the one way a run pauses. When the state resumes (``state.approve``/``reject``, in
   any process) the same turn is decided again (its policy decisions are not recorded twice); the
   marked calls take their decision instead of asking: ``approval.precheck`` answers a rejected
   call with the rejection and runs an approved one exactly once (the execution record), and
   ``approval.record`` drops the turn's entries once its calls have results.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from ragkit.agent.actions import Call
from ragkit.agent.guard import approval as approvals
from ragkit.agent.guard.guardrails import StopRun
from ragkit.agent.observe.trace import ApprovalStep, CoherenceStep, PolicyStep
from ragkit.agent.state import Run
from ragkit.agent.values import (
    ApprovalDecision,
    ApprovalRequest,
    CoherenceResult,
    PolicyDecision,
    as_approval,
    preview,
)
from ragkit.messages import ToolCall
from ragkit.tools.tool import ToolArgumentError, ToolResult

Steps = Generator[Any, Any, Any]
_ALLOWED = PolicyDecision("allow", "no tool policy", "none")


def denial(call: ToolCall, reason: str) -> ToolResult:
    return ToolResult(call.name, f"error: the call to '{call.name}' was not run: {reason}. "
                                 "Do not call it again; answer without it or tell the user why.",
                      is_error=True, error_kind="denied")


def decide_step(run: Run, calls: Sequence[ToolCall]) -> Steps:
    config = run.config
    marked = approvals.turn_entries(run, calls)  # a resumed turn: its calls' entries, decided or not
    if config.policy is None and config.coherence is None and run.needs_approval is None and not marked:
        return {}
    decided: dict[int, ToolResult] = {}
    for index, call in enumerate(calls):
        if run.invalid(call) is not None:
            continue  # tools_step reports it to the model
        try:
            run.tools.get(call.name).validate(call.arguments)
        except ToolArgumentError:
            continue  # the tool reports it to the model when it is invoked
        decision = _policy(run, call, record=not marked)  # a resumed turn was recorded before the pause
        if decision.decision == "deny":
            decided[index] = denial(call, f"denied by policy ({decision.reason})")
            continue
        if config.coherence is not None and call.id not in marked:
            verdict, failed = yield from _coherence(run, call)
            if failed and decision.decision == "review":
                decided[index] = denial(call, f"the coherence check failed, so the call fails closed ({verdict.explanation})")
                continue
            if not failed and not verdict.coherent:
                decided[index] = denial(call, f"it does not match the user's request ({verdict.explanation})")
                continue
        if call.id in marked:  # decided by state.approve/reject: approval.precheck runs or answers it
            if (answer := _marked(marked[call.id])) is not None:
                _record_approval(run, call, answer)
            continue
        if decision.decision != "review":
            continue
        if config.approval_handler is None:
            approvals.request(run, call, decision.reason)
            run.obs.emit("on_approval", run.run_id, call, False, "waiting for approval (the run pauses)")
            continue
        answer = yield from _ask(run, call, decision)
        _record_approval(run, call, answer)
        if not answer.approved:
            decided[index] = denial(call, f"the reviewer denied it ({answer.reason})")
    if (paused := run.pause(calls)) is not None:  # after the whole turn is decided, before any call runs
        raise StopRun(paused)
    return decided


def _policy(run: Run, call: ToolCall, *, record: bool) -> PolicyDecision:
    """The tool policy's decision; ``Run.needs_approval`` (an agent definition's rule) turns an
    allowed call into a reviewed one."""
    decision = _ALLOWED if run.config.policy is None else run.config.policy.decide(call.name, call.arguments)
    if decision.decision == "allow" and run.needs_approval is not None and run.needs_approval(call):
        decision = PolicyDecision("review", "the agent's needs_approval rule", "needs_approval")
    if not record or (run.config.policy is None and decision.decision == "allow"):
        return decision
    run.trace.add(PolicyStep(run.iteration, run.trace.elapsed(), call.name, call.id, decision.decision,
                             decision.reason, decision.rule))
    run.obs.emit("on_policy", run.run_id, call, decision)
    return decision


def _coherence(run: Run, call: ToolCall) -> Steps:
    checker = run.config.coherence
    user = next((m.content for m in reversed(run.messages) if m.role == "user"), "")
    args, specs = dict(call.arguments), list(run.specs)
    acheck = getattr(checker, "acheck", None)
    start, failed = run.trace.elapsed(), False
    try:
        verdict = yield Call(lambda: checker.check(user, call.name, args, specs),  # type: ignore[union-attr]
                             (lambda: acheck(user, call.name, args, specs)) if acheck else None)
        if not isinstance(verdict, CoherenceResult):
            raise TypeError(f"the checker returned {type(verdict).__name__}, not a CoherenceResult")
    except Exception as exc:  # noqa: BLE001 - a failed checker is a decision input, not a crash
        verdict, failed = CoherenceResult(False, f"{type(exc).__name__}: {exc}"), True
    if verdict.usage.input_tokens or verdict.usage.output_tokens:
        run.usage.add_llm(model=verdict.model or run.provider.model, input_tokens=verdict.usage.input_tokens,
                          output_tokens=verdict.usage.output_tokens)
    run.trace.add(CoherenceStep(run.iteration, start, call.name, call.id, verdict.coherent, verdict.explanation,
                                getattr(checker, "name", type(checker).__name__), failed, run.trace.elapsed() - start))
    run.obs.emit("on_coherence", run.run_id, call, verdict)
    return verdict, failed


def _ask(run: Run, call: ToolCall, decision: PolicyDecision) -> Steps:
    handler, timeout = run.config.approval_handler, run.config.approval_timeout
    request = ApprovalRequest(call.name, dict(call.arguments), preview(call.name, call.arguments), call.id,
                              decision.reason, run.run_id)
    try:
        return as_approval((yield Call(lambda: handler(request), timeout=timeout)))  # type: ignore[misc]
    except TimeoutError:
        return ApprovalDecision(False, f"no answer within {timeout:g} s (denied: fail closed)")
    except Exception as exc:  # noqa: BLE001 - a failing handler denies
        return ApprovalDecision(False, f"the approval handler raised {type(exc).__name__}: {exc} (denied: fail closed)")


def _marked(pending: dict[str, Any]) -> ApprovalDecision | None:
    decision = pending.get("decision")
    if decision is None:
        return None
    reason = pending.get("message") or decision
    return ApprovalDecision(decision in ("approved", "approve", True), str(reason))


def _record_approval(run: Run, call: ToolCall, answer: ApprovalDecision) -> None:
    if answer.approved:  # the approval covers one run of the call: tools_step turns its retries off
        run.marks.setdefault("approved", set()).add(call.id)
    run.trace.add(ApprovalStep(run.iteration, run.trace.elapsed(), call.name, call.id, answer.approved, answer.reason))
    run.obs.emit("on_approval", run.run_id, call, answer.approved, answer.reason)


__all__ = ["decide_step", "denial"]
