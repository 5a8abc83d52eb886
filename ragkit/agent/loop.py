"""``Agent``: a bounded, observable, cost-accounted tool-calling loop over any provider.

The loop is one **step machine** (:func:`run_steps`): a generator that decides everything — the
next model call, which tools run, when to stop, what to record — and neither blocks nor awaits.
It *yields* what it needs done: an ``AgentEvent`` to pass on, or an action (``CallModel``,
``RunTools``, ``Pull``) whose outcome (or exception) is sent back in. A sync and an async driver
(:mod:`ragkit.agent.drivers`) perform the actions; ``run``/``stream``/``batch`` use the first,
``arun``/``astream``/``abatch`` the second, streaming and not streaming the same machine.

Each iteration calls the model once (from the response cache when possible, except when
streaming); if it asks for tools they run — several at once in parallel, results kept in call
order; a generator tool streams ``tool_chunk`` events — and their results go back to the model.
A tool failure is an observation, never a crash. The run ends with the model's answer or, after
``max_iterations`` model calls, with ``stop_reason="max_iterations"``.

To add a step: write it as a generator over ``Run`` like ``model_step``/``tools_step`` and add one
``yield from`` line; a step that ends the run raises ``StopRun(result)``. The guarded steps
(guardrails, budgets, policy/coherence/approval) live in ``guard/``: ``guardrails.py``, ``budget.py``
and ``decide.py``; their order is in ``run_steps``' docstring.

    agent = Agent(LocalProvider(), tools=[word_count])
    print(agent.run("How many words are in this sentence?").content)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragkit.agent.actions import (
    END,
    CallModel,
    Pull,
    RunTools,
    Steps,
    ToolChunk,
    ToolDone,
    ToolJob,
)
from ragkit.agent.config import AgentConfig
from ragkit.agent.guard.budget import cost_warning_step, fit_request, model_budget_step, tools_budget_step
from ragkit.agent.guard.decide import decide_step
from ragkit.agent.guard.guardrails import (
    StopRun,
    handoff_input_step,
    holds,
    input_step,
    output_step,
    results_step,
)
from ragkit.agent.observe.observers import ObserverLike, ObserverSet
from ragkit.agent.result import AgentEvent, AgentResult
from ragkit.agent.state import Prompt, Run, RunState, ToolRun
from ragkit.agent.structured import MAX_OUTPUT_RETRIES
from ragkit.agent.tool_choice import offer
from ragkit.errors import AgentError
from ragkit.messages import Message, Response, ToolCall
from ragkit.providers.base import Provider
from ragkit.providers.params import check_provider
from ragkit.tools.registry import ToolRegistry
from ragkit.tools.tool import Tool, ToolResult

# --- the step machine ----------------------------------------------------------------------------

def run_steps(run: Run, streaming: bool) -> Steps[None]:
    """One whole run (or the rest of a resumed one); ends by yielding the ``result`` event.

    The order of the steps, each one ``yield from`` line: input guardrails → (per iteration)
    budget → model call (cache or provider) → output and tool-argument guardrails, reasoning →
    policy, coherence, approval (or a pause) → tool budget → tools (their results screened) →
    the turn's handoff (``AgentRunner``; the new agent's input guardrails) → next iteration. A resumed run starts with the turn it paused in.
    A step that ends the run raises ``StopRun`` with its result. A run that raises, or whose
    consumer stops reading it, still ends with ``on_agent_end`` (a ``RunFailed``, ``Run.fail``)."""
    try:
        yield from _steps(run, streaming)
    except StopRun as stop:
        yield AgentEvent("result", run.iteration, result=stop.result)
    except (Exception, GeneratorExit) as exc:
        run.fail(exc)
        raise


def _steps(run: Run, streaming: bool) -> Steps[None]:
    fresh = run.iteration == 0
    yield from input_step(run)  # guardrails on the user's message, before anything leaves
    if fresh and run.admit is not None:  # the input as the run sees it, stored before the model sees it
        yield from run.admit(run)
    run.obs.emit("on_agent_start", run.run_id, list(run.messages))
    waiting = run.unanswered_calls()  # resuming a turn that paused for approval: its calls first
    if waiting:
        yield from turn_step(run, waiting, streaming)
    for iteration in range(run.iteration + 1, run.config.max_iterations + 1):
        run.iteration = iteration
        run.obs.emit("on_iteration_start", run.run_id, iteration)
        yield from model_budget_step(run)
        response = yield from model_step(run, streaming)
        yield from cost_warning_step(run)
        response = yield from output_step(run, response, streaming)
        run.messages.append(response.to_message(run.agent_name))
        if not response.tool_calls:
            run.obs.emit("on_iteration_end", run.run_id, iteration)
            if (yield from structured_step(run, response, streaming)):
                continue  # an invalid structured answer went back to the model
            yield AgentEvent("result", iteration, result=run.finish(response))
            return
        client = [c for c in response.tool_calls if c.name in run.client]
        own = [c for c in response.tool_calls if c.name not in run.client]
        if own:
            yield from turn_step(run, own, streaming)
        yield from cost_warning_step(run)
        run.obs.emit("on_iteration_end", run.run_id, iteration)
        if client:  # the caller runs these and continues the conversation with their results
            yield AgentEvent("result", iteration, result=run.end(response.content, "tool_calls", client_calls=client))
            return
    yield AgentEvent("result", run.iteration, result=run.finish(None))


def turn_step(run: Run, calls: Sequence[ToolCall], streaming: bool) -> Steps[None]:
    """The tool calls of one model turn: decided (a call waiting for a human pauses the run here),
    budgeted, run; then the turn's handoff, if any (in an ``AgentRunner``)."""
    decided = yield from decide_step(run, calls)
    yield from tools_budget_step(run, calls, decided, lambda: final_turn(run, streaming))
    yield from tools_step(run, calls, decided)
    if run.handoff is not None:
        handoffs = run.state.handoffs
        if (ended := (yield from run.handoff(run))) is not None:
            raise StopRun(ended)  # max_handoffs
        if run.state.handoffs != handoffs:  # handed to another agent: its input guardrails screen what it gets
            yield from handoff_input_step(run)


