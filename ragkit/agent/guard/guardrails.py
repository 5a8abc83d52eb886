"""The guardrail steps of the step machine, and what every guarded step shares.

``StopRun`` ends a run from inside any step with a finished result (``run_steps`` catches it and
yields the result event). The ``Call`` action (:mod:`ragkit.agent.actions`) is what a step yields
to run one blocking or async callable — an approval handler, a coherence checker — which the
drivers perform (in a thread with a timeout, or awaited).

The steps, each one ``yield from`` line in ``run_steps``/``tools_step``:

* ``input_step``: the ``input`` guardrails over the run's new user messages, before anything else
  (a fresh run only). A block ends the run before any provider request, tool run or streamed
  token, and the blocked message is replaced by a placeholder (``blocked_input``), so the result
  keeps nothing of it; a rewrite replaces the message, so the provider, memory, trace, observers,
  the session and the result only ever see the redacted text.
* ``handoff_input_step``: after a handoff, the same screening with the guardrails of the agent the
  run was handed to, over the user messages it receives (guardrails run on every agent of a run).
* ``output_step``: the ``output`` guardrails over the model's text and the ``tool_arguments``
  guardrails over each tool call's string arguments, before the response joins the messages.
  When output guardrails exist a streaming run holds the model's text and emits it after the
  check (so a blocked answer streams nothing). It also extracts the turn's reasoning.
* ``results_step``: the ``tool_results`` guardrails over each tool's output (retrieved passages
  included) before the model reads it.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import Any, NoReturn

from ragkit.agent.observe.trace import GuardrailStep
from ragkit.agent.result import AgentEvent, GuardrailTripped
from ragkit.agent.state import Run, ToolRun
from ragkit.guardrails.base import GuardrailResult
from ragkit.messages import Response

Steps = Generator[Any, Any, Any]


class StopRun(Exception):  # noqa: N818 - a control signal, not an error
    """Raised by a step to end the run with ``result``."""

    def __init__(self, result: Any) -> None:
        super().__init__(result.stop_reason)
        self.result = result


def record(run: Run, stage: str, results: Sequence[GuardrailResult], tool: str | None = None) -> None:
    for r in results:
        run.trace.add(GuardrailStep(run.iteration, run.trace.elapsed(), stage, r.guardrail, r.action, r.reason,
                                    list(r.findings), tool))
        run.obs.emit("on_guardrail", run.run_id, stage, r, tool)


def trip(run: Run, stage: str, blocked: GuardrailResult, *, remember: bool = True) -> NoReturn:
    content = f"Blocked by the '{blocked.guardrail}' guardrail ({stage}): {blocked.reason}."
    raise StopRun(run.end(content, "guardrail", result_class=GuardrailTripped, remember=remember,
                          stage=stage, guardrail=blocked.guardrail, reason=blocked.reason))


def blocked_input(reason: str) -> str:
    """What stands in for a user message the input guardrails blocked, in the result, the session
    and every record (the message itself is kept nowhere)."""
    return f"[blocked by the input guardrails: {reason}]"


def holds(run: Run, stage: str) -> bool:
    """Whether ``stage`` has guardrails (then streamed text / tool chunks wait for the check)."""
    guards = run.config.guardrails
    return guards is not None and guards.has(stage)


def input_step(run: Run) -> Steps:
    if run.iteration == 0:  # a fresh run: its new messages (a resumed one was screened before)
        yield from _screen_input(run, run.state.new_from)


def handoff_input_step(run: Run) -> Steps:
    """After a handoff: the input guardrails of the agent the run was handed to, over the user
    messages it receives (a block ends the run before it is called; a rewrite replaces them)."""
    yield from _screen_input(run, 0)


def _screen_input(run: Run, start: int) -> Steps:
    guards = run.config.guardrails
    if guards is None or not guards.has("input"):
        return
    for i in range(start, len(run.messages)):
        message = run.messages[i]
        if message.role != "user":
            continue
        screened = guards.check("input", message.content)
        record(run, "input", screened.results)
        if screened.blocked is not None:  # not remembered, and kept nowhere raw: the result holds a placeholder
            run.messages[i] = replace(message, content=blocked_input(screened.blocked.reason))
            trip(run, "input", screened.blocked, remember=False)
        if screened.content != message.content:
            run.messages[i] = replace(message, content=screened.content)
    return
    yield  # a generator step


def output_step(run: Run, response: Response, streaming: bool) -> Steps:
    guards = run.config.guardrails
    content, calls = response.content, list(response.tool_calls)
    if guards is not None and guards.has("output") and content:
        screened = guards.check("output", content)
        record(run, "output", screened.results)
        if screened.blocked is not None:
            trip(run, "output", screened.blocked)
        content = screened.content
    if guards is not None and guards.has("tool_arguments"):
        for i, call in enumerate(calls):
            screened = guards.check_arguments(call.arguments, {"tool": call.name})
            record(run, "tool_arguments", screened.results, call.name)
            if screened.blocked is not None:
                trip(run, "tool_arguments", screened.blocked)
            if screened.content != call.arguments:
                calls[i] = replace(call, arguments=screened.content, raw_arguments=None)
    if streaming and holds(run, "output") and content and not (run.holds_output and not response.tool_calls):
        yield AgentEvent("text", run.iteration, text=content)
    response = replace(response, content=content, tool_calls=tuple(calls))
    why = response.reasoning or (response.content if response.tool_calls else "")
    if why.strip():
        run.state.reasoning.append(why.strip())
    return response


def results_step(run: Run, ordered: list[ToolRun]) -> Steps:
    guards = run.config.guardrails
    if guards is None or not guards.has("tool_results"):
        return ordered
    out: list[ToolRun] = []
    for done in ordered:
        if not done.result.is_error:
            screened = guards.check("tool_results", done.result.content, {"tool": done.call.name})
            record(run, "tool_results", screened.results, done.call.name)
            if screened.blocked is not None:
                trip(run, "tool_results", screened.blocked)
            if screened.content != done.result.content:
                done = ToolRun(done.call, replace(done.result, content=screened.content), done.start)
        out.append(done)
    return out
    yield  # a generator step


__all__ = ["StopRun", "blocked_input", "handoff_input_step", "holds", "input_step", "output_step", "record", "results_step", "trip"]
