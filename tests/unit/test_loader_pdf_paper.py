"""A paper as a PDF (``ragkit.loaders.pdf_paper``): its title from the largest font when the PDF's
metadata title is a producer's placeholder, its byline as ``authors`` metadata, and its reference
list kept but marked ``references`` (to the end, or to an appendix); then weighed down in search
(``ragkit.retrieval.back_matter``) and in answers, and a "who wrote" question answered from the
metadata of any retrieved passage of the paper."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.loaders.pdf import _clean
from ragkit.loaders.pdf_paper import byline, largest_font_text, references_start
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.retrieval.back_matter import demote_back_matter
from ragkit.types import Document, SearchHit

BODY = ("The lighthouse keeper records the lamp's rotation every evening. " * 6).strip()
REFERENCES = ["[1] A. Turing. On computable numbers. Proc. London Math. Soc., 1936.",
              "[2] L. Lamport. The part-time parliament. ACM TOCS, 1998.",
              "[3] B. Liskov. Viewstamped replication revisited. MIT, 2012."]


def paper_pdf(path: Path, *, pages: list[list[tuple[int, str]]], metadata_title: str | None = None) -> Path:
    """A PDF whose pages are lists of (font size, line) written top-down."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    if metadata_title:
        pdf.set_title(metadata_title)
    for lines in pages:
        pdf.add_page()
        for size, line in lines:
            pdf.set_font("Helvetica", size=size)
            pdf.multi_cell(0, size * 0.6, line)
            pdf.ln(1)
    pdf.output(str(path))
    return path


FRONT = [(20, "Lamp Rotation in Coastal Lighthouses"), (12, "Ada Lovelace and Charles Babbage"),
         (11, "University of London"), (11, "ada@example.org"), (12, "Abstract"), (10, BODY)]


def load(path: Path) -> list[Document]:
    return list(loaders.get("pdf")().load(path, source=path.name))


def test_a_placeholder_metadata_title_gives_way_to_the_largest_font_and_the_byline_becomes_authors(
        tmp_path: Path) -> None:
    docs = load(paper_pdf(tmp_path / "lamps.pdf", pages=[FRONT, [(10, BODY)]],
                          metadata_title="Microsoft Word - draft3.doc"))
    assert [d.metadata["title"] for d in docs] == ["Lamp Rotation in Coastal Lighthouses"] * 2
    assert all(d.metadata["authors"] == "Ada Lovelace, Charles Babbage" for d in docs)  # not the university
    # a real metadata title is kept; no reference list: nothing marked
    docs = load(paper_pdf(tmp_path / "kept.pdf", pages=[FRONT], metadata_title="Lamp Rotation in Coastal Lighthouses"))
    assert docs[0].metadata["title"] == "Lamp Rotation in Coastal Lighthouses"
    assert "references" not in docs[0].metadata


def test_the_reference_list_is_kept_and_marked_to_the_end_or_an_appendix(tmp_path: Path) -> None:
    body = [(10, BODY), (10, "Related work references many systems [1, 2].")]
    refs = [(12, "References"), *[(9, r) for r in REFERENCES]]
    docs = load(paper_pdf(tmp_path / "paper.pdf", pages=[FRONT, body + refs, [(9, REFERENCES[0])],
                                                          [(12, "A Appendix: proofs"), (10, BODY)]]))
    shape = [(d.metadata["page"], bool(d.metadata.get("references"))) for d in docs]
    assert shape == [(1, False), (2, False), (2, True), (3, True), (4, False)]
    body_part, ref_part = docs[1], docs[2]
    assert "Related work references" in body_part.text and "Turing" not in body_part.text  # prose mentioning them
    assert ref_part.text.startswith("References") and "Turing" in ref_part.text
    assert ref_part.metadata["heading"] == "References"
    assert docs[3].metadata["references"] is True and "Appendix" in docs[4].text


def test_what_is_not_a_reference_list_or_a_name() -> None:
    # a "References" line followed by prose, not entries, is a section about references
    assert references_start(["Intro text.", "References\nWe discuss how pointers refer to objects in memory."]) is None
    assert references_start(["Intro text.", "Body.\nREFERENCES\n1. Dolev, D. Byzantine generals. 1982.\n"
                                            "2. Lynch, N. Distributed algorithms. 1996."]) == (1, 6)
    page = "Paxos Made Simple\nLeslie Lamport\n01 Nov 2001\nAbstract\nThe Paxos algorithm is simple."
    assert byline(page, "Paxos Made Simple") == "Leslie Lamport"
    assert byline("A Title Here\nGoogle Inc.\n{a,b}@google.com\nAbstract", "A Title Here") is None
    # drop caps and one-word logos are not titles; the first run of the largest real font is
    assert largest_font_text([(40, 700, "W"), (18, 690, "Wait-free"), (18, 680, "Coordination"),
                              (10, 600, "Body text here and more of it"), (18, 200, "Figure label text")], 792) == \
        "Wait-free Coordination"


