"""AgentResult.reasoning: the provider's reasoning content when it sends one, else the text before the calls."""

from __future__ import annotations

from ragkit.agent import Agent
from ragkit.providers.openai import OpenAIProvider
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.testing.servers import FakeOpenAIServer, JSONReply
from ragkit.tools import tool


@tool
def lookup(term: str) -> str:
    """Look up.

    Args:
        term: What.
    """
    return "found"


def completion(message: dict, finish: str) -> JSONReply:
    return JSONReply({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                      "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
                      "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}})


def test_reasoning_content_from_an_openai_compatible_server() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue(completion({"content": None, "reasoning_content": "The user wants a term; lookup has it.",
                                   "tool_calls": [{"id": "t1", "type": "function",
                                                   "function": {"name": "lookup", "arguments": '{"term": "x"}'}}]},
                                  "tool_calls"))
        server.enqueue(completion({"content": "It is found."}, "stop"))
        provider = OpenAIProvider(model="m", api_key="k", base_url=server.url)
        result = Agent(provider, tools=[lookup]).run("what is x?")
    assert result.reasoning == "The user wants a term; lookup has it." and result.content == "It is found."


def test_without_reasoning_content_the_text_before_the_calls_is_the_reasoning() -> None:
    provider = ScriptedProvider([tool_call_response(("lookup", {"term": "a"}), content="First I look up a."),
                                 tool_call_response(("lookup", {"term": "b"}), content="Then b."), "Done."])
    result = Agent(provider, tools=[lookup]).run("q")
    assert result.reasoning == "First I look up a.\n\nThen b."
    assert result.to_dict()["reasoning"] == result.reasoning
