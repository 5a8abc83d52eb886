"""Lists that run into the next passages keep all their items: an item's own indented paragraph
does not end its list, the search tool reads on after a passage (``after``), the local provider
asks it to when its answer quotes a list the passage cuts off, and joins the passages by their
offsets (``ragkit.rag.read_on``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.rag.agent import RAGAgent
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.rag.read_on import ends_in_list, stitched
from ragkit.rag.tool import CitationBook, make_search_tool
from ragkit.types import Citation, SearchHit

from .pipeline.helpers import make_spec, write_tree

STAGES = ["Drying", "Bisque firing", "Glazing", "Glaze firing"]
KILN = (
    "# Firing a Kiln\n\n"
    "Clay changes in the kiln, and the potter guides it through every change with care and patience.\n\n"
    "A pot goes through the kiln in four stages:\n\n"
    "1. **Drying:** the greenware rests on open shelves until no water is left in the clay body, which can "
    "take a week for thick pieces in a damp studio.\n\n"
    "    (Pieces dried too fast crack along their rims, so the shelves stay away from the heater.)\n\n"
    "2. **Bisque firing:** the dry ware is fired slowly to about nine hundred degrees, which drives out the "
    "bound water and leaves the pieces hard and porous.\n\n"
    "    (A slow climb through the first hours saves most of the cracked pieces a fast one would make.)\n\n"
    "3. **Glazing:** the bisque ware is dipped or brushed with glaze, and its foot is wiped clean so that "
    "it does not stick to the shelf.\n\n"
    "4. **Glaze firing:** the glazed ware is fired hotter, until the glaze melts into a smooth glassy coat "
    "that seals the clay.\n\n"
    "Afterwards the kiln cools for a full day before it is opened.\n"
)


def test_an_items_indented_paragraph_does_not_end_its_list() -> None:
    answer = extractive_answer("What are the four stages a pot goes through in the kiln?",
                               [Passage(1, KILN, {"source": "kiln.md"})])
    assert all(stage in answer for stage in STAGES), answer


def test_a_passage_that_stops_in_an_items_own_paragraph_stops_inside_its_list() -> None:
    """A list whose first item is followed by its own indented paragraph, then cut: the passage
    ends with that paragraph, and the list goes on in the next passage. Before, the draft quoted
    the first item alone."""
    cut = ("The `full` extra installs the following packages:\n\n- **`kelp-loop`** — a faster event loop.\n\n"
           "    When `kelp-loop` is installed, Skiff uses it by default.")
    assert ends_in_list(cut)
    assert not ends_in_list(cut.replace("\n    When", "\nWhen"))  # a paragraph of its own ends the list


def test_passages_are_joined_by_their_offsets() -> None:
    text = "Intro:\n\n1. One item.\n\n    An aside.\n\n2. The second item.\n\nAfter the list."

    def cite(n: int, source: str, start: int, end: int) -> Citation:
        return Citation(n, source, f"c{n}", start=start, end=end, text=text[start:end])

    a, b, c = text.index("An aside"), text.index("2. The"), text.index("After")
    first = cite(1, "a.md", 0, text.index("\n\n    An"))  # "Intro: ... One item."
    aside = cite(2, "a.md", a, a + len("An aside."))  # after a gap of a blank line and an indentation
    overlapping = cite(3, "a.md", a, b + len("2. The second item."))
    far = cite(4, "a.md", c, len(text))
    other = Citation(5, "b.md", "c5", start=first.end, end=a + 3, text="another file")
    assert ends_in_list(first.text) and not ends_in_list(far.text)
    assert stitched(first, [far, aside, other]) == text[: aside.end]
    assert stitched(first, [aside, overlapping]) == text[: overlapping.end]  # the shared text once
    assert stitched(first, [far]) == first.text  # a passage in between is missing: no joint
    assert stitched(Citation(9, "a.md", "c9", text="no offsets"), [aside]) == "no offsets"


def _kiln_base(tmp_path: Path) -> KnowledgeBase:
    spec = make_spec(tmp_path / "index", splitter={"type": "markdown", "unit": "chars", "chunk_size": 330,
                                                   "chunk_overlap": 0},
                     retriever={"type": "hybrid"}, lexical={"enabled": True})
    IndexingPipeline(spec).index_paths([write_tree(tmp_path / "docs", {
        "kiln.md": KILN, "glazes.md": "# Glazes\n\nA glaze is a thin coat of glass fused to the clay.\n"})])
    return KnowledgeBase(spec)


def test_the_search_tool_reads_on_after_a_passage(tmp_path: Path) -> None:
    with _kiln_base(tmp_path) as kb:
        tool = make_search_tool(kb)
        book = CitationBook()
        found = tool.invoke({"query": "four stages of the kiln", "top_k": 10}, context={"book": book}).output
        assert found is not None
        first = min((c for c in found.citations if c.source == "kiln.md"), key=lambda c: c.start or 0)
        more = tool.invoke({"query": "four stages of the kiln", "after": first.number},
                           context={"book": book}).output
        assert more is not None and more.citations
        starts = [c.start or 0 for c in more.citations]
        assert starts == sorted(starts) and all(c.source == "kiln.md" and (c.start or 0) > (first.start or 0)
                                                for c in more.citations)
        unknown = tool.invoke({"query": "kiln", "after": 99}, context={"book": book})
        assert unknown.is_error and "no passage [99]" in unknown.content
        # a passage without offsets has nothing after it: no passages, never an unfiltered search
        bare = book.number(SearchHit("no-offsets", 1.0, {"source": "kiln.md", "text": "A pot goes through"}))
        after_bare = tool.invoke({"query": "four stages of the kiln", "after": bare.number}, context={"book": book}).output
        assert after_bare is not None and after_bare.citations == []


def test_a_list_cut_between_passages_is_answered_whole(tmp_path: Path) -> None:
    with _kiln_base(tmp_path) as kb:
        chunks = [h.text for h in kb.search("kiln stages", k=20) if h.source == "kiln.md"]
        assert not any(all(stage in t for stage in STAGES) for t in chunks), "the list must run over several passages"
        result = RAGAgent(kb, provider="local").ask("What are the four stages a pot goes through in the kiln?")
    assert all(stage in result.content for stage in STAGES), result.content
    assert any(call.arguments.get("after") for call in result.tool_calls)


def test_a_paged_file_is_joined_only_where_the_overlap_is_the_same_text() -> None:
    """A PDF is several documents, each with offsets from 0: a passage of another section whose
    offsets follow the anchor's is not its continuation."""
    text = "Results:\n\n- The model wins on two sets.\n- It loses on one."
    first = Citation(1, "p.pdf", "c1", page=3, start=0, end=38, text=text[:38])
    other_section = Citation(2, "p.pdf", "c2", page=5, start=40, end=60, text="3 Method We introduce")
    wrong_overlap = Citation(3, "p.pdf", "c3", page=3, start=30, end=50, text="entirely other words")
    right_overlap = Citation(4, "p.pdf", "c4", page=3, start=30, end=len(text), text=text[30:])
    assert stitched(first, [other_section]) == first.text
    assert stitched(first, [wrong_overlap]) == first.text
    assert stitched(first, [right_overlap]) == text


