"""The budget steps: ``UsageLimits`` (:mod:`ragkit.agent.values`) checked **before** the call that would exceed them.

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

Costs are never guessed: with ``cost_usd`` set, a model the registry has no price for is refused
before it is called (the cost could not be held to the limit). ``warn_cost_usd``
(``cost_warning_step``, after each model call and each turn of tools) records a BUDGET step with
``action="warn"``, calls ``on_cost_warning``, yields a ``warning`` event, and lets the run go on.
``fit_request`` fits the messages of each request to the model's context window when the run's
``ConversationMemory`` has ``context_window`` set (``on_memory_trim``); a request that cannot fit
stops the run with ``limit="context_window"`` before it is sent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, NoReturn

from ragkit.agent.guard.guardrails import StopRun
from ragkit.agent.observe.trace import BudgetStep, CacheHitStep, LLMCallStep
from ragkit.agent.result import AgentEvent, BudgetExceeded
from ragkit.agent.state import Run
from ragkit.agent.values import UsageLimits
from ragkit.messages import Message, ToolCall, ToolSpec, count_images
from ragkit.tokens import IMAGE_TOKENS_ESTIMATE, MESSAGE_OVERHEAD, estimate_tokens, message_text
from ragkit.tools.tool import ToolResult

Steps = Generator[Any, Any, Any]
log = logging.getLogger(__name__)
_WINDOW_UNKNOWN: set[str] = set()  # models whose unknown window was already logged


def _record(run: Run, limit: str, maximum: float, used: float | None, why: str) -> str:
    spent = "unknown" if used is None else f"{used:g}"
    where = "the context window" if limit == "context_window" else f"UsageLimits.{limit}"
    message = f"Stopped: {why} ({where}={maximum:g}, used {spent})."
    run.trace.add(BudgetStep(run.iteration, run.trace.elapsed(), limit, maximum, used, message))
    run.obs.emit("on_budget", run.run_id, limit, maximum, used)
    return message


def _stop(run: Run, limit: str, maximum: float, used: float | None, why: str) -> NoReturn:
    message = _record(run, limit, maximum, used, why)
    raise StopRun(run.end(message, "budget", result_class=BudgetExceeded, limit=limit, maximum=maximum, used=used))


def _text_tokens(messages: Sequence[Message]) -> int:
    return (estimate_tokens("".join(message_text(m) for m in messages)) + MESSAGE_OVERHEAD * len(messages)
            + IMAGE_TOKENS_ESTIMATE * count_images(messages))


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
        _check_cost(run, limits.cost_usd, est_in)
    run.marks["budget_sent"] = len(run.messages)
    return
    yield  # a generator step


def _check_cost(run: Run, limit: float, est_in: int) -> None:
    """Refuse the next call when it would exceed ``cost_usd`` — or when its cost cannot be known."""
    from ragkit import pricing

    usage, model, provider = run.usage, run.provider.model, run.provider.name
    if usage.total_cost is None:
        _stop(run, "cost_usd", limit, None,
              f"the run's cost is unknown ({', '.join(usage.unpriced)} has no price), so the cost budget cannot be "
              f"enforced; {pricing.HOW_TO_PRICE.format(name=usage.unpriced[0] if usage.unpriced else 'MODEL')}")
    est_cost = pricing.price_llm(model, est_in, int(run.params.get("max_tokens") or 0), provider=provider)
    if est_cost is None:
        _stop(run, "cost_usd", limit, usage.total_cost,
              f"model {model!r} has no price in the model registry, so a cost budget cannot be enforced and it is "
              f"not called; {pricing.HOW_TO_PRICE.format(name=model)}")
    if usage.total_cost + est_cost > limit:
        _stop(run, "cost_usd", limit, usage.total_cost + est_cost,
              f"the next model call (~${est_cost:.4f}) would exceed the cost budget")


def cost_warning_step(run: Run) -> Steps:
    """``UsageLimits.warn_cost_usd``: once per run, when the cost reaches it (or can no longer be
    known), a BUDGET step with ``action="warn"``, ``on_cost_warning`` and a ``warning`` event."""
    limits = run.config.limits
    if limits is None or limits.warn_cost_usd is None or run.marks.get("cost_warned"):
        return
    threshold, used = limits.warn_cost_usd, run.usage.total_cost
    if used is not None and used < threshold:
        return
    run.marks["cost_warned"] = True
    if used is None:
        message = (f"Warning: the run's cost can no longer be checked against UsageLimits.warn_cost_usd={threshold:g}: "
                   f"{', '.join(run.usage.unpriced)} has no price. The run continues.")
    else:
        message = f"Warning: the run has cost ${used:.4f}, reaching UsageLimits.warn_cost_usd={threshold:g}. The run continues."
    run.trace.add(BudgetStep(run.iteration, run.trace.elapsed(), "warn_cost_usd", threshold, used, message, action="warn"))
    run.obs.emit("on_cost_warning", run.run_id, threshold, used)
    yield AgentEvent("warning", run.iteration, text=message)


def fit_request(run: Run, tools: Sequence[ToolSpec] | None) -> list[Message]:
    """The messages of the next request, fitted to the model's context window when the run's memory
    asks for it (see :class:`ragkit.agent.memory.ConversationMemory`); otherwise all of them."""
    memory = run.memory
    messages = list(run.messages)
    if memory is None or memory.context_window is None:
        return messages
    window = memory.window(run.provider.model, run.provider.name)
    if window is None:
        if run.provider.model not in _WINDOW_UNKNOWN:
            _WINDOW_UNKNOWN.add(run.provider.model)
            log.warning("the context window of model %r is not in the model registry; requests are not fitted to "
                        "it: pass ConversationMemory(context_window=TOKENS)", run.provider.model)
        return messages
    answer = int(run.params.get("max_tokens") or memory.answer_tokens)
    schemas = estimate_tokens(json.dumps([t.__dict__ for t in tools], default=str)) if tools else 0
    limit = window - answer - schemas
    if limit < 1:
        _stop(run, "context_window", window, answer + schemas,
              f"the room kept for the answer ({answer} tokens) and the tool schemas ({schemas}) fills the model's "
              "context window; lower max_tokens / answer_tokens or offer fewer tools")
    fitted, dropped = memory.fit(messages, limit)
    tokens = memory.count_tokens(fitted)
    if dropped:
        run.obs.emit("on_memory_trim", run.run_id, dropped, tokens, limit)
    if tokens > limit:
        _stop(run, "context_window", window, tokens + answer + schemas,
              f"the request (~{tokens} input tokens) does not fit the model's context window even without the earlier "
              f"turns ({answer} tokens kept for the answer, {schemas} for the tool schemas)")
    return fitted


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


__all__ = ["UsageLimits", "cost_warning_step", "fit_request", "model_budget_step", "next_input_estimate",
           "tools_budget_step"]
