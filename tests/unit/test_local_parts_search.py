"""The local provider searches each part of two questions asked as one on its own: the whole
question's search ranks the passages of the part most of its words ask, and the other part's
passage may be none of them; a part the whole question's passages do not answer reads those of its
own search. The documents are a small hand-written sensor page: one section on its measuring
modes, one on its settings."""

from __future__ import annotations

from ragkit.agent import Agent
from ragkit.rag.local import PARTS, LocalProvider
from ragkit.rag.passages import format_passage
from ragkit.rag.prompts import PASSAGES_HEADER
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation

CHUNKS = {
    1: ("sensors/kelp4x.md", "Kelp4x > Measuring modes",
        "## Measuring modes\n\nIn the slow periodic mode the Kelp41 takes a new reading every 30 seconds. In the "
        "fast periodic mode it takes one every 5 seconds."),
    2: ("sensors/kelp4x.md", "Kelp4x > Settings",
        "## Settings\n\n- address (Optional, int): The bus address of the sensor. Defaults to 0x62.\n- mode "
        "(Optional, string): The measuring mode."),
    3: ("sensors/tide.md", "Tide > Measuring", "## Measuring\n\nThe Tide sensor takes a reading when it is asked."),
}


@tool
def search_sensors(query: str, top_k: int = 5) -> ToolOutput:
    """Search the knowledge base for passages relevant to the query."""
    asks_address = "address" in query.lower() and "often" not in query.lower()
    numbers = [2] if asks_address else [1, 3]  # a whole question's words rank the modes' passage alone
    cites = [Citation(number=n, source=CHUNKS[n][0], chunk_id=f"c{n}", text=CHUNKS[n][2], score=1 - n / 100,
                      heading=CHUNKS[n][1]) for n in numbers[:top_k]]
    return ToolOutput(content=PASSAGES_HEADER + "\n\n" + "\n\n".join(format_passage(c) for c in cites), citations=cites)


def test_each_part_of_a_two_part_question_is_searched_alone() -> None:
    run = Agent(LocalProvider(), tools=[search_sensors]).run(
        "How often does the Kelp41 take a reading in the slow periodic mode, and what is the sensor's bus address?")
    queries = [c.arguments for m in run.messages if m.role == "assistant" for c in m.tool_calls]
    assert [q.get("top_k") for q in queries[1:3]] == [PARTS, PARTS]
    assert "bus address" in queries[2]["query"] and "often" not in queries[2]["query"]
    assert "0x62" in run.content and "30 seconds" in run.content, run.content


def test_a_question_that_asks_one_thing_is_searched_once() -> None:
    run = Agent(LocalProvider(), tools=[search_sensors]).run("How often does the Kelp41 take a reading in the slow "
                                                                 "periodic mode?")
    calls = [c for m in run.messages if m.role == "assistant" for c in m.tool_calls]
    assert len(calls) == 1 and "30 seconds" in run.content, run.content


def test_the_parts_results_are_read_by_their_part_whatever_their_order() -> None:
    question = "How often does the Kelp41 take a reading in the slow periodic mode, and what is the sensor's bus address?"
    run = Agent(LocalProvider(), tools=[search_sensors]).run(question)
    tools = [m for m in run.messages if m.role == "tool"]
    first, parts = run.messages[:3], [m for m in tools if "_part" in (m.tool_call_id or "")]
    asked = next(m for m in run.messages if m.role == "assistant" and len(m.tool_calls) == 2)
    swapped = [*first, asked, *reversed(parts)]  # a client may return the two results in either order
    answer = LocalProvider().complete(swapped, tools=[search_sensors.to_spec()]).content
    assert "0x62" in answer and "30 seconds" in answer, answer