def test_a_notebook_cell_is_joined_across_the_gap_between_its_chunks() -> None:
    """A notebook is one document whose cells are its pages: its offsets run through the file, so a
    list cut between two chunks of one cell (cited as cells 28 and 29) is joined across the gap."""
    text = "We offer three tide models:\n\n* `Harmonic` sums constituents.\n\n* `Surge` adds the wind.\n* `Mixed` does both."
    cut = text.index("\n\n* `Surge`")
    first = Citation(1, "tides.ipynb", "c1", page=28, page_unit="cell", start=0, end=cut, text=text[:cut])
    second = Citation(2, "tides.ipynb", "c2", page=29, page_unit="cell", start=cut + 2, end=len(text),
                      text=text[cut + 2:])
    assert stitched(first, [second]) == text
    assert stitched(replace(first, page_unit="page"), [second]) == first.text  # a PDF's page: never across a gap


def test_the_lead_of_a_list_is_joined_to_the_items_read_on_from_the_passage_after_it() -> None:
    """Search ranks the middle of a list first, the draft quotes it and reads on; the passage before
    it, with the list's lead and first item, is joined to it and to what was read on, so the list
    is answered whole from its lead."""
    from ragkit.messages import Message
    from ragkit.rag.local import _passages

    text = ("We offer three tide models:\n\n* `Harmonic` sums the constituents.\n* `Surge` adds the wind.\n"
            "* `Mixed` does both.\n\nEach model is fitted once.")
    a, b = text.index("* `Surge`"), text.index("* `Mixed`")

    def cite(n: int, start: int, end: int, source: str = "tides.md") -> Citation:
        return Citation(n, source, f"c{n}", start=start, end=end, score=0.5, text=text[start:end].strip())

    lead, middle, after = cite(2, 0, a - 1), cite(1, a, b - 1), cite(3, b, len(text))
    elsewhere = cite(4, 0, a - 1, source="other.md")
    found = Message(role="tool", content="", citations=[middle, lead, elsewhere])
    joined = {p.number: p.text for p in _passages(found, read_on=[after])}
    assert joined[2].startswith("We offer") and joined[2].endswith("fitted once.") and "`Surge`" in joined[2]
    assert joined[1].startswith("* `Surge`") and joined[1].endswith("fitted once.")
    assert joined[4] == elsewhere.text  # another file's passage is not joined
    answer = extractive_answer("Which tide models are offered?", _passages(found, read_on=[after]))
    assert all(name in answer for name in ("Harmonic", "Surge", "Mixed")), answer


