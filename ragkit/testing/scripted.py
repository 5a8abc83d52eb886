"""``ScriptedProvider``: a fake LLM that replays a script of turns; for tests (yours too).

    provider = ScriptedProvider([
        tool_call_response(("search", {"query": "refunds"})),
        "Refunds take 5 days [1].",
    ])

Each item is a ``Response``, a string (a final answer) or a callable ``(messages, tools) ->
Response | str``. Every call is recorded in ``provider.calls`` (messages, tools, params).
Running out of script raises ``ProviderError`` saying how many turns were scripted.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.errors import ProviderError
from ragkit.messages import Message, Response, ToolCall, ToolSpec, Usage
from ragkit.providers.base import BaseProvider
from ragkit.registry import providers

ScriptItem = Response | str | Callable[[Sequence[Message], Sequence[ToolSpec]], Response | str]
_ids = itertools.count(1)


@dataclass
class ScriptedCall:
    messages: list[Message]
    tools: list[ToolSpec]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


def tool_call_response(*calls: tuple[str, dict[str, Any]], content: str = "",
                       usage: Usage | None = None, model: str = "") -> Response:
    """A response asking for one or more tool calls: ``tool_call_response(("add", {"a": 1}))``."""
    tool_calls = tuple(ToolCall(id=f"call_{next(_ids)}", name=name, arguments=dict(args)) for name, args in calls)
    return Response(content=content, tool_calls=tool_calls, usage=usage or Usage(), model=model,
                    stop_reason="tool_calls")


@providers.register("scripted")
class ScriptedProvider(BaseProvider):
    """Replays ``responses`` in order, one per ``complete`` (or ``stream``) call."""

    name = "scripted"

    def __init__(self, responses: Iterable[ScriptItem] = (), *, model: str = "scripted") -> None:
        self.model = model
        self._script: list[ScriptItem] = list(responses)
        self._next = 0
        self._lock = threading.Lock()
        self.calls: list[ScriptedCall] = []

    def add(self, *responses: ScriptItem) -> None:
        with self._lock:
            self._script.extend(responses)

    @property
    def remaining(self) -> int:
        return len(self._script) - self._next

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None,
                 **params: Any) -> Response:
        with self._lock:
            self.calls.append(ScriptedCall(list(messages), list(tools or ()), dict(params)))
            if self._next >= len(self._script):
                last = messages[-1].content[:80] if messages else ""
                raise ProviderError(
                    f"ScriptedProvider ran out of responses: the script has {len(self._script)} "
                    f"turn(s) and call {len(self.calls)} asked for another (last message: {last!r}); "
                    "add more responses to the script"
                )
            item = self._script[self._next]
            self._next += 1
        if callable(item) and not isinstance(item, (Response, str)):
            item = item(list(messages), list(tools or ()))
        if isinstance(item, str):
            return Response(content=item, model=self.model)
        if not isinstance(item, Response):
            raise ProviderError(f"script item {self._next} must be a Response or str, got {type(item).__name__}")
        return item


__all__ = ["ScriptedCall", "ScriptedProvider", "tool_call_response"]
