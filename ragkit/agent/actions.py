"""What the step machine (:mod:`ragkit.agent.loop`) asks the drivers (:mod:`ragkit.agent.drivers`)
to do: plain values, so neither module imports the other's internals."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ragkit.agent.result import AgentEvent
from ragkit.messages import Message, ToolCall, ToolSpec
from ragkit.providers.base import Provider
from ragkit.tools.tool import Tool, ToolResult

T = TypeVar("T")
END: Any = object()  # what a Pull gets back from an exhausted source


@dataclass(frozen=True)
class CallModel:
    """Call the provider. Reply: the ``Response``, or (``stream``) a source of ``StreamEvent``s."""

    messages: list[Message]
    tools: list[ToolSpec] | None
    params: dict[str, Any]
    stream: bool
    provider: Provider | None = None  # the current agent's, when a handoff changed it (else the driver's)


@dataclass(frozen=True)
class ToolJob:
    index: int
    call: ToolCall
    tool: Tool
    context: dict[str, Any] = field(repr=False)
    timeout: float | None
    retry: bool = True  # False: run once whatever the tool's retry policy (a call a person approved)


@dataclass(frozen=True)
class RunTools:
    """Start the jobs, at most ``concurrency`` at once. Reply: a source of ``ToolChunk``/``ToolDone``."""

    jobs: tuple[ToolJob, ...]
    concurrency: int


@dataclass(frozen=True)
class Pull:
    """Reply: the next item of ``source`` (a reply of an earlier action), or ``END``."""

    source: Any


@dataclass(frozen=True)
class ToolChunk:
    index: int
    text: str


@dataclass(frozen=True)
class ToolDone:
    index: int
    result: ToolResult


@dataclass(frozen=True)
class Call:
    """Run ``fn()`` (blocking, or returning an awaitable) — or ``afn()`` in the async driver when
    given — within ``timeout`` seconds (an approval handler, a coherence checker). Reply: its
    value; a timeout throws ``TimeoutError``."""

    fn: Callable[[], Any]
    afn: Callable[[], Any] | None = None
    timeout: float | None = None


Action = CallModel | RunTools | Pull | Call | AgentEvent
Steps = Generator[Action, Any, T]
