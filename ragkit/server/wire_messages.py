"""A request's ``messages`` in OpenAI's shape -> the turn's messages, checked.

``system``/``developer`` text is set aside (kept beside the RAG instructions); ``user`` and
``assistant`` messages keep their text (a user message's ``image_url`` parts become its images), an assistant's ``tool_calls`` (a client tool it called
earlier) and a ``tool`` message's ``tool_call_id`` are kept, so a client's tool results continue
the turn that asked for them. The conversation must end with a non-empty user message or with tool
results; without a session, every tool result must answer a call made earlier in the request.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ragkit.messages import Image, ImageError
from ragkit.server.errors import ApiError


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(p.get("text", "") for p in self.content if p.get("type") == "text")
        return self.content or ""


def _bad(message: str) -> ApiError:
    return ApiError(400, message, param="messages", code="invalid_messages")


def _calls(raw: Any, i: int) -> list[dict[str, Any]]:
    """An assistant's ``tool_calls`` as ``{"id", "name", "arguments"}`` (arguments: the JSON text)."""
    if not isinstance(raw, list):
        raise _bad(f"messages[{i}].tool_calls must be a list")
    out = []
    for j, call in enumerate(raw):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(call.get("id"), str) or not call["id"] \
                or not isinstance(function.get("name"), str):
            raise _bad(f"messages[{i}].tool_calls[{j}] must be {{'id': ..., 'type': 'function', "
                       "'function': {'name': ..., 'arguments': '<JSON>'}}")
        arguments = function.get("arguments") or "{}"
        out.append({"id": call["id"], "name": function["name"],
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)})
    return out


def _images(parts: list[dict[str, Any]], i: int) -> list[Image]:
    """The ``image_url`` parts of a user message (``{"type": "image_url", "image_url": {"url":
    "https://..." or "data:image/png;base64,...", "detail": ...}}``) as images, checked."""
    images = []
    for j, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("type") != "image_url":
            continue
        spec = part.get("image_url")
        spec = {"url": spec} if isinstance(spec, str) else spec
        if not isinstance(spec, dict) or not isinstance(spec.get("url"), str):
            raise _bad(f"messages[{i}].content[{j}] must be {{'type': 'image_url', 'image_url': {{'url': "
                       "'https://... or data:image/png;base64,...'}}")
        try:
            images.append(Image.from_url(spec["url"], detail=spec.get("detail")))
        except ImageError as exc:
            raise _bad(f"messages[{i}].content[{j}]: {exc}") from None
    return images


def conversation(messages: list[ChatMessage]) -> tuple[list[dict[str, Any]], str | None]:
    """The turn's messages (dicts with ``role``, ``content`` and, where present, ``tool_calls`` or
    ``tool_call_id``) and the client's system text."""
    system = "\n\n".join(m.text() for m in messages if m.role in ("system", "developer") and m.text()) or None
    convo: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        extra = m.model_extra or {}
        if m.role in ("system", "developer"):
            continue
        item: dict[str, Any] = {"role": m.role, "content": m.text()}
        if m.role == "user" and isinstance(m.content, list):
            item["images"] = _images(m.content, i)
        if m.role == "assistant" and extra.get("tool_calls"):
            item["tool_calls"] = _calls(extra["tool_calls"], i)
        if m.role == "tool":
            if not isinstance(extra.get("tool_call_id"), str) or not extra["tool_call_id"]:
                raise _bad(f"messages[{i}] (role 'tool') needs the 'tool_call_id' of the call it answers")
            item["tool_call_id"] = extra["tool_call_id"]
        convo.append(item)
    last = convo[-1] if convo else None
    if last is None or (last["role"] != "tool" and (last["role"] != "user"
                                                    or not (last["content"].strip() or last.get("images")))):
        raise _bad("the last message must be a non-empty user message, or the results of tool calls "
                   "(role 'tool')")
    return convo, system


def new_messages(convo: list[dict[str, Any]], session: bool) -> list[dict[str, Any]]:
    """What a turn adds: with a session, the messages after the client's last assistant message (it
    may resend the whole history or only the new question or tool results); without one, all of
    them, and every tool result must answer a call made before it."""
    if session:
        last_assistant = max((i for i, m in enumerate(convo) if m["role"] == "assistant"), default=-1)
        return convo[last_assistant + 1:]
    made: set[str] = set()
    for m in convo:
        made.update(c["id"] for c in m.get("tool_calls", ()))
        if m["role"] == "tool" and m["tool_call_id"] not in made:
            raise _bad(f"a tool result answers tool_call_id {m['tool_call_id']!r}, which no earlier assistant "
                       "message called; send the assistant message with its tool_calls before the results")
    return convo


__all__ = ["ChatMessage", "conversation", "new_messages"]
