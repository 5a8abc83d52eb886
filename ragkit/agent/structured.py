"""Structured output: an answer that must be JSON (``json_object``) or match a JSON schema
(``json_schema``), from ``Agent.run(..., response_format=...)`` or ``AgentConfig.response_format``.

``OutputFormat.of`` accepts a pydantic model class (validated by pydantic; ``AgentResult.parsed`` is
an instance), a JSON schema dict, or OpenAI's own ``{"type": "json_object"}`` /
``{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}``.

A provider that declares ``native_response_format = True`` (OpenAI and compatible servers, Cohere,
the ``local`` provider) gets the format as its ``response_format`` parameter; any other provider
gets the schema as an instruction beside the system prompt (for that call only; nothing is
stored). Every final answer is checked either way (compatible servers may ignore the parameter):
an invalid one goes back to the model with what is wrong, up to ``MAX_OUTPUT_RETRIES`` times, then
the run ends with ``stop_reason="invalid_output"`` and ``parsed=None``. So that an answer can still
go back, a streaming run holds the final answer's text until it is checked and then emits it in
one piece.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ragkit.messages import Message
from ragkit.providers.params import ParamError, resolve_refs
from ragkit.providers.text_tools import schema_errors

MAX_OUTPUT_RETRIES = 2
_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class OutputFormat:
    kind: str  # "json_object" | "json_schema"
    name: str = "response"
    schema: dict[str, Any] | None = None
    strict: bool | None = None
    model: Any = None  # a pydantic model class, when the format came from one

    @classmethod
    def of(cls, value: Any) -> OutputFormat | None:
        """The format for any accepted spelling (None and ``{"type": "text"}``: no format)."""
        if value is None or isinstance(value, OutputFormat):
            return value
        if isinstance(value, type) and hasattr(value, "model_json_schema") and hasattr(value, "model_validate"):
            return cls("json_schema", value.__name__, value.model_json_schema(), None, value)
        if not isinstance(value, dict):
            raise ParamError("response_format", f"response_format must be a pydantic model class, a JSON schema or OpenAI's "
                              f"{{'type': 'json_object' | 'json_schema', ...}} (got {type(value).__name__})")
        kind = value.get("type")
        if kind == "text":
            return None
        if kind == "json_object":
            return cls("json_object")
        if kind == "json_schema":
            spec = value.get("json_schema")
            if not isinstance(spec, dict) or not isinstance(spec.get("schema", {}), dict):
                raise ParamError("response_format", "response_format of type 'json_schema' needs 'json_schema': "
                                  "{'name': ..., 'schema': {...}, 'strict': true}")
            name = spec.get("name") or "response"
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
                raise ParamError("response_format", f"response_format.json_schema.name must be 1-64 letters, digits, _ or - "
                                  f"(got {name!r})")
            return cls("json_schema", name, dict(spec.get("schema") or {}), spec.get("strict"))
        if kind in (None, "object") and ("properties" in value or kind == "object"):
            return cls("json_schema", str(value.get("title") or "response"), dict(value), None)
        raise ParamError("response_format", f"response_format type must be 'text', 'json_object' or 'json_schema' (got {kind!r})")

    def wire(self) -> dict[str, Any]:
        """OpenAI's ``response_format`` request field for this format."""
        if self.kind == "json_object":
            return {"type": "json_object"}
        spec: dict[str, Any] = {"name": self.name, "schema": self.schema or {}}
        if self.strict is not None:
            spec["strict"] = self.strict
        return {"type": "json_schema", "json_schema": spec}

    def instructions(self) -> str:
        """What a model without native structured output is told (beside the system prompt)."""
        text = ("Write your final answer as one JSON object and nothing else: no text before or after it, "
                "no code fence.")
        if self.kind == "json_schema":
            text += f" It must match this JSON schema:\n{json.dumps(self.schema, ensure_ascii=False)}"
        return text

    def check(self, text: str) -> tuple[Any, str | None]:
        """``(parsed, None)`` for a valid answer, else ``(None, what is wrong)``."""
        body = text.strip()
        fenced = _FENCE.match(body)
        if fenced:
            body = fenced.group(1).strip()
        try:
            value = json.loads(body)
        except json.JSONDecodeError as exc:
            return None, f"the answer is not valid JSON ({exc.msg} at position {exc.pos})"
        if self.kind == "json_object":
            return (value, None) if isinstance(value, dict) else (None, "the answer must be a JSON object")
        if self.model is not None:
            try:
                return self.model.model_validate(value), None
            except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError, named in the message
                errors = getattr(exc, "errors", lambda: [])()
                what = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ())) or 'value'}: {e.get('msg')}"
                                 for e in errors[:5]) or str(exc)
                return None, f"the answer does not match the schema: {what}"
        problems = schema_errors(value, resolve_refs(self.schema or {}), "")
        return (value, None) if not problems else (None, f"the answer does not match the schema: "
                                                         f"{'; '.join(problems[:5])}")

    def retry_message(self, error: str) -> Message:
        """The user message that sends an invalid answer back."""
        return Message(role="user", content=f"{error}. {self.instructions()}")


def with_instructions(messages: list[Message], fmt: OutputFormat) -> list[Message]:
    """The call's messages with the format's instructions added to the system prompt."""
    text = fmt.instructions()
    if messages and messages[0].role == "system":
        first = messages[0]
        return [Message(role="system", content=f"{first.content}\n\n{text}"), *messages[1:]]
    return [Message(role="system", content=text), *messages]


def is_native(provider: Any) -> bool:
    return bool(getattr(provider, "native_response_format", False))


__all__ = ["MAX_OUTPUT_RETRIES", "OutputFormat", "is_native", "with_instructions"]
