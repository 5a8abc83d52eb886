"""Agent frameworks using a real `ragkit serve` as their chat model: LangChain's ``ChatOpenAI``
(invoke, stream, ``with_structured_output``, ``bind_tools`` with a client tool round trip) and
litellm (stream and not, with a client tool)."""

from __future__ import annotations

import os

import pytest
from pydantic import BaseModel, Field

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
QUESTION = "When does the ferry sail?"
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm must not fetch its price list


class FerryAnswer(BaseModel):
    """The answer about the ferry."""

    answer: str = Field(description="the answer, with [n] citations")
    sources: list[str] = Field(description="the sources cited")


def chat_model(server, **kw):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="ragkit", base_url=server.base_url, api_key="no-key-configured", max_retries=0, **kw)


def test_langchain_invoke_and_stream(local_server) -> None:
    llm = chat_model(local_server)
    message = llm.invoke(QUESTION)
    assert "Tuesdays" in message.content and message.response_metadata["finish_reason"] == "stop"
    assert message.usage_metadata["input_tokens"] > 0 and message.usage_metadata["output_tokens"] > 0
    chunks = list(chat_model(local_server, stream_usage=True).stream(QUESTION))
    assert "".join(c.content for c in chunks) == message.content
    assert sum(c.usage_metadata["output_tokens"] for c in chunks if c.usage_metadata) > 0


def test_langchain_parameters_reach_the_answer(local_server) -> None:
    cut = chat_model(local_server, max_tokens=3, temperature=0.2).invoke(QUESTION)
    assert cut.response_metadata["finish_reason"] == "length" and len(cut.content) <= 12


def test_langchain_with_structured_output(local_server) -> None:
    structured = chat_model(local_server).with_structured_output(FerryAnswer)
    result = structured.invoke(QUESTION)
    assert isinstance(result, FerryAnswer)
    assert "Tuesdays" in result.answer and result.sources == ["notes/gamma.txt"]
    raw = chat_model(local_server).with_structured_output(FerryAnswer, method="json_mode", include_raw=True)
    out = raw.invoke(QUESTION)
    assert out["parsing_error"] is None and "Tuesdays" in out["parsed"].answer


def test_litellm_stream_and_not(local_server) -> None:
    import litellm

    kw = {"model": "openai/ragkit", "api_base": local_server.base_url, "api_key": "no-key-configured"}
    messages = [{"role": "user", "content": QUESTION}]
    full = litellm.completion(messages=messages, **kw)
    assert "Tuesdays" in full.choices[0].message.content and full.choices[0].finish_reason == "stop"
    assert full.usage.prompt_tokens > 0
    parts = [c.choices[0].delta.content or "" for c in litellm.completion(messages=messages, stream=True, **kw)]
    assert "".join(parts) == full.choices[0].message.content