def final_turn(run: Run, streaming: bool) -> Steps[Response]:
    """One model call without tools (the answer after a tool budget), screened like any answer."""
    response = yield from model_step(run, streaming, offer_tools=False)
    return (yield from output_step(run, response, streaming))


def model_step(run: Run, streaming: bool, *, offer_tools: bool = True) -> Steps[Response]:
    """One model call: from the cache (not when streaming), else the provider; recorded either way."""
    if not streaming and offer_tools:
        cached = run.cache_lookup()
        if cached is not None:
            return cached
    tools, params = run.offered(offer_tools)  # as tool_choice allows them now
    messages = fit_request(run, tools)  # within the context window, or the run stops here
    messages = run.with_output(messages, params)  # the structured-output format, native or as an instruction
    start = run.llm_started()
    try:
        reply = yield CallModel(messages, tools, params, streaming, run.provider)
        response = (yield from _read_stream(run, reply)) if streaming else reply
    except Exception as exc:
        raise run.llm_failed(exc, start) from exc
    run.llm_finished(response, start, streamed=streaming)
    if not streaming and offer_tools:
        run.cache_store(response)
    return response


def _read_stream(run: Run, source: Any) -> Steps[Response]:
    response: Response | None = None
    held = holds(run, "output") or run.holds_output  # emitted after the guardrails' or the format's check
    while (event := (yield Pull(source))) is not END:
        if event.type == "text" and event.text and not held:
            yield AgentEvent("text", run.iteration, text=event.text)
        elif event.type == "done":
            response = event.response
    if response is None:
        raise RuntimeError("the stream ended without a 'done' event")
    return response


def structured_step(run: Run, response: Response, streaming: bool) -> Steps[bool]:
    """With a ``response_format``: True when the final answer is invalid and goes back to the model
    (up to ``MAX_OUTPUT_RETRIES`` times); the streamed text was held, and is emitted here once final."""
    if run.output is None:
        return False
    _, error = run.output.check(response.content)
    if error is not None and run.output_retries < MAX_OUTPUT_RETRIES and run.iteration < run.config.max_iterations:
        run.output_retries += 1
        run.messages.append(run.output.retry_message(error))
        return True
    if streaming and response.content:
        yield AgentEvent("text", run.iteration, text=response.content)
    return False


