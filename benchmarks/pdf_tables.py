"""PDF tables: which extractor, and whether a table's row is found.

``compare``: the candidate extractors on real tables, for the rows they get right, their time
per page and what they weigh installed. A row is right when one extracted row holds every
expected cell (numbers exactly, labels inside a cell). Candidates: ragkit's own reader
(``ragkit.loaders.pdf_tables``: pypdf's layout text, a core dependency), pdfplumber
(``find_tables``, ruled tables) and Camelot (lattice, then stream where lattice finds nothing);
a candidate that is not installed is reported as such. Run it in a scratch virtualenv that has
them all (they are not ragkit dependencies)::

    python -m venv /tmp/tables && /tmp/tables/bin/pip install -e . pdfplumber camelot-py
    PYTHONPATH=. /tmp/tables/bin/python benchmarks/pdf_tables.py compare --pdfs DIR --out benchmarks/results

``speed``: the PDF loader on text-only pages with and without table detection (the cost a folder
without tables pays), on the PDFs given and on a text-only PDF the script writes (fpdf2).

``retrieval``: the question set ``benchmarks/folders/pdftables.yaml``, or another given with
``--set`` (``pdftables2.yaml``: unseen while the reader was built; its ``files`` fetched into DIR): the folder is indexed with the default pipeline in
each of the pdf loader's table modes, one after the other in one run (tables read as rows with
their lines cut from the page text; read as rows beside the whole page text,
``keep_table_text: true``; ``tables: false``: each page one text), and each question is searched as
``ragkit search -k 3`` searches (``KnowledgeBase.search``, k=3), with the hybrid retriever's
``lexical_rank`` at its default (2) and off (0);
a question is met when a top-3 chunk of the expected file holds the row's label and the answer::

    python benchmarks/pdf_tables.py retrieval --pdfs DIR --out benchmarks/results

``junk``: the table rows the PDF loader emits over folders of papers (every ``*.pdf`` under each
folder given), and how many are junk: text of the page read as a table. The criterion, written
before it was run: a row is junk when

- *prose*: one of its cells is running text, :data:`JUNK_PROSE_WORDS` words or more, half or more
  of them starting with a lowercase letter (a line of a two-column page's other column), or
- *fragment header*: one of its column names is a piece of a sentence, ending in a colon (a
  lead-in cut off: "The transition matrix is:") or :data:`JUNK_HEADER_WORDS` words or more, half
  or more of them lowercase, or
- *math*: one of its cells or column names holds a lone "=" (an equation or a matrix "T =").

A paper's results table passes (labels, numbers, short headers); the junk rows found are listed
(``--examples``)::

    python benchmarks/pdf_tables.py junk FOLDER... [--examples 10]
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.render_tables import write_result  # noqa: E402

log = logging.getLogger("pdf_tables")
QUESTIONS = REPO / "benchmarks/folders/pdftables.yaml"
#: (file, page, expected rows): each row the cells one extracted row must hold. ``tune``: the
#: table libraries' own test files (ragkit's reader was tuned on them); ``other``: files from
#: elsewhere (Tabula's ICDAR 2013 and disclosure files, a docling paper page)
TRUTH: list[tuple[str, str, int, list[tuple[str, ...]]]] = [
    ("tune", "health.pdf", 1, [("Bihar", "21,016,708", "4,332,141", "5,329,000", "30,677,849", "2,251,571", "32,929,420"),
                               ("Kerala", "27,923,965", "3,985,473", "929,503", "32,838,941", "334,640", "33,173,581")]),
    ("tune", "budget.pdf", 1, [("Department of Posts", "286.70", "513.30", "800.00", "6907.76", "6912.76", "7712.76"),
                               ("Nuclear Power Schemes", "296.00", "674.00", "970.00", "739.59", "1709.59")]),
    ("tune", "good_energy.pdf", 1, [("London", "25.25", "54.69", "25.61", "19.46", "55.22", "8.17", "33.60"),
                                    ("East Midlands", "25.37", "58.40", "25.77", "19.41", "58.93", "7.84")]),
    ("other", "us-007.pdf", 2, [("Monthly", "175.00"), ("Quarterly", "525.00")]),
    ("other", "frx_2012_disclosure.pdf", 1, [("AALAEI, BEHZAD", "HIGHLAND, IN", "MEALS", "$51.24"),
                                                ("AARON, JOHN", "CLARKSVILLE, TN", "MEALS", "$20.39")]),
    ("other", "eu-002.pdf", 1, [("Self competence", "0,3791", "0,3320", "0,4617"),
                                   ("School climate", "-0,2976", "-0,1810", "-0,1012")]),
    ("other", "paper_otsl_pg9.pdf", 1, [("OTSL", "0.965", "0.934", "0.955", "0.88", "2.73"),
                                           ("HTML", "0.945", "0.901", "0.931", "0.834", "3.81")]),
]
_NUMBERISH = re.compile(r"[-+$(]?[\d.,]+%?\)?")
#: words a cell of running text has at least (``junk``)
JUNK_PROSE_WORDS = 8
#: words a column name that is a sentence fragment has at least (``junk``)
JUNK_HEADER_WORDS = 6


def _norm(cell: Any) -> str:
    return " ".join(str(cell or "").split())


def row_found(expected: Sequence[str], rows: Sequence[Sequence[Any]]) -> bool:
    """Whether one of ``rows`` holds every expected cell: a number as a cell of its own, a label
    inside a cell."""
    for row in rows:
        cells = [_norm(c) for c in row]
        if all(any(c == e for c in cells) if _NUMBERISH.fullmatch(e) else any(e in c for c in cells)
               for e in expected):
            return True
    return False


def _ragkit(path: Path, page: int) -> list[list[str]]:
    import pypdf

    from ragkit.loaders import pdf_tables

    reader = pypdf.PdfReader(path)
    p = reader.pages[page - 1]
    plain = p.extract_text() or ""
    if not pdf_tables.may_hold_table(plain):
        return []
    return [list(r) for t in pdf_tables.page_tables(p, plain, 60.0) for r in t.grid.rows]


def _pdfplumber(path: Path, page: int) -> list[list[str]]:
    import pdfplumber

    with pdfplumber.open(path, pages=[page]) as pdf:
        found = pdf.pages[0].extract_tables()  # ruled tables
        if not found:  # else the text-alignment strategy
            found = pdf.pages[0].extract_tables({"vertical_strategy": "text", "horizontal_strategy": "text"})
        return [list(r) for t in found for r in t]


def _camelot(path: Path, page: int) -> list[list[str]]:
    import camelot

    tables = camelot.read_pdf(str(path), pages=str(page), flavor="lattice")
    if not tables.n:
        tables = camelot.read_pdf(str(path), pages=str(page), flavor="stream")
    return [list(r) for t in tables for r in t.df.values.tolist()]


CANDIDATES: dict[str, tuple[str, Callable[[Path, int], list[list[str]]]]] = {
    "ragkit (pypdf layout text)": ("pypdf", _ragkit),
    "pdfplumber (lines, else text strategy)": ("pdfplumber", _pdfplumber),
    "Camelot (lattice, else stream)": ("camelot-py", _camelot),
}


def weight(dist: str, *, skip: frozenset[str] = frozenset()) -> tuple[float, int]:
    """(MB installed, distributions) of ``dist`` and everything it requires (extras left out),
    those in ``skip`` not counted."""
    seen: set[str] = set()
    todo = [dist]
    size = 0
    while todo:
        name = re.split(r"[ ;<>=!~\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if name in seen or name in skip:
            continue
        seen.add(name)
        try:
            d = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        size += sum((f.size or 0) for f in (d.files or []))
        todo += [r for r in (d.requires or []) if "extra ==" not in r]
    return size / 2**20, len(seen)


def compare(pdfs: Path, out: Path | None) -> list[list[Any]]:
    core = frozenset()  # what ragkit already installs is counted once, in ragkit's own line
    rows: list[list[Any]] = []
    for label, (dist, extract) in CANDIDATES.items():
        try:
            md.distribution(dist)
        except md.PackageNotFoundError:
            rows.append([label, None, None, None, None, None, "not installed"])
            continue
        found = {"tune": [0, 0], "other": [0, 0]}
        seconds: list[float] = []
        for split, name, page, expected in TRUTH:
            start = time.perf_counter()
            try:
                got = extract(pdfs / name, page)
            except Exception as exc:  # a candidate that fails on a file scores nothing on it
                log.warning("%s on %s: %s", label, name, exc)
                got = []
            seconds.append(time.perf_counter() - start)
            for row in expected:
                found[split][0] += row_found(row, got)
                found[split][1] += 1
            log.info("%s %s: %s", label, name, [row_found(r, got) for r in expected])
        mb, n = weight(dist, skip=core)
        rows.append([label, f"{found['tune'][0]}/{found['tune'][1]}", f"{found['other'][0]}/{found['other'][1]}",
                     round(sum(seconds) / len(seconds), 2), round(mb, 1), n,
                     "a ragkit dependency already" if dist == "pypdf" else ""])
    for r in rows:
        print(r)
    if out is not None:
        write_result("pdf-table-extractors", title="PDF table extractors: rows right, time per page, installed weight",
                     command="python benchmarks/pdf_tables.py compare --pdfs DIR",
                     columns=["extractor", "rows right (libraries' test files)", "rows right (other sources)",
                              "s/page", "installed MB (with its requirements)", "distributions", "note"],
                     rows=rows, align=["left", "right", "right", "right", "right", "right", "left"],
                     conditions={"pages": len(TRUTH), "rows": sum(len(t[3]) for t in TRUTH)}, directory=out)
    return rows


def _text_pdf(path: Path, pages: int) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    words = ("the keeper logged the tide and the wind at the station before dawn while the lamp "
             "turned and the gulls settled on the rocks of the northern shore").split()
    for p in range(pages):
        pdf.add_page()
        for line in range(40):
            text = " ".join(words[(p + line + k) % len(words)] for k in range(14))
            pdf.cell(0, 6, f"{text} in {1900 + line}." if line % 9 == 0 else text, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def speed(pdfs: Sequence[Path], rounds: int, out: Path | None) -> list[list[Any]]:
    from ragkit.loaders.pdf import PdfLoader

    with tempfile.TemporaryDirectory() as tmp:
        files = [*pdfs, _text_pdf(Path(tmp) / "text-only-40-pages.pdf", 40)]
        rows = []
        for path in files:
            timings = {}
            pages = 0
            for tables in (False, True):
                loader = PdfLoader(tables=tables)
                best = float("inf")
                for _ in range(rounds):
                    start = time.perf_counter()
                    docs = list(loader.load(path, source=path.name))
                    best = min(best, time.perf_counter() - start)
                pages = len({d.metadata["page"] for d in docs})
                timings[tables] = best
            rows.append([path.name, pages, round(timings[False] / pages * 1000, 2), round(timings[True] / pages * 1000, 2),
                         round(timings[True] / timings[False], 3)])
    for r in rows:
        print(r)
    if out is not None:
        write_result("pdf-tables-speed", title="The PDF loader with and without table detection (ms per page, best of rounds)",
                     command=f"python benchmarks/pdf_tables.py speed --rounds {rounds} PDF...",
                     columns=["file", "pages", "tables off ms/page", "tables on ms/page", "ratio"],
                     rows=rows, align=["left", "right", "right", "right", "right"], directory=out,
                     conditions={"rounds": rounds, "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg())})
    return rows


def _cli(*args: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "ragkit.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ragkit {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


#: the PDF loader's table modes the retrieval benchmark compares: (label, pdf loader options)
MODES: list[tuple[str, dict[str, bool]]] = [
    ("tables as rows, their lines cut from the page text", {"tables": True, "keep_table_text": False}),
    ("tables as rows beside the whole page text", {"tables": True, "keep_table_text": True}),
    ("tables off (page text only)", {"tables": False}),
]
#: the hybrid retriever's ``lexical_rank`` values each mode is searched with (the default first)
LEXICAL_RANKS = (2, 0)


def retrieval(pdfs: Path, out: Path | None, verbose: bool, question_set: Path = QUESTIONS) -> list[list[Any]]:
    """Each mode of ``MODES`` indexed in turn, each index searched with each of ``LEXICAL_RANKS``."""
    spec = yaml.safe_load(question_set.read_text(encoding="utf-8"))
    questions = spec["questions"]
    kinds = list(dict.fromkeys(q["kind"] for q in questions))
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        folder.mkdir()
        for name in spec["files"]:
            (folder / name).write_bytes((pdfs / name).read_bytes())
        by_rank: dict[int, list[list[Any]]] = {rank: [] for rank in LEXICAL_RANKS}
        for n, (label, options) in enumerate(MODES):
            label += " (default)" if _is_default(options) else ""
            index = str(Path(tmp) / f"index-{n}")
            start = time.perf_counter()
            _cli("index", str(folder), "-p", str(_pipeline(Path(tmp), n, index, options, None)), cwd=Path(tmp))
            index_s = round(time.perf_counter() - start, 1)
            for rank in LEXICAL_RANKS:
                met = _score(_pipeline(Path(tmp), n, index, options, rank), questions, f"{label}, lexical_rank {rank}",
                             verbose)
                total = [sum(v[0] for v in met.values()), sum(v[1] for v in met.values())]
                by_rank[rank].append([label, rank, *(f"{met[k][0]}/{met[k][1]}" for k in kinds),
                                      f"{total[0]}/{total[1]}", round(100 * total[0] / total[1], 1), index_s])
        rows = [row for rank in LEXICAL_RANKS for row in by_rank[rank]]
    for r in rows:
        print(r)
    if out is not None:
        default = question_set.resolve() == QUESTIONS
        write_result("pdf-tables-retrieval" if default else f"pdf-tables-retrieval-{question_set.stem}",
                     title="Table questions on real PDFs: the row's chunk in `ragkit search` top 3",
                     command="python benchmarks/pdf_tables.py retrieval --pdfs DIR"
                             + ("" if default else f" --set {question_set.relative_to(REPO)}"),
                     columns=["PDF loader", "lexical_rank", *kinds, "all", "% in top 3",
                              f"index s ({len(spec['files'])} files)"],
                     rows=rows, align=["left"] + ["right"] * (len(kinds) + 4), directory=out,
                     conditions={"questions": len(questions), "set": str(question_set.relative_to(REPO)),
                                 "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg())})
    return rows


def _is_default(options: dict[str, bool]) -> bool:
    """Whether ``options`` are the pdf loader's defaults."""
    from ragkit.loaders.pdf import PdfLoader

    return all(PdfLoader.option_defaults[k] == v for k, v in options.items())


