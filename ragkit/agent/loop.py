"""``Agent``: a bounded, observable, cost-accounted tool-calling loop over any provider.

Each iteration calls the model once (from the response cache when possible, except when
streaming); if it asks for tools, they run — several at once in parallel, results kept in call
order — and their results go back to the model. A tool failure is an observation, never a crash.
The run ends with the model's answer or, after ``max_iterations`` model calls, with a result whose
``stop_reason`` is ``"max_iterations"``.

    agent = Agent(LocalProvider(), tools=[word_count])
    print(agent.run("How many words are in this sentence?").content)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragkit.agent.config import AgentConfig
from ragkit.agent.observers import Observer, ObserverSet
from ragkit.agent.result import AgentEvent, AgentResult
from ragkit.agent.state import Prompt, RunState, ToolRun
from ragkit.errors import AgentError
from ragkit.providers.base import Provider, Response, ToolCall
from ragkit.tools.registry import ToolRegistry
from ragkit.tools.tool import Tool, ToolResult


class Agent:
    """Runs a provider with tools. ``context`` supplies injected tool arguments to every run."""

    def __init__(
        self,
        provider: Provider | str,
        *,
        tools: Iterable[Tool | Callable[..., Any]] | ToolRegistry = (),
        config: AgentConfig | None = None,
        observers: Sequence[Observer] = (),
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
        self.observers = ObserverSet(observers)
        self.context = dict(context or {})

    def __repr__(self) -> str:
        return f"Agent(provider={self.provider.name}:{self.provider.model}, tools={self.tools.names()})"

    def reset(self) -> None:
        """Forget the conversation history (if the config has a memory)."""
        if self.config.memory is not None:
            self.config.memory.clear()

    # --- sync --------------------------------------------------------------------------------

    def run(self, prompt: Prompt, *, context: dict[str, Any] | None = None) -> AgentResult:
        """Run to completion; returns the answer with trace, usage and citations."""
        return _last_result(self._loop(self._state(prompt, context, True), streaming=False))

    def stream(self, prompt: Prompt, *, context: dict[str, Any] | None = None) -> Iterator[AgentEvent]:
        """Yield text deltas and tool events as they happen, then one ``result`` event."""
        yield from self._loop(self._state(prompt, context, True), streaming=True)

    def batch(self, prompts: Sequence[Prompt], *, context: dict[str, Any] | None = None,
              max_concurrency: int | None = None) -> list[AgentResult]:
        """Run independent prompts concurrently; each has its own history (memory is not used)."""
        workers = max(1, min(len(prompts) or 1, max_concurrency or self.config.batch_concurrency))

        def one(p: Prompt) -> AgentResult:
            return _last_result(self._loop(self._state(p, context, False), streaming=False))

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragkit-batch") as pool:
            return list(pool.map(one, prompts))

    def _state(self, prompt: Prompt, context: dict[str, Any] | None, use_memory: bool) -> RunState:
        return RunState(provider=self.provider, config=self.config, tools=self.tools, observers=self.observers,
                        prompt=prompt, context={**self.context, **(context or {})}, use_memory=use_memory)

    def _loop(self, st: RunState, *, streaming: bool) -> Iterator[AgentEvent]:
        st.obs.emit("on_agent_start", st.run_id, list(st.messages))
        for iteration in range(1, self.config.max_iterations + 1):
            st.iteration = iteration
            st.obs.emit("on_iteration_start", st.run_id, iteration)
            response: Response | None = None
            if streaming:
                for event in self._stream_llm(st):
                    if isinstance(event, Response):
                        response = event
                    else:
                        yield event
            else:
                response = self._complete(st)
            assert response is not None
            st.messages.append(response.to_message())
            if not response.tool_calls:
                st.obs.emit("on_iteration_end", st.run_id, iteration)
                yield AgentEvent("result", iteration, result=st.finish(response))
                return
            for call in response.tool_calls:
                yield AgentEvent("tool_start", iteration, tool_call=call)
            runs = self._run_tools(st, response.tool_calls)
            st.tools_finished(runs)
            for run in runs:
                yield AgentEvent("tool_end", iteration, tool_call=run.call, tool_output=run.result.content,
                                 is_error=run.result.is_error)
            st.obs.emit("on_iteration_end", st.run_id, iteration)
        yield AgentEvent("result", st.iteration, result=st.finish(None))

    def _complete(self, st: RunState) -> Response:
        cached = st.cache_lookup()
        if cached is not None:
            return cached
        start = st.llm_started()
        try:
            response = self.provider.complete(st.messages, st.specs or None, **st.params)
        except Exception as exc:
            raise st.llm_failed(exc, start) from exc
        st.llm_finished(response, start)
        st.cache_store(response)
        return response

    def _stream_llm(self, st: RunState) -> Iterator[AgentEvent | Response]:
        start = st.llm_started()
        response: Response | None = None
        try:
            for ev in self.provider.stream(st.messages, st.specs or None, **st.params):
                if ev.type == "text" and ev.text:
                    yield AgentEvent("text", st.iteration, text=ev.text)
                elif ev.type == "done":
                    response = ev.response
        except Exception as exc:
            raise st.llm_failed(exc, start) from exc
        if response is None:
            raise st.llm_failed(RuntimeError("the stream ended without a 'done' event"), start)
        st.llm_finished(response, start, streamed=True)
        yield response

    def _run_tools(self, st: RunState, calls: Sequence[ToolCall]) -> list[ToolRun]:
        if len(calls) == 1 or not self.config.parallel_tool_calls:
            return [self._invoke(st, c) for c in calls]
        workers = min(len(calls), self.config.max_parallel_tools)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragkit-tool") as pool:
            return list(pool.map(lambda c: self._invoke(st, c), calls))

    def _invoke(self, st: RunState, call: ToolCall) -> ToolRun:
        start = st.tool_started(call)
        result = st.precheck(call)
        if result is None:
            result = self.tools.get(call.name).invoke(call.arguments, context=st.context,
                                                      timeout=self.config.tool_timeout)
        return ToolRun(call, result, start)

    # --- async -------------------------------------------------------------------------------

    async def arun(self, prompt: Prompt, *, context: dict[str, Any] | None = None) -> AgentResult:
        result: AgentResult | None = None
        async for event in self._aloop(self._state(prompt, context, True), streaming=False):
            result = event.result or result
        assert result is not None
        return result

    async def astream(self, prompt: Prompt, *, context: dict[str, Any] | None = None) -> AsyncIterator[AgentEvent]:
        async for event in self._aloop(self._state(prompt, context, True), streaming=True):
            yield event

    async def abatch(self, prompts: Sequence[Prompt], *, context: dict[str, Any] | None = None,
                     max_concurrency: int | None = None) -> list[AgentResult]:
        """Async ``batch``: isolated histories, at most ``max_concurrency`` runs at once."""
        limit = asyncio.Semaphore(max_concurrency or self.config.batch_concurrency)

        async def one(p: Prompt) -> AgentResult:
            async with limit:
                result: AgentResult | None = None
                async for event in self._aloop(self._state(p, context, False), streaming=False):
                    result = event.result or result
                assert result is not None
                return result

        return list(await asyncio.gather(*(one(p) for p in prompts)))

    async def _aloop(self, st: RunState, *, streaming: bool) -> AsyncIterator[AgentEvent]:
        st.obs.emit("on_agent_start", st.run_id, list(st.messages))
        for iteration in range(1, self.config.max_iterations + 1):
            st.iteration = iteration
            st.obs.emit("on_iteration_start", st.run_id, iteration)
            response: Response | None = None
            if streaming:
                async for event in self._astream_llm(st):
                    if isinstance(event, Response):
                        response = event
                    else:
                        yield event
            else:
                response = await self._acomplete(st)
            assert response is not None
            st.messages.append(response.to_message())
            if not response.tool_calls:
                st.obs.emit("on_iteration_end", st.run_id, iteration)
                yield AgentEvent("result", iteration, result=st.finish(response))
                return
            for call in response.tool_calls:
                yield AgentEvent("tool_start", iteration, tool_call=call)
            runs = await self._arun_tools(st, response.tool_calls)
            st.tools_finished(runs)
            for run in runs:
                yield AgentEvent("tool_end", iteration, tool_call=run.call, tool_output=run.result.content,
                                 is_error=run.result.is_error)
            st.obs.emit("on_iteration_end", st.run_id, iteration)
        yield AgentEvent("result", st.iteration, result=st.finish(None))

    async def _acomplete(self, st: RunState) -> Response:
        cached = st.cache_lookup()
        if cached is not None:
            return cached
        start = st.llm_started()
        try:
            response = await self.provider.acomplete(st.messages, st.specs or None, **st.params)
        except Exception as exc:
            raise st.llm_failed(exc, start) from exc
        st.llm_finished(response, start)
        st.cache_store(response)
        return response

    async def _astream_llm(self, st: RunState) -> AsyncIterator[AgentEvent | Response]:
        start = st.llm_started()
        response: Response | None = None
        try:
            async for ev in self.provider.astream(st.messages, st.specs or None, **st.params):
                if ev.type == "text" and ev.text:
                    yield AgentEvent("text", st.iteration, text=ev.text)
                elif ev.type == "done":
                    response = ev.response
        except Exception as exc:
            raise st.llm_failed(exc, start) from exc
        if response is None:
            raise st.llm_failed(RuntimeError("the stream ended without a 'done' event"), start)
        st.llm_finished(response, start, streamed=True)
        yield response

    async def _arun_tools(self, st: RunState, calls: Sequence[ToolCall]) -> list[ToolRun]:
        if len(calls) == 1 or not self.config.parallel_tool_calls:
            return [await self._ainvoke(st, c, None) for c in calls]
        limit = asyncio.Semaphore(self.config.max_parallel_tools)
        return list(await asyncio.gather(*(self._ainvoke(st, c, limit) for c in calls)))

    async def _ainvoke(self, st: RunState, call: ToolCall, limit: asyncio.Semaphore | None) -> ToolRun:
        if limit is not None:
            async with limit:
                return await self._ainvoke(st, call, None)
        start = st.tool_started(call)
        result: ToolResult | None = st.precheck(call)
        if result is None:
            result = await self.tools.get(call.name).ainvoke(call.arguments, context=st.context,
                                                             timeout=self.config.tool_timeout)
        return ToolRun(call, result, start)


def _last_result(events: Iterator[AgentEvent]) -> AgentResult:
    result: AgentResult | None = None
    for event in events:
        result = event.result or result
    if result is None:  # pragma: no cover - the loop always ends with a result event
        raise AgentError("the agent loop ended without a result")
    return result


__all__ = ["Agent"]
