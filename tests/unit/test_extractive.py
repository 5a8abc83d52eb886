"""The offline answerer reads the search tool's structured citations; the passage text format is
defined once (formatter and parser agree)."""

from __future__ import annotations

from ragkit.agent import Agent
from ragkit.providers.local import LocalProvider
from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.passages import Passage, format_passage, parse_passages
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation

CITES = [
    Citation(number=1, source="guide.md", chunk_id="c1", page=2, heading="Install > Linux", score=0.812,
             text="To install ragkit on Linux, run pip install ragkit in a virtual environment.\n[2] not a header"),
    Citation(number=2, source="ports.md", chunk_id="c2", score=0.41,
             text="The server listens on port 8080 by default. You can change the port with the --port flag."),
]


def test_formatted_passages_parse_back_to_the_citations_passages() -> None:
    text = "\n\n".join(format_passage(c) for c in CITES)
    parsed = [(p.number, p.text.strip(), p.meta) for p in parse_passages(text)]
    assert parsed == [(p.number, p.text, p.meta) for p in map(Passage.from_citation, CITES)]


def test_the_local_provider_answers_from_structured_citations_not_the_text() -> None:
    @tool
    def search_knowledge_base(query: str) -> ToolOutput:
        """Search the knowledge base for passages relevant to the query."""
        return ToolOutput(content="(passages attached)", citations=CITES)

    result = Agent(LocalProvider(), tools=[search_knowledge_base]).run("Which port does the server listen on?")
    assert result.content.startswith("The server listens on port 8080 by default. [2]")
    assert extractive_answer("Which port does the server listen on?", []) == REFUSAL