def _pipeline(tmp: Path, n: int, index: str, options: dict[str, bool], lexical_rank: int | None) -> Path:
    """A pipeline file: the default pipeline with the pdf loader's ``options`` (and the default
    retriever with ``lexical_rank`` when given)."""
    from ragkit.config import DEFAULT_RETRIEVER

    conf: dict[str, Any] = {"version": 1, "name": "pdftables", "index": index,
                            "loaders": {".pdf": {"type": "pdf", **options}}}
    if lexical_rank is not None:
        conf["retriever"] = {**DEFAULT_RETRIEVER, "lexical_rank": lexical_rank}
    path = tmp / f"pipeline-{n}-{lexical_rank}.yaml"
    path.write_text(yaml.safe_dump(conf), encoding="utf-8")
    return path


def _score(pipeline: Path, questions: list[dict[str, Any]], label: str, verbose: bool) -> dict[str, list[int]]:
    """{kind: [met, asked]}: each question searched as ``ragkit search -k 3`` searches."""
    from ragkit.config import load_pipeline
    from ragkit.index.reader import KnowledgeBase

    met: dict[str, list[int]] = {}
    with KnowledgeBase(load_pipeline(pipeline)) as kb:
        found = {q["question"]: kb.search(q["question"], k=3) for q in questions}
    for q in questions:
        ok = any(Path(h.source).name == q["source"] and _holds(h.text, q) for h in found[q["question"]])
        met.setdefault(q["kind"], [0, 0])
        met[q["kind"]][0] += ok
        met[q["kind"]][1] += 1
        if verbose and not ok:
            log.info("[%s] missed: %s", label, q["question"])
    return met


