"""The model parameters a request may carry, shared by ``/v1/chat/completions``,
``/v1/completions`` and ``/chat``: the OpenAI names, passed to the agent's ``AgentConfig`` (which
checks their bounds once, for the Python API and the server alike, and refuses ``n > 1`` and
``logprobs`` with a 400 naming the field), the client's ``tools`` (run by the client: a call of
one ends the response with ``finish_reason: "tool_calls"``), plus the served-agent design's
``system_prompt`` and ``trace``.

Every request body of the OpenAI routes is a ``WireModel``: ``null`` for a field that may be left
out means its default, as OpenAI takes it (clients send ``"stream": null``; litellm's embeddings
send ``"encoding_format": null``), and the OpenAPI schema says so."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

#: request fields that become ``AgentConfig`` fields under the same name
CONFIG_FIELDS = ("temperature", "top_p", "max_tokens", "stop", "seed", "presence_penalty", "frequency_penalty",
                 "user", "response_format", "tool_choice")
#: request fields ragkit refuses unless neutral (checked by the engine: ``ragkit.providers.params``)
REFUSABLE = ("n", "logprobs", "top_logprobs", "best_of", "echo", "suffix")


class WireModel(BaseModel):
    """A request body in which ``null`` for a field that has a default means that default."""

    @model_validator(mode="before")
    @classmethod
    def _null_is_default(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        return {k: v for k, v in data.items() if v is not None or k not in fields or fields[k].is_required()}

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        properties = target.get("properties", {})
        for name, field in cls.model_fields.items():
            prop = properties.get(name)
            if prop is None or field.is_required() or _nullable(prop):
                continue
            kept = {k: prop.pop(k) for k in ("default", "title", "description") if k in prop}
            properties[name] = {"anyOf": [prop, {"type": "null"}], **kept}
        return schema


def _nullable(prop: dict[str, Any]) -> bool:
    return prop.get("type") == "null" or any(p.get("type") == "null" for p in prop.get("anyOf", ()))


class ModelParams(WireModel):
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None  # OpenAI's newer name for max_tokens; wins when both are sent
    stop: str | list[str] | None = None
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    user: str | None = None
    n: int | None = None
    logprobs: bool | int | None = None
    top_logprobs: int | None = None
    response_format: dict[str, Any] | None = None
    tool_choice: str | dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = Field(None, max_length=128)  # client tools, beside the knowledge base's
    parallel_tool_calls: bool | None = None  # accepted: the model may call several tools in a turn either way
    system_prompt: str | None = Field(None, max_length=100_000)  # kept beside the RAG instructions
    trace: bool = False  # the run's trace inline in the response

    def config_changes(self) -> dict[str, Any]:
        """The ``AgentConfig`` fields this request sets."""
        changes = {name: getattr(self, name) for name in CONFIG_FIELDS if getattr(self, name) is not None}
        if self.max_completion_tokens is not None:
            changes["max_tokens"] = self.max_completion_tokens
        if self.tools:
            changes["client_tools"] = self.tools
        # tool_choice speaks of the client's tools: "none" offers none of them (the knowledge base
        # still answers), "required" means one of them must be called
        if self.tool_choice == "none":
            changes.pop("client_tools", None)
            changes.pop("tool_choice")
        elif self.tool_choice == "required" and self.tools:
            names = [t.get("function", {}).get("name") for t in self.tools if isinstance(t, dict)]
            changes["tool_choice"] = {"type": "allowed_tools", "allowed_tools": {
                "mode": "required", "tools": [{"type": "function", "function": {"name": n}} for n in names]}}
        return changes

    def refusable(self) -> dict[str, Any]:
        """The fields ragkit honours only with neutral values (``n=1``, ``logprobs=false``)."""
        return {name: getattr(self, name, None) for name in REFUSABLE if getattr(self, name, None) is not None}


__all__ = ["CONFIG_FIELDS", "REFUSABLE", "ModelParams", "WireModel"]
