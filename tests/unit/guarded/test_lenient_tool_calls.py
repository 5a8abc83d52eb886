"""The lenient side of the text tool-call parser: what weak local models write instead of JSON is
repaired (strict JSON first), fenced JSON blocks naming an offered tool count, and hostile input
(a 20 MB line, deep nesting, thousands of markers) is read in bounded, linear work."""

from __future__ import annotations

import json

import pytest

from ragkit.agent import Agent
from ragkit.messages import Response
from ragkit.providers.openai import OllamaProvider
from ragkit.providers.text_tools import MAX_TEXT_CALLS, parse_tool_calls, repair_json, with_text_tool_calls
from ragkit.testing.servers import FakeOpenAIServer
from ragkit.tools import tool


@tool
def search(query: str, top_k: int = 5, exact: bool = False) -> str:
    """Search the documents.

    Args:
        query: What to look for.
        top_k: How many passages.
        exact: Exact phrase only.
    """
    return f"found {top_k} for {query}"


SPECS = [search.to_spec()]

MALFORMED = [
    ("trailing commas", 'TOOL_CALL: {"tool": "search", "parameters": {"query": "ferry", "top_k": 2,},}',
     {"query": "ferry", "top_k": 2}),
    ("single quotes", "TOOL_CALL: {'tool': 'search', 'parameters': {'query': \"it's the ferry\"}}",
     {"query": "it's the ferry"}),
    ("single quotes with an escaped quote and a double quote inside",
     "TOOL_CALL: {'tool': 'search', 'parameters': {'query': 'the \\'best\\' \"ferry\"'}}",
     {"query": "the 'best' \"ferry\""}),
    ("unquoted keys", 'TOOL_CALL: {tool: "search", parameters: {query: "ferry", top_k: 3}}',
     {"query": "ferry", "top_k": 3}),
    ("python literals", "TOOL_CALL: {'tool': 'search', 'parameters': {'query': 'ferry', 'exact': True}}",
     {"query": "ferry", "exact": True}),
    ("everything at once, fenced", "Let me look.\n```tool_call\n{tool: 'search', parameters: {query: 'ferry',},}\n```",
     {"query": "ferry"}),
    ("a fenced json block without the marker",
     'Let me check.\n```json\n{"tool": "search", "parameters": {"query": "ferry"}}\n```', {"query": "ferry"}),
    ("a fenced json block without the marker, malformed",
     "```json\n{name: 'search', arguments: {query: 'ferry', top_k: 1,}}\n```", {"query": "ferry", "top_k": 1}),
]


@pytest.mark.parametrize("case, text, arguments", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_calls_are_read(case: str, text: str, arguments: dict) -> None:
    parsed = parse_tool_calls(text, SPECS)
    [call] = parsed.calls
    assert call.parse_error is None and call.name == "search" and call.arguments == arguments
    assert "search" not in parsed.text and "```" not in parsed.text


def test_strict_json_comes_first_and_repair_leaves_json_unchanged() -> None:
    for valid in ['{"tool": "search", "parameters": {"query": "a, } ] True None \'x\' b: c"}}',
                  '[1, 2.5e3, -4, true, false, null, {"k": "v\\"w\\\\"}]', '{"a": {"b": [{}, []]}}']:
        assert repair_json(valid) == valid
        assert json.loads(repair_json(valid)) == json.loads(valid)


def test_what_cannot_be_repaired_is_refused_with_the_json_error() -> None:
    [call] = parse_tool_calls('TOOL_CALL: {"tool": "search", "parameters": {"query": }}', SPECS).calls
    assert call.parse_error.startswith("refused: the TOOL_CALL is not valid JSON")


def test_fenced_json_that_is_not_a_call_stays_the_answer() -> None:
    for answer in ['Here is the data:\n```json\n{"name": "ferry", "sails": "Tuesday"}\n```',
                   '```json\n{"tool": "delete_everything", "parameters": {}}\n```\nThat is what the document says.']:
        response = Response(content=answer)
        assert with_text_tool_calls(response, SPECS, []) is response


def hostile(size: int) -> None:
    """Each hostile shape of ``size`` characters is read (linear scans, bounded tries), not hung on."""
    assert parse_tool_calls("TOOL_CALL: {" + "a" * size, SPECS).calls == []  # one line that never closes
    spaces = "```json" + " " * (size // 4) + "x```" + "TOOL_CALL" + " " * (size // 4) + "!"  # long runs for regexes
    assert with_text_tool_calls(Response(content=spaces), SPECS, []).tool_calls == ()
    unclosed = "TOOL_CALL {" * (size // 200)  # each try is bounded, and so is the number of tries
    assert parse_tool_calls(unclosed, SPECS).calls == []
    assert repair_json("," * (size // 20) + "}").endswith("}")


def test_hostile_input_is_bounded() -> None:
    hostile(2_000_000)
    deep = "TOOL_CALL: " + "[" * 30_000 + "]" * 30_000
    [call] = parse_tool_calls(deep, SPECS).calls
    assert call.parse_error == "refused: the TOOL_CALL is nested too deeply"
    many = 'TOOL_CALL: {"tool": "search", "parameters": {"query": "x"}}\n' * 10_000
    assert len(parse_tool_calls(many, SPECS).calls) == MAX_TEXT_CALLS


@pytest.mark.slow
def test_a_20_mb_line_is_bounded() -> None:
    hostile(20_000_000)


def test_a_weak_model_behind_an_openai_compatible_server_calls_the_tool() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_text("TOOL_CALL: {tool: 'search', parameters: {query: 'ferry', top_k: 2,}}")
        server.enqueue_text("The ferry sails on Tuesdays.")
        provider = OllamaProvider(model="llama3.1", base_url=server.url, native_tools=False)
        result = Agent(provider, tools=[search]).run("When does the ferry sail?")
    assert result.content == "The ferry sails on Tuesdays."
    assert [(r.name, r.arguments, r.output) for r in result.tool_calls] == \
        [("search", {"query": "ferry", "top_k": 2}, "found 2 for ferry")]
    assert result.iterations == 2  # no round trip spent on the malformed call
