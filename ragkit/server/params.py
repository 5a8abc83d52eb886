"""The model parameters a request may carry, shared by ``/v1/chat/completions``,
``/v1/completions`` and ``/chat``: the OpenAI names, passed to the agent's ``AgentConfig`` (which
checks their bounds once, for the Python API and the server alike, and refuses ``n > 1`` and
``logprobs`` with a 400 naming the field), the client's ``tools`` (run by the client: a call of
one ends the response with ``finish_reason: "tool_calls"``), plus the served-agent design's
``system_prompt`` and ``trace``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

#: request fields that become ``AgentConfig`` fields under the same name
CONFIG_FIELDS = ("temperature", "top_p", "max_tokens", "stop", "seed", "presence_penalty", "frequency_penalty",
                 "user", "response_format", "tool_choice")
#: request fields ragkit refuses unless neutral (checked by the engine: ``ragkit.providers.params``)
REFUSABLE = ("n", "logprobs", "top_logprobs", "best_of", "echo", "suffix")


class ModelParams(BaseModel):
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


__all__ = ["CONFIG_FIELDS", "REFUSABLE", "ModelParams"]
