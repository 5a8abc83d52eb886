"""An acronym a document spells out ("compound annual growth rate (CAGR)") says its words
wherever the document writes it: a later sentence's "a CAGR of 6.2%" answers a question about
the "annual growth rate" (``extractive/acronyms.py``). Written for the shape of a market report
whose first paragraph defines the acronym and whose regional figures use it alone."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.acronyms import (
    MAX_ACRONYMS,
    WELL_KNOWN,
    acronyms_in,
    defined_acronyms,
    with_defined,
)
from ragkit.rag.passages import Passage


def test_an_acronym_is_defined_by_the_words_before_its_parenthesis() -> None:
    text = ("The global kombucha market is expected to grow at a compound annual growth rate (CAGR) of 4.1%. "
            "The World Wide Web Consortium (W3C) publishes it. See the notes (TODO).")
    defined = defined_acronyms(text)
    assert defined == {"CAGR": "compound annual growth rate", "W3C": "World Wide Web Consortium"}
    assert acronyms_in("with a CAGR of 7.3% from 2021", defined) == ["compound annual growth rate"]
    assert acronyms_in("a compound annual growth rate of 2%", defined) == ["CAGR"]
    assert acronyms_in("nothing here", defined) == []


def test_a_sentence_that_writes_only_the_acronym_answers_in_its_words() -> None:
    report = {"source": "Kombucha Market Report.docx", "start": "0"}
    passages = [
        Passage(1, "According to Brightline Research, the global kombucha market was valued at USD 2.4 billion in "
                   "2020 and is expected to grow at a compound annual growth rate (CAGR) of 4.1% from 2021 to 2028, "
                   "with demand rising in the Nordic countries.",
                report),
        Passage(2, "Nordic countries are among the fastest-growing regions for kombucha, with a CAGR of 7.3% "
                   "from 2021 to 2028. Demand is led by younger buyers.", {**report, "start": "400"}),
    ]
    answer = extractive_answer(
        "What annual growth rate is expected for kombucha in the Nordic countries between 2021 and 2028?", passages)
    assert "7.3%" in answer


def test_a_documents_acronyms_are_bounded() -> None:
    pairs = [(a, b) for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"][:MAX_ACRONYMS * 4]
    hostile = " ".join(f"{a}ord {b}ord ({a}{b})." for a, b in pairs)  # "Aord Bord (AB). Aord Cord (AC). …"
    assert len(defined_acronyms(hostile)) == MAX_ACRONYMS
    known = with_defined({}, hostile)
    assert len(with_defined(known, "Gamma Delta (GD)")) == MAX_ACRONYMS
    assert with_defined({"CAGR": "compound annual growth rate"}, "Gamma Delta (GD)") == {
        **WELL_KNOWN, "GD": "Gamma Delta", "CAGR": "compound annual growth rate"}


def test_a_well_known_acronym_is_read_as_its_document_spells_it() -> None:
    """CLI is a command line interface unless the document says it is something else."""
    assert with_defined({}, "Run it from a terminal.")["CLI"] == "command line interface"
    known = with_defined({}, "The Common Language Infrastructure (CLI) runs the assemblies.")
    assert known["CLI"] == "Common Language Infrastructure"
    assert acronyms_in("The CLI loads them.", known) == ["Common Language Infrastructure"]