def test_a_lead_that_ends_its_passage_is_quoted_to_read_on_not_answered_by_another_list() -> None:
    """The splitter ended a passage with "There are two major requirements …:"; its items are in
    the next passage, which search did not return. The answer quotes that lead (so the provider
    reads on for its items, as above), not another list of the page whose items score close."""
    from ragkit.rag.extractive.compose import compose
    from ragkit.rag.extractive.engine import _units
    from ragkit.rag.extractive.units import Candidate

    meta = {"source": "tides/README.md", "heading": "Harbour Tide Predictors"}
    passages = [
        Passage(1, "By definition an HTP is a tide predictor with properties that make it suitable for navigation. "
                   "There are two major requirements for a tide predictor to be an HTP:", {**meta, "start": "900"}),
        Passage(2, "Many designs have been proposed to construct HTP tables:\n\n* HTP based on harmonic models of the "
                   "tide constituents.\n* HTP based on special surveys of the harbour.", {**meta, "start": "1400"}),
    ]
    units = _units(passages)
    lead = next(u for u in units if u.text.startswith("There are two major"))
    item = next(u for u in units if u.text.startswith("HTP based on harmonic"))
    answer = compose([Candidate(0.7, lead, 0.7), Candidate(0.6, item, 0.3)], units, howto=False, list_wanted=True,
                     ordered=False, max_sentences=3)
    assert answer.startswith("There are two major requirements for a tide predictor to be an HTP: [1]"), answer
    assert "harmonic" not in answer
    # a lead whose list is in its own passage is answered with that list
    whole = [Passage(1, passages[0].text + "\n\n* It is right at every hour.\n* It is right at every harbour.",
                     passages[0].meta), passages[1]]
    units = _units(whole)
    lead = next(u for u in units if u.text.startswith("There are two major"))
    answer = compose([Candidate(0.7, lead, 0.7)], units, howto=False, list_wanted=True, ordered=False, max_sentences=3)
    assert "every hour" in answer and "every harbour" in answer, answer
