"""The local provider's search within the file a draft answer cites adds passages; it never turns
the draft's answer into a refusal. The documents are small hand-written settings pages of the
shape a configuration reference has: one setting per section, "Default: …" under its name."""

from __future__ import annotations

import fnmatch
import glob

from ragkit.agent import Agent
from ragkit.rag.extractive import REFUSAL
from ragkit.rag.local import LocalProvider
from ragkit.rag.passages import format_passage
from ragkit.rag.prompts import PASSAGES_HEADER
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation

SETTINGS = "settings.rst"


def _setting(name: str, default: str, text: str) -> tuple[str, str, str]:
    return SETTINGS, f"Settings > Output options > {name}", f"#### {name}\n\nType: str\n\nDefault: {default}\n\n{text}"


# the first search: the setting asked about, its neighbour and another page
FIRST = {
    1: _setting("page_permalink_icon", "'§' (the section sign)",
                "Text for permalinks beside each heading and description block."),
    2: _setting("page_permalinks", "True", "Add permalinks beside each heading and description block."),
    3: ("themes.rst", "Themes", "Themes change how the output looks."),
}
# the rest of the settings page: many more settings, each about the permalinks of the output
FURTHER = {n: _setting(f"page_option_{n}", f"'{n}'", "Influences the permalink output of each heading.")
           for n in range(4, 24)}
CHUNKS = {**FIRST, **FURTHER}


@tool
def search_settings(query: str, top_k: int = 5, source: str | None = None) -> ToolOutput:
    """Search the knowledge base for passages relevant to the query; source limits it to matching files."""
    numbers = list(FIRST) if source is None else [n for n in CHUNKS if fnmatch.fnmatchcase(CHUNKS[n][0], source)]
    cites = [Citation(number=n, source=CHUNKS[n][0], chunk_id=f"s{n}", text=CHUNKS[n][2], score=1 - n / 100,
                      heading=CHUNKS[n][1]) for n in numbers[:top_k]]
    return ToolOutput(content=PASSAGES_HEADER + "\n\n" + "\n\n".join(format_passage(c) for c in cites), citations=cites)


def test_the_search_within_the_cited_file_does_not_withdraw_the_drafts_answer() -> None:
    """Before: the draft quoted "Default: '§'"; the settings page's other passages, all about the
    permalinks of the output, made every line of it weigh less, and the answer became a refusal."""
    run = Agent(LocalProvider(), tools=[search_settings]).run(
        "What symbol marks the permalink beside each heading in the output unless I change it?")
    calls = [c for m in run.messages if m.role == "assistant" for c in m.tool_calls]
    assert [c.arguments.get("source") for c in calls] == [None, SETTINGS]
    assert run.content != REFUSAL and "'§'" in run.content, run.content


# a short troubleshooting page cut at its headings: the first search finds its symptoms, the
# section that answers ("Cause") is not among the passages it returns
PAGE = "Stray nodes in the harbour console.md"
PAGE_CHUNKS = {
    1: (PAGE, "Stray nodes in the harbour console > Symptoms",
        "# Stray nodes in the harbour console\n\n## Symptoms\n\nYou may notice down berths named like "
        "\"berth:<id>\" in the harbour console."),
    2: ("Why did my berth restart.md", "Why did my berth restart", "A berth restarts when its host is patched."),
    3: (PAGE, "Stray nodes in the harbour console > Cause",
        "## Cause\n\nThis was a known issue with the mooring layer which added back the previously removed "
        "berths. This was fixed in 7.3"),
    4: (PAGE, "Stray nodes in the harbour console > Mitigation", "## Mitigation\n\nRemove the berth state."),
}


@tool
def search_pages(query: str, top_k: int = 5, source: str | None = None) -> ToolOutput:
    """Search the knowledge base for passages relevant to the query; source limits it to matching files."""
    numbers = [1, 2] if source is None else [n for n in PAGE_CHUNKS if fnmatch.fnmatchcase(PAGE_CHUNKS[n][0], source)]
    cites = [Citation(number=n, source=PAGE_CHUNKS[n][0], chunk_id=f"p{n}", text=PAGE_CHUNKS[n][2], score=1 - n / 100,
                      heading=PAGE_CHUNKS[n][1]) for n in numbers[:top_k]]
    return ToolOutput(content=PASSAGES_HEADER + "\n\n" + "\n\n".join(format_passage(c) for c in cites), citations=cites)


def test_after_a_refusal_the_first_ranked_page_is_searched_within() -> None:
    run = Agent(LocalProvider(), tools=[search_pages]).run(
        "The harbour console lists down berths that we removed long ago. From which release on is the bug that "
        "adds such berths back fixed?")
    calls = [c for m in run.messages if m.role == "assistant" for c in m.tool_calls]
    assert [c.arguments.get("source") for c in calls] == [None, glob.escape(PAGE)]
    assert "fixed in 7.3" in run.content and run.content.endswith("[3]"), run.content


def test_a_refusal_stands_when_the_page_does_not_answer() -> None:
    run = Agent(LocalProvider(), tools=[search_pages]).run("What does a berth licence cost per year?")
    assert run.content == REFUSAL
