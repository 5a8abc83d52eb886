"""The two drivers of the agent's step machine: they perform its actions, and nothing else.

The machine (:func:`ragkit.agent.loop.run_steps`) yields events to pass on and actions to
perform; a driver sends each action's outcome back (or throws in the exception it raised).
``drive`` does the I/O with blocking calls and threads (tools in a thread pool), ``adrive`` with
``await`` (the provider's async methods, tools as tasks). Neither makes a decision.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import queue
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragkit.agent.actions import END, Call, CallModel, Pull, RunTools, Steps, ToolChunk, ToolDone, ToolJob
from ragkit.agent.result import AgentEvent
from ragkit.errors import AgentError
from ragkit.providers.base import Provider
from ragkit.tools.tool import _thread_future, run_in_thread


class Stepper:
    """Iterates the machine's actions, sending back what the driver ``settle``\\ d for the last one."""

    def __init__(self, steps: Steps[None]) -> None:
        self.steps = steps
        self.reply: Any = None
        self.error: BaseException | None = None

    def __iter__(self) -> Iterator[Any]:
        while True:
            reply, error, self.reply, self.error = self.reply, self.error, None, None
            try:
                action = self.steps.throw(error) if error is not None else self.steps.send(reply)
            except StopIteration:
                return
            yield action

    def settle(self, perform: Callable[..., Any], *args: Any) -> None:
        try:
            self.reply = perform(*args)
        except Exception as exc:  # handed to the machine, which decides
            self.error = exc

    async def asettle(self, perform: Awaitable[Any]) -> None:
        try:
            self.reply = await perform
        except Exception as exc:
            self.error = exc


def drive(steps: Steps[None], provider: Provider) -> Iterator[AgentEvent]:
    """The sync driver."""
    stepper = Stepper(steps)
    for action in stepper:
        if isinstance(action, AgentEvent):
            yield action
        else:
            stepper.settle(_perform, action, provider)


async def adrive(steps: Steps[None], provider: Provider) -> AsyncIterator[AgentEvent]:
    """The async driver."""
    stepper = Stepper(steps)
    for action in stepper:
        if isinstance(action, AgentEvent):
            yield action
        else:
            await stepper.asettle(_aperform(action, provider))


def _perform(action: Any, provider: Provider) -> Any:
    if isinstance(action, CallModel):
        provider = action.provider or provider
    if isinstance(action, Pull):
        return next(action.source, END)
    if isinstance(action, CallModel) and action.stream:
        return iter(provider.stream(action.messages, action.tools, **action.params))
    if isinstance(action, CallModel):
        return provider.complete(action.messages, action.tools, **action.params)
    if isinstance(action, RunTools):
        return _thread_tools(action)
    if isinstance(action, Call):
        return run_in_thread(lambda: _settled(action.fn()), action.timeout) if action.timeout else _settled(action.fn())
    raise AgentError(f"the sync driver cannot perform {action!r}")


async def _aperform(action: Any, provider: Provider) -> Any:
    if isinstance(action, CallModel):
        provider = action.provider or provider
    if isinstance(action, Pull):
        return await anext(action.source, END)
    if isinstance(action, CallModel) and action.stream:
        return provider.astream(action.messages, action.tools, **action.params).__aiter__()
    if isinstance(action, CallModel):
        return await provider.acomplete(action.messages, action.tools, **action.params)
    if isinstance(action, RunTools):
        return _task_tools(action).__aiter__()
    if isinstance(action, Call):
        return await asyncio.wait_for(_acall(action), action.timeout)
    raise AgentError(f"the async driver cannot perform {action!r}")


def _settled(value: Any) -> Any:
    """The value of a Call; an awaitable (an async handler) is run to completion."""
    if inspect.isawaitable(value):
        async def wait() -> Any:
            return await value

        return asyncio.run(wait())
    return value


async def _acall(action: Call) -> Any:
    # a daemon thread, not to_thread: a handler that hangs past its timeout must not hold up the loop's shutdown
    value = action.afn() if action.afn is not None else await _thread_future(action.fn)
    return await value if inspect.isawaitable(value) else value


def _thread_tools(action: RunTools) -> Iterator[ToolChunk | ToolDone]:
    """Tools in a thread pool; chunks and results arrive through a queue as they happen."""
    items: queue.Queue[Any] = queue.Queue()

    def work(job: ToolJob) -> None:
        try:
            result = job.tool.invoke(job.call.arguments, context=job.context, timeout=job.timeout,
                                     on_chunk=lambda text: items.put(ToolChunk(job.index, text)), retry=job.retry)
            items.put(ToolDone(job.index, result))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the driver's thread
            items.put(exc)

    pool = ThreadPoolExecutor(max_workers=min(len(action.jobs), action.concurrency), thread_name_prefix="ragkit-tool")
    for job in action.jobs:  # each tool sees the caller's context variables, as with to_thread
        pool.submit(contextvars.copy_context().run, work, job)
    pool.shutdown(wait=False)
    yield from _collect(items.get, len(action.jobs))


async def _task_tools(action: RunTools) -> AsyncIterator[ToolChunk | ToolDone]:
    """Tools as tasks on this event loop (sync tools in daemon threads); at most ``concurrency`` at once."""
    loop = asyncio.get_running_loop()
    items: asyncio.Queue[Any] = asyncio.Queue()
    limit = asyncio.Semaphore(action.concurrency)

    def put(item: Any) -> None:  # chunks may come from a sync tool's thread
        loop.call_soon_threadsafe(items.put_nowait, item)

    async def work(job: ToolJob) -> None:
        async with limit:
            try:
                result = await job.tool.ainvoke(job.call.arguments, context=job.context, timeout=job.timeout,
                                                on_chunk=lambda text: put(ToolChunk(job.index, text)),
                                                retry=job.retry)
                put(ToolDone(job.index, result))
            except BaseException as exc:  # noqa: BLE001
                put(exc)

    tasks = [asyncio.ensure_future(work(job)) for job in action.jobs]
    try:
        pending = len(tasks)
        while pending:
            item = await items.get()
            pending -= _count_done(item)
            yield item
    finally:
        for task in tasks:
            task.cancel()


def _collect(get: Callable[[], Any], jobs: int) -> Iterator[Any]:
    while jobs:
        item = get()
        jobs -= _count_done(item)
        yield item


def _count_done(item: Any) -> int:
    if isinstance(item, BaseException):
        raise item
    return 1 if isinstance(item, ToolDone) else 0


__all__ = ["Stepper", "adrive", "drive"]