def tools_step(run: Run, calls: Sequence[ToolCall], decided: dict[int, ToolResult] | None = None) -> Steps[None]:
    """Run the calls of one model turn; results go back in call order. ``decided``: results of calls
    that must not run (denials); the others run unless they cannot (bad JSON, unknown tool)."""
    for call in calls:
        yield AgentEvent("tool_start", run.iteration, tool_call=call)
    runs: dict[int, ToolRun] = {}
    starts: dict[int, float] = {}
    jobs: list[ToolJob] = []
    for index, call in enumerate(calls):
        starts[index] = run.tool_started(call)
        early = (decided or {}).get(index) or run.precheck(call)  # denied, bad JSON, unknown tool: not run
        if early is not None:
            runs[index] = ToolRun(call, early, starts[index])
        else:
            once = call.id in run.marks.get("approved", ())  # an approval runs the call once, never retried
            jobs.append(ToolJob(index, call, run.tools.get(call.name), run.context, run.config.tool_timeout,
                                retry=not once))
    if jobs:
        parallel = run.config.max_parallel_tools if run.config.parallel_tool_calls else 1
        source = yield RunTools(tuple(jobs), parallel)
        while (item := (yield Pull(source))) is not END:
            call = calls[item.index]
            if isinstance(item, ToolChunk):
                if holds(run, "tool_results"):  # screened output only
                    continue
                run.tool_chunk(call, item.text)
                yield AgentEvent("tool_chunk", run.iteration, text=item.text, tool_call=call)
            else:
                start = max(starts[item.index], run.trace.elapsed() - item.result.duration)
                runs[item.index] = ToolRun(call, item.result, start)
    ordered = yield from results_step(run, [runs[i] for i in range(len(calls))])
    run.tools_finished(ordered)
    for done in ordered:
        yield AgentEvent("tool_end", run.iteration, tool_call=done.call, tool_output=done.result.content,
                         is_error=done.result.is_error)


# --- the public API ------------------------------------------------------------------------------

