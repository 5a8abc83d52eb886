"""The budget steps: ``UsageLimits`` (:mod:`ragkit.agent.limits`) checked **before** the call that would exceed them.

    AgentConfig(limits=UsageLimits(requests=5, tool_calls=10, per_tool_calls={"search": 3},
                                   total_tokens=20_000, cost_usd=0.05, final_turn=True))

Before each model call (``model_budget_step``): ``requests`` (provider requests, cache hits not
counted) and the token and cost limits, against what is used plus an estimate of the next request
— its input is at least the previous request's input plus the messages added since, and its
output at most ``max_tokens``, which the step lowers to the room left under ``output_tokens`` /
``total_tokens``. Before a turn's tool calls run (``tools_budget_step``): ``tool_calls`` and
``per_tool_calls`` against the calls that would run (denied calls do not count).

A limit that would be exceeded ends the run with a ``BudgetExceeded`` result
(``stop_reason="budget"``, ``limit`` naming the field), a BUDGET trace step and every message kept
(calls that were not run get a tool result saying so). With ``final_turn=True``, a tool limit
first gives the model one last turn without tools to answer with what it has.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, NoReturn

from ragkit.agent.guarded import StopRun
from ragkit.agent.limits import UsageLimits
from ragkit.agent.memory import estimate_tokens
from ragkit.agent.result import BudgetExceeded
from ragkit.agent.state import Run
from ragkit.agent.trace import BudgetStep, CacheHitStep, LLMCallStep
from ragkit.messages import Message, ToolCall
from ragkit.tools.tool import ToolResult

Steps = Generator[Any, Any, Any]


def _record(run: Run, limit: str, maximum: float, used: float, why: str) -> str:
    message = f"Stopped: {why} (UsageLimits.{limit}={maximum:g}, used {used:g})."
    run.trace.add(BudgetStep(run.iteration, run.trace.elapsed(), limit, maximum, used, message))
    run.obs.emit("on_budget", run.run_id, limit, maximum, used)
    return message


def _stop(run: Run, limit: str, maximum: float, used: float, why: str) -> NoReturn:
    message = _record(run, limit, maximum, used, why)
    raise StopRun(run.end(message, "budget", result_class=BudgetExceeded, limit=limit, maximum=maximum, used=used))


def _text_tokens(messages: Sequence[Message]) -> int:
    text = "".join(m.content + "".join(c.name + json.dumps(c.arguments, default=str) for c in m.tool_calls)
                   for m in messages)
    return estimate_tokens(text) + 4 * len(messages)


def next_input_estimate(run: Run) -> int:
    """At least the previous request's input plus what was added since (the model re-reads all)."""
    specs = estimate_tokens(json.dumps([s.__dict__ for s in run.specs], default=str)) if run.specs else 0
    rough = _text_tokens(run.messages) + specs
    last = next((s for s in reversed(run.trace.steps) if isinstance(s, (LLMCallStep, CacheHitStep))), None)
    sent = run.marks.get("budget_sent")
    if last is None or sent is None:
        return rough
    return max(rough, last.input_tokens + _text_tokens(run.messages[sent:]))


def model_budget_step(run: Run) -> Steps:
    limits = run.config.limits
    if limits is None:
        return
    usage = run.usage
    requests = usage.llm_calls - usage.cache_hits
    if limits.requests is not None and requests + 1 > limits.requests:
        _stop(run, "requests", limits.requests, requests, "the next model call would exceed the request budget")
    est_in = next_input_estimate(run)
    if limits.input_tokens is not None and usage.input_tokens + est_in > limits.input_tokens:
        _stop(run, "input_tokens", limits.input_tokens, usage.input_tokens + est_in,
              f"the next model call (~{est_in} input tokens) would exceed the input-token budget")
    used_total = usage.input_tokens + usage.output_tokens
    rooms = []
    if limits.output_tokens is not None:
        rooms.append(("output_tokens", limits.output_tokens, usage.output_tokens, limits.output_tokens - usage.output_tokens))
    if limits.total_tokens is not None:
        rooms.append(("total_tokens", limits.total_tokens, used_total + est_in, limits.total_tokens - used_total - est_in))
    for name, maximum, used, room in rooms:
        if room < 1:
            _stop(run, name, maximum, used, f"no room is left under the {name} budget for the next model call")
    if rooms:  # the next answer may not be longer than the room left
        room = min(r[3] for r in rooms)
        run.params["max_tokens"] = min(int(run.params.get("max_tokens") or room), room)
    if limits.cost_usd is not None:
        from ragkit import pricing

        est_cost = pricing.price_llm(run.provider.model, est_in, int(run.params.get("max_tokens") or 0))
        if usage.total_cost + est_cost > limits.cost_usd:
            _stop(run, "cost_usd", limits.cost_usd, usage.total_cost + est_cost,
                  f"the next model call (~${est_cost:.4f}) would exceed the cost budget")
    run.marks["budget_sent"] = len(run.messages)
    return
    yield  # a generator step


def tools_budget_step(run: Run, calls: Sequence[ToolCall], decided: Mapping[int, ToolResult],
                      final_turn: Callable[[], Steps]) -> Steps:
    """``final_turn()``: the steps of one model call without tools (``UsageLimits.final_turn``)."""
    limits = run.config.limits
    if limits is None:
        return
    going = [c for i, c in enumerate(calls) if i not in decided and run.precheck(c) is None]
    ran = [r for r in run.records if r.error_kind not in ("denied", "unknown_tool", "arguments", "budget")]
    hit: tuple[str, float, float, str] | None = None
    if limits.tool_calls is not None and len(ran) + len(going) > limits.tool_calls:
        hit = ("tool_calls", limits.tool_calls, len(ran) + len(going),
               f"{len(going)} more tool call(s) would exceed the tool-call budget")
    for name, maximum in limits.per_tool_calls.items():
        n_ran, n_going = sum(r.name == name for r in ran), sum(c.name == name for c in going)
        if hit is None and n_going and n_ran + n_going > maximum:
            hit = (f"per_tool_calls[{name}]", maximum, n_ran + n_going,
                   f"{n_going} more call(s) of '{name}' would exceed its budget")
    if hit is None:
        return
    limit, maximum, used, why = hit
    for call in calls:  # every call gets a result, so the messages stay a valid conversation
        run.messages.append(Message(role="tool", content=f"error: not run: {why}", tool_call_id=call.id, name=call.name))
    if limits.final_turn:
        _record(run, limit, maximum, used, why)
        response = yield from final_turn()  # a model call without tools, screened like any answer
        run.messages.append(response.to_message())
        raise StopRun(run.end(response.content, "budget", result_class=BudgetExceeded, limit=limit,
                              maximum=maximum, used=used))
    _stop(run, limit, maximum, used, why)


__all__ = ["UsageLimits", "model_budget_step", "next_input_estimate", "tools_budget_step"]
