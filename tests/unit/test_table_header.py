"""A chunk cut from a long Markdown table's middle keeps the header row that labels its cells:
the splitter records it (``table_header``), the citation carries it, and the answerer labels the
rows the passage opens with ("Default Model: …"), as it does when the header is in the passage.
Written for the shape of a tool's page listing each provider's default model in a long table."""

from __future__ import annotations

from ragkit.markdown_tables import HEADER_CHARS, table_bodies
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.splitters import MarkdownSplitter, RecursiveSplitter
from ragkit.types import Citation, Document, SearchHit

_PROVIDERS = [("harbourhub", "hh/pilot-3"), ("tidewell", "tw/marlin-large"), ("kelpnet", "kelp/stormbird-7b"),
              ("saltmesh", "sm/ferry-mini")]
_ROWS = "".join(f"| {name} | {model} |\n" for name, model in _PROVIDERS * 6)
_PAGE = ("# Models\n\nEvery provider has a default model.\n\n| Provider | Default Model |\n| --- | :---: |\n"
         + _ROWS + "\nAfter the table, a paragraph.\n")


def test_table_bodies_find_each_tables_rows_under_its_header() -> None:
    text = "Prose with a | pipe.\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nNot | a header\n| --- | --- |\n| 5 | 6 |\n"
    bodies = table_bodies(text)
    assert [(text[b.start:b.end], b.header) for b in bodies] == [("| 1 | 2 |\n| 3 | 4 |", "| a | b |")]
    assert table_bodies("no table here") == []
    assert table_bodies("| " + "x" * HEADER_CHARS + " | y |\n| --- | --- |\n| 1 | 2 |\n") == []  # a header that long is prose


def test_a_chunk_starting_inside_a_table_records_its_header_row() -> None:
    for splitter in (MarkdownSplitter(chunk_size=160, chunk_overlap=0, unit="chars"),
                     RecursiveSplitter(chunk_size=160, chunk_overlap=0, unit="chars")):
        chunks = splitter.split(Document(_PAGE, {"source": "models.md", "mime": "text/markdown"}))
        inside = [c for c in chunks if c.text.startswith("| ") and "Default Model" not in c.text]
        assert inside, [c.text for c in chunks]
        assert all(c.metadata["table_header"] == "| Provider | Default Model |" for c in inside)
        opening = [c for c in chunks if "Default Model" in c.text or not c.text.startswith("|")]
        assert all("table_header" not in c.metadata for c in opening)


def test_the_citation_and_passage_carry_the_header_row() -> None:
    hit = SearchHit("c1", 0.5, {"source": "models.md", "text": "| kelpnet | kelp/stormbird-7b |",
                                "table_header": "| Provider | Default Model |"})
    passage = Passage.from_citation(Citation.from_hit(1, hit))
    assert passage.meta["table_header"] == "| Provider | Default Model |"


def test_the_rows_a_passage_opens_with_are_labelled_by_the_header_another_chunk_holds() -> None:
    passages = [
        Passage(1, "# Choosing a model\n\nEvery provider has a default model, used when the `--model` option is not "
                   "given. You can change the default model of a provider in `models.toml`.",
                {"source": "guide/models.md", "heading": "Models > Choosing a model"}),
        Passage(2, "".join(f"| {name} | {model} |\n" for name, model in _PROVIDERS).strip(),
                {"source": "guide/models.md", "heading": "Models > Providers", "table_header": "| Provider | Default Model |"}),
    ]
    answer = extractive_answer("What is the default model for the kelpnet provider?", passages)
    assert answer.startswith("Provider: kelpnet; Default Model: kelp/stormbird-7b [2]"), answer
    assert "Every provider" not in answer