def _holds(text: str, q: dict[str, Any]) -> bool:
    flat = " ".join(text.split()).lower()
    return str(q["answer"]).lower() in flat and " ".join(str(q["row"]).split()).lower() in flat


def junk_reasons(text: str) -> list[str]:
    """Why a table row's document (``table: NAME`` and ``column: value`` lines) is junk (the
    ``junk`` criterion in the module docstring); [] for a row that reads as a table's."""
    reasons: list[str] = []
    for line in text.splitlines()[1:]:
        name, _, value = line.partition(": ")
        if _running_text(value, JUNK_PROSE_WORDS):
            reasons.append("prose")
        if not re.fullmatch(r"column \d+", name) and (name.endswith(":") or _running_text(name, JUNK_HEADER_WORDS)):
            reasons.append("fragment header")
        if "=" in name.split() or "=" in value.split():
            reasons.append("math")
    return sorted(set(reasons))


def _running_text(text: str, words: int) -> bool:
    tokens = text.split()
    return len(tokens) >= words and 2 * sum(t[0].islower() for t in tokens) >= len(tokens)


def junk(folders: Sequence[Path], examples: int) -> list[list[Any]]:
    """Per folder: files, table rows emitted, junk rows (by reason), clean rows; junk examples logged."""
    from ragkit.errors import LoaderError
    from ragkit.loaders.pdf import PdfLoader

    rows: list[list[Any]] = []
    for folder in folders:
        files = sorted(folder.rglob("*.pdf"))
        counts: dict[str, int] = {"rows": 0, "junk": 0, "prose": 0, "fragment header": 0, "math": 0}
        shown = 0
        for path in files:
            try:
                docs = list(PdfLoader().load(path, source=path.name))
            except LoaderError as exc:
                log.warning("%s skipped: %s", path, exc)
                continue
            for doc in docs:
                if not doc.metadata.get("table"):
                    continue
                counts["rows"] += 1
                reasons = junk_reasons(doc.text)
                counts["junk"] += bool(reasons)
                for r in reasons:
                    counts[r] += 1
                if reasons and shown < examples:
                    shown += 1
                    print(f"--- {path.name} p{doc.metadata.get('page')} {reasons}\n{doc.text[:400]}")
        rows.append([str(folder), len(files), counts["rows"], counts["junk"], counts["prose"],
                     counts["fragment header"], counts["math"], counts["rows"] - counts["junk"]])
    print("folder, files, rows, junk, prose, fragment header, math, clean")
    for r in rows:
        print(r)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["compare", "speed", "retrieval", "junk"])
    parser.add_argument("files", nargs="*", type=Path, help="speed: the PDFs to time (a text-only one is added); junk: folders of papers")
    parser.add_argument("--pdfs", type=Path, help="the folder holding the PDFs named in TRUTH / pdftables.yaml")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--set", type=Path, default=QUESTIONS, dest="question_set",
                        help="retrieval: the question set (default benchmarks/folders/pdftables.yaml)")
    parser.add_argument("--out", type=Path, help="write the result JSON into this folder (benchmarks/results)")
    parser.add_argument("--examples", type=int, default=10, help="junk: junk rows to print")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_intermixed_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    if args.what == "compare":
        compare(args.pdfs, args.out)
    elif args.what == "junk":
        junk(args.files, args.examples)
    elif args.what == "speed":
        speed(args.files, args.rounds, args.out)
    else:
        retrieval(args.pdfs, args.out, args.verbose, args.question_set.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