class Agent:
    """Runs a provider with tools. ``context`` supplies injected tool arguments to every run."""

    def __init__(
        self,
        provider: Provider | str,
        *,
        tools: Iterable[Tool | Callable[..., Any]] | ToolRegistry = (),
        config: AgentConfig | None = None,
        observers: Sequence[ObserverLike] = (),
        context: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(provider, str):
            from ragkit.registry import providers

            provider = providers.get(provider)()
        if not all(hasattr(provider, m) for m in ("complete", "stream", "acomplete", "astream")):
            raise AgentError(f"provider must implement the Provider protocol (complete/stream/...), got {provider!r}")
        self.provider = provider
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.config = config or AgentConfig()
        check_provider(provider, self.config.provider_params())  # a parameter it cannot honour fails now
        offer([*self.tools.specs(), *self.config.client_tools], self.config.tool_choice, False)  # a named tool exists
        self.observers = ObserverSet(observers)
        self.context = dict(context or {})

    def __repr__(self) -> str:
        return f"Agent(provider={self.provider.name}:{self.provider.model}, tools={self.tools.names()})"

    def reset(self) -> None:
        """Forget the conversation history (if the config has a memory)."""
        if self.config.memory is not None:
            self.config.memory.clear()

    def configured(self, **changes: Any) -> Agent:
        """A copy with ``AgentConfig`` fields changed (``agent.configured(max_tokens=50)``); the
        provider, tools, observers and context are shared, the config is checked again."""
        from dataclasses import replace

        agent = Agent(self.provider, tools=self.tools, config=replace(self.config, **changes), context=self.context)
        agent.observers = self.observers
        return agent

    def start(self, prompt: Prompt, *, context: dict[str, Any] | None = None, use_memory: bool = True,
              history: Sequence[Message] | None = None, config: AgentConfig | None = None,
              response_format: Any = None) -> Run:
        """A new ``Run`` of ``prompt`` (after ``history``, else the memory's), not started: drive
        ``run_steps(run, streaming)``, or give it to a turn owner (``ragkit.agent.conversation``).
        ``config``: this run's own (request parameters, say), else the agent's; ``response_format``
        (else the config's) asks for structured output (``agent/structured.py``)."""
        return Run(provider=self.provider, config=config or self.config, tools=self.tools, observers=self.observers,
                   prompt=prompt, context={**self.context, **(context or {})}, use_memory=use_memory,
                   history=history, response_format=response_format)

    def _steps(self, prompt: Prompt, context: dict[str, Any] | None, *, streaming: bool,
               use_memory: bool = True, response_format: Any = None) -> Steps[None]:
        run = self.start(prompt, context=context, use_memory=use_memory, response_format=response_format)
        return run_steps(run, streaming)

    # --- sync --------------------------------------------------------------------------------

    def run(self, prompt: Prompt, *, context: dict[str, Any] | None = None,
            response_format: Any = None) -> AgentResult:
        """Run to completion; returns the answer with trace, usage and citations. ``response_format``
        (a pydantic model class, a JSON schema or OpenAI's dict) asks for structured output:
        ``result.parsed`` holds the validated answer (``agent/structured.py``)."""
        from ragkit.agent.drivers import drive

        steps = self._steps(prompt, context, streaming=False, response_format=response_format)
        return _result(drive(steps, self.provider))

    def stream(self, prompt: Prompt, *, context: dict[str, Any] | None = None,
               response_format: Any = None) -> Iterator[AgentEvent]:
        """Yield text deltas and tool events as they happen, then one ``result`` event."""
        from ragkit.agent.drivers import drive

        yield from drive(self._steps(prompt, context, streaming=True, response_format=response_format), self.provider)

    def batch(self, prompts: Sequence[Prompt], *, context: dict[str, Any] | None = None,
              max_concurrency: int | None = None) -> list[AgentResult]:
        """Run independent prompts concurrently; each has its own history (memory is not used)."""
        from ragkit.agent.drivers import drive

        workers = max(1, min(len(prompts) or 1, max_concurrency or self.config.batch_concurrency))

        def one(p: Prompt) -> AgentResult:
            return _result(drive(self._steps(p, context, streaming=False, use_memory=False), self.provider))

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragkit-batch") as pool:
            return list(pool.map(one, prompts))

    def continue_from(self, state: RunState, message: str | Message | Sequence[Message], *,
                      context: dict[str, Any] | None = None) -> AgentResult:
        """Continue a finished run (``result.state``, or ``RunState.from_json`` of it) with a new user
        ``message``: a new run over the whole conversation (see ``RunState.continued``)."""
        from ragkit.agent.drivers import drive

        return _result(drive(run_steps(self._continued(state, message, context), False), self.provider))

    def _continued(self, state: RunState, message: str | Message | Sequence[Message],
                   context: dict[str, Any] | None) -> Run:
        new = state.continued(message)
        new.provider, new.model, new.tools = self.provider.name, self.provider.model, self.tools.names()
        return Run(provider=self.provider, config=self.config, tools=self.tools, observers=self.observers,
                   context={**self.context, **(context or {})}, state=new)

    # --- async -------------------------------------------------------------------------------

    async def acontinue_from(self, state: RunState, message: str | Message | Sequence[Message], *,
                             context: dict[str, Any] | None = None) -> AgentResult:
        """``continue_from``, awaited."""
        return await _aresult(run_steps(self._continued(state, message, context), False), self.provider)

    async def arun(self, prompt: Prompt, *, context: dict[str, Any] | None = None,
                   response_format: Any = None) -> AgentResult:
        return await _aresult(self._steps(prompt, context, streaming=False, response_format=response_format),
                              self.provider)

    async def astream(self, prompt: Prompt, *, context: dict[str, Any] | None = None,
                      response_format: Any = None) -> AsyncIterator[AgentEvent]:
        from ragkit.agent.drivers import adrive

        steps = self._steps(prompt, context, streaming=True, response_format=response_format)
        async for event in adrive(steps, self.provider):
            yield event

    async def abatch(self, prompts: Sequence[Prompt], *, context: dict[str, Any] | None = None,
                     max_concurrency: int | None = None) -> list[AgentResult]:
        """Async ``batch``: isolated histories, at most ``max_concurrency`` runs at once."""
        limit = asyncio.Semaphore(max_concurrency or self.config.batch_concurrency)

        async def one(p: Prompt) -> AgentResult:
            async with limit:
                return await _aresult(self._steps(p, context, streaming=False, use_memory=False), self.provider)

        return list(await asyncio.gather(*(one(p) for p in prompts)))


def _result(events: Iterable[AgentEvent]) -> AgentResult:
    result: AgentResult | None = None
    for event in events:
        result = event.result or result
    if result is None:  # pragma: no cover - the machine always ends with a result event
        raise AgentError("the agent loop ended without a result")
    return result


async def _aresult(steps: Steps[None], provider: Provider) -> AgentResult:
    from ragkit.agent.drivers import adrive

    return _result([event async for event in adrive(steps, provider)])


__all__ = ["END", "Agent", "CallModel", "Pull", "RunTools", "ToolChunk", "ToolDone", "ToolJob", "run_steps"]
