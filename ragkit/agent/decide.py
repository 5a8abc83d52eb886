"""The decision step of a tool turn: policy → coherence → approval, for each call of the turn.

``decide_step(run, calls)`` returns ``{index: ToolResult}`` for the calls that must not run (the
denial goes back to the model as that call's tool result); the other calls run in ``tools_step``.
For each call that can run at all (known tool, valid JSON, arguments that pass its schema — the
others are reported by ``tools_step``), with the **final** arguments (after the tool-argument
guardrails):

1. the ``ToolPolicy`` decides allow, review or deny (a POLICY step, ``on_policy``);
2. the ``CoherenceChecker`` (if any) checks allowed and reviewed calls (a COHERENCE step); an
   incoherent call is denied; a checker that fails denies a reviewed call (fail closed);
3. a reviewed call asks the approval handler (an APPROVAL step, ``on_approval``): True approves;
   None, False, an exception or ``approval_timeout`` deny. Without a handler the call becomes a
   pending approval in ``RunState.pending_approvals`` and, after the whole turn is decided, the
   run pauses (``stop_reason="paused"``) before any call of the turn runs. When the state
   resumes with the pending calls marked ``"approved"``/``"rejected"``, the same turn is decided
   again (its policy decisions are not recorded twice), the marked calls taking their decision
   instead of asking.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from ragkit.agent.actions import Call
from ragkit.agent.coherence import CoherenceResult
from ragkit.agent.guarded import StopRun
from ragkit.agent.policy import ApprovalDecision, ApprovalRequest, PolicyDecision, as_approval, preview
from ragkit.agent.state import Run
from ragkit.agent.trace import ApprovalStep, CoherenceStep, PolicyStep
from ragkit.providers.base import ToolCall
from ragkit.tools.tool import ToolArgumentError, ToolResult

Steps = Generator[Any, Any, Any]
_ALLOWED = PolicyDecision("allow", "no tool policy", "none")


def denial(call: ToolCall, reason: str) -> ToolResult:
    return ToolResult(call.name, f"error: the call to '{call.name}' was not run: {reason}. "
                                 "Do not call it again; answer without it or tell the user why.",
                      is_error=True, error_kind="denied")


def decide_step(run: Run, calls: Sequence[ToolCall]) -> Steps:
    config = run.config
    marked = {p["call_id"]: p for p in run.state.pending_approvals}
    if config.policy is None and config.coherence is None and not marked:
        return {}
    decided: dict[int, ToolResult] = {}
    waiting: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        if run.precheck(call) is not None:
            continue
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
        if decision.decision != "review":
            continue
        if call.id in marked:
            answer = _marked(marked[call.id])
        elif config.approval_handler is not None:
            answer = yield from _ask(run, call, decision)
        else:
            waiting.append({"call_id": call.id, "tool": call.name, "arguments": dict(call.arguments),
                            "preview": preview(call.name, call.arguments), "reason": decision.reason,
                            "decision": None, "message": ""})
            run.obs.emit("on_approval", run.run_id, call, False, "waiting for approval (the run pauses)")
            continue
        if answer is None:  # marked, but not decided yet
            waiting.append(marked[call.id])
            continue
        _record_approval(run, call, answer)
        if not answer.approved:
            decided[index] = denial(call, f"the reviewer denied it ({answer.reason})")
    run.state.pending_approvals = waiting
    if waiting:
        names = ", ".join(p["preview"] for p in waiting)
        raise StopRun(run.end(f"Paused: waiting for approval of {names}.", "paused", remember=False))
    return decided


def _policy(run: Run, call: ToolCall, *, record: bool) -> PolicyDecision:
    if run.config.policy is None:
        return _ALLOWED
    decision = run.config.policy.decide(call.name, call.arguments)
    if not record:
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
    run.trace.add(ApprovalStep(run.iteration, run.trace.elapsed(), call.name, call.id, answer.approved, answer.reason))
    run.obs.emit("on_approval", run.run_id, call, answer.approved, answer.reason)


__all__ = ["decide_step", "denial"]