def hit(n: int, *, references: bool = False) -> SearchHit:
    meta = {"source": "p.pdf", "page": n, "text": f"text {n}", **({"references": True} if references else {})}
    return SearchHit(id=f"c{n}", score=1.0 - n / 100, metadata=meta)


def test_reference_list_hits_move_down_but_stay() -> None:
    hits = [hit(1, references=True), hit(2), hit(3), hit(4, references=True), hit(5), hit(6)]
    assert [h.id for h in demote_back_matter(hits, 5)] == ["c2", "c3", "c1", "c5", "c6"]
    assert [h.id for h in demote_back_matter([hit(1, references=True)], 5)] == ["c1"]  # the only match stays
    plain = [hit(n) for n in range(1, 8)]
    assert demote_back_matter(plain, 5) == plain[:5]  # no marks: exactly the retriever's order


def test_who_wrote_is_answered_from_the_authors_metadata_and_reference_entries_weigh_less() -> None:
    meta = {"source": "raft.pdf", "document_title": "In Search of an Understandable Consensus Algorithm",
            "authors": "Diego Ongaro, John Ousterhout"}
    found = [
        Passage(1, "[29] OUSTERHOUT, J., AGRAWAL, P. The case for RAMCloud. Commun. ACM (2011).",
                {**meta, "page": "17", "start": "1022", "references": "yes"}),
        Passage(2, "Raft is a consensus algorithm for managing a replicated log.", {**meta, "page": "3", "start": "40"}),
    ]
    got = extractive_answer("Who wrote the Raft paper?", found)
    assert "Diego Ongaro, John Ousterhout" in got and "RAMCloud" not in got
    without = [Passage(p.number, p.text, {k: v for k, v in p.meta.items() if k != "authors"}) for p in found]
    assert "Diego Ongaro" not in extractive_answer("Who wrote the Raft paper?", without)


def test_search_shows_a_pdf_page_as_citations_do_and_ranks_the_reference_list_below_the_body(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from ragkit.cli.main import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    refs = [(12, "References"), (9, "[1] K. Keeper. Lamp rotation in coastal lighthouses. 1901."),
            (9, "[2] R. Keeper. Lamp rotation records of coastal lighthouses. 1902.")]
    paper_pdf(docs / "lamps.pdf", pages=[FRONT, [(10, "The lamp rotation of coastal lighthouses is logged hourly.")],
                                         refs])
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"], catch_exceptions=False)
    assert run.exit_code == 0, run.output
    query = ["search", "lamp rotation coastal lighthouses", "--index", str(tmp_path / "index")]
    hits = json.loads(CliRunner().invoke(cli, [*query, "-k", "3", "--json"]).stdout)
    assert [h["page"] for h in hits][-1] == 3 and hits[-1]["references"] is True  # listed, last
    assert hits[-1]["authors"] == "Ada Lovelace, Charles Babbage"
    shown = CliRunner().invoke(cli, [*query, "-k", "1"]).stdout
    assert "lamps.pdf  p. " in shown  # the page as Citation.location(short=True) writes it


def test_a_proceedings_cover_page_is_passed_over_for_the_papers_title_and_byline(tmp_path: Path) -> None:
    cover = [(20, "Lighthouse Association"), (12, "Proceedings of the 2nd Conference on Coastal Lights"),
             (11, "Harbour Town, March 31 - April 2, 2003"), (10, "Rights to individual papers remain with the author.")]
    docs = load(paper_pdf(tmp_path / "lamps.pdf", pages=[cover, FRONT, [(10, BODY)]], metadata_title="lights03_footers_PDF"))
    assert {d.metadata["title"] for d in docs} == {"Lamp Rotation in Coastal Lighthouses"}  # not the file's name
    assert {d.metadata["authors"] for d in docs} == {"Ada Lovelace, Charles Babbage"}


def test_a_spreadsheet_file_name_is_a_placeholder_title() -> None:
    from ragkit.loaders.pdf_paper import document_title

    fragments = [(20.0, 700.0, "Good Energy SVT"), (10.0, 600.0, "Tariff rates for every region of the country")]
    assert document_title("DOM Pricing Model 5% increase - approved.xlsm", fragments, 800.0) == "Good Energy SVT"


def test_a_ligature_glyph_written_by_its_name_reads_as_its_letters() -> None:
    """pypdf writes a ligature glyph that has no Unicode map by its glyph name ("Meng /Q_u",
    "speci/f_ic", "/T_he"): the page text reads the letters, so the first author's name is in
    the byline and "specific" is a word."""
    page = ("Tidal Gauges of the Northern Bays\nWen /Q_uill\nHarbour Institute\nAda Hale\nHarbour Institute\n"
            "ABSTRACT\n/T_he speci/f_ic pa/t_terns of the bay.")
    text = _clean(page)
    assert "Wen Quill" in text and "The specific patterns" in text
    assert byline(text, "Tidal Gauges of the Northern Bays") == "Wen Quill, Ada Hale"
    assert _clean("see /usr/share and a/b") == "see /usr/share and a/b"
