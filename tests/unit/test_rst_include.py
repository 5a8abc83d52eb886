"""reStructuredText's ``include``: resolved inside the documentation folder, bounded, each case
from a Sphinx folder written for it (a usage page whose option table lives in an ``.rst.inc``)."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.limits import DEFAULT_LIMITS, MB
from ragkit.loaders.rst_include import resolve_includes
from ragkit.registry import loaders

BUDGET = int(DEFAULT_LIMITS.max_included_mb * MB)

PAGE = """\
.. include:: trim.rst.inc

Examples
~~~~~~~~

Run ``kiln trim --dry-run`` first.
"""

INC = """\
.. _kiln_trim:

kiln trim
---------

Options
    ``--keep-weekly N``   number of weekly snapshots to keep

Description
~~~~~~~~~~~

Trim removes old snapshots. Disk space is freed only after ``kiln sweep`` runs.
"""


def _sphinx(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "usage").mkdir(parents=True)
    (docs / "conf.py").write_text("project = 'kiln'\n")
    (docs / "index.rst").write_text("Kiln\n====\n")
    (docs / "usage" / "trim.rst").write_text(PAGE)
    (docs / "usage" / "trim.rst.inc").write_text(INC)
    return docs


def _text(path: Path) -> str:
    return "\n".join(d.text for d in loaders.get("rst")().load(path, source=path.name))


def test_an_included_file_is_read_where_the_directive_stands(tmp_path: Path) -> None:
    docs = _sphinx(tmp_path)
    text = _text(docs / "usage" / "trim.rst")
    assert "kiln sweep" in text and "--keep-weekly N" in text
    assert text.index("Trim removes old snapshots") < text.index("dry-run")
    assert "include::" not in text


def test_a_path_from_the_source_folder_and_a_selected_part(tmp_path: Path) -> None:
    docs = _sphinx(tmp_path)
    (docs / "shared.txt").write_text("intro\n.. start\nKiln needs Python 3.11.\n.. end\noutro\n")
    page = docs / "usage" / "install.rst"
    page.write_text("Install\n=======\n\n.. include:: /shared.txt\n   :start-after: .. start\n   :end-before: .. end\n")
    text = _text(page)
    assert "Python 3.11" in text and "intro" not in text and "outro" not in text


def test_an_include_outside_the_folder_is_dropped(tmp_path: Path) -> None:
    docs = _sphinx(tmp_path)
    (tmp_path / "secret.txt").write_text("TOKEN=hunter2\n")
    page = docs / "usage" / "leak.rst"
    page.write_text("Leak\n====\n\n.. include:: ../../secret.txt\n\n.. include:: /../secret.txt\n\n"
                    ".. include:: <isonum.txt>\n\nText stays.\n")
    text = _text(page)
    assert "hunter2" not in text and "Text stays." in text


def test_a_file_that_includes_itself_is_read_once(tmp_path: Path) -> None:
    docs = _sphinx(tmp_path)
    (docs / "a.rst.inc").write_text("Alpha line.\n\n.. include:: b.rst.inc\n")
    (docs / "b.rst.inc").write_text("Beta line.\n\n.. include:: a.rst.inc\n")
    page = docs / "loop.rst"
    page.write_text("Loop\n====\n\n.. include:: a.rst.inc\n")
    out = resolve_includes(page.read_text(), page, budget=BUDGET)
    assert out.count("Alpha line.") == 1 and out.count("Beta line.") == 1


def test_includes_of_one_document_are_bounded_together(tmp_path: Path) -> None:
    docs = _sphinx(tmp_path)
    (docs / "big.rst.inc").write_text(("word " * 20 + "\n") * 2000)  # about 200 KB
    page = docs / "many.rst"
    page.write_text("Many\n====\n\n" + ".. include:: big.rst.inc\n\n" * 1000)
    out = resolve_includes(page.read_text(), page, budget=BUDGET)
    assert len(out) <= BUDGET + len(page.read_text())


def test_without_a_sphinx_folder_the_files_own_folder_bounds_it(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "outside.rst").write_text("Outside text.\n")
    (tmp_path / "notes" / "part.rst").write_text("Inside text.\n")
    page = tmp_path / "notes" / "page.rst"
    page.write_text("Page\n====\n\n.. include:: part.rst\n\n.. include:: ../outside.rst\n")
    out = resolve_includes(page.read_text(), page, budget=BUDGET)
    assert "Inside text." in out and "Outside text." not in out


def test_a_literal_include_is_a_literal_block(tmp_path: Path) -> None:
    docs = _sphinx(tmp_path)
    (docs / "example.cfg").write_text("[kiln]\nkeep = 7\n")
    page = docs / "config.rst"
    page.write_text("Config\n======\n\nAn example:\n\n.. include:: example.cfg\n   :literal:\n")
    text = _text(page)
    assert "keep = 7" in text


def test_an_included_fragment_on_its_own_is_read_as_restructuredtext(tmp_path: Path) -> None:
    from ragkit.loaders.base import loader_name_for

    assert loader_name_for(Path("usage/trim.rst.inc")) == "rst"
    assert loader_name_for(Path("src/table.inc"), {".inc": "text"}) == "text"  # the pipeline's mapping wins
    docs = _sphinx(tmp_path)
    text = _text(docs / "usage" / "trim.rst.inc")
    assert "kiln sweep" in text and ".. _kiln_trim:" not in text


def test_indexing_a_sphinx_folder_reads_fragments_where_pages_include_them(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from ragkit.cli.main import cli

    docs = _sphinx(tmp_path)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.rst.inc").write_text("Notes\n=====\n\nOutside Sphinx a fragment is a document.\n")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), str(tmp_path / "plain"), "--pipeline", str(pipe), "--json"],
                             catch_exceptions=False)
    report = json.loads(run.stdout)
    assert run.exit_code == 0 and report["skipped"] == []
    added = sorted(report["added"])
    assert not any(name.endswith("trim.rst.inc") for name in added), added  # read inside usage/trim.rst
    assert any(name.endswith("notes.rst.inc") for name in added), added
    hits = json.loads(CliRunner().invoke(cli, ["search", "kiln sweep disk space", "--index", str(tmp_path / "index"),
                                               "-k", "1", "--json"]).stdout)
    assert hits[0]["source"].endswith("usage/trim.rst") and "kiln sweep" in hits[0]["text"]


def test_a_hostile_include_line_is_read_in_one_pass(tmp_path: Path) -> None:
    page = tmp_path / "page.rst"
    text = "Page\n====\n\n.. include:: a" + " " * 200_000 + "b\n   :start-after:" + " " * 200_000 + "x\n"
    out = resolve_includes(text, page, budget=BUDGET)  # a quadratic pattern would take minutes here
    assert "include::" not in out and out.startswith("Page")


def test_a_changed_fragment_reads_its_page_again(tmp_path: Path) -> None:
    """The page's own bytes are the same; its text is not: the index hashes a page with what it
    includes, so the run updates the page (mdBook's includes the same way)."""
    import json

    from click.testing import CliRunner

    from ragkit.cli.main import cli

    docs = _sphinx(tmp_path)
    book = tmp_path / "book"
    (book / "listings").mkdir(parents=True)
    (book / "book.toml").write_text("[book]\ntitle = 'Kiln'\n")
    (book / "listings" / "trim.sh").write_text("kiln trim --keep-weekly 4\n")
    (book / "chapter.md").write_text("# Trimming\n\nRun:\n\n```sh\n{{#include listings/trim.sh}}\n```\n")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}}), encoding="utf-8")

    def run() -> dict:
        out = CliRunner().invoke(cli, ["index", str(docs), str(book), "--pipeline", str(pipe), "--json"],
                                 catch_exceptions=False)
        return json.loads(out.stdout)

    def top(query: str) -> str:
        out = CliRunner().invoke(cli, ["search", query, "--index", str(tmp_path / "index"), "-k", "1", "--json"])
        return json.loads(out.stdout)[0]["text"]

    run()
    assert run()["updated"] == []  # nothing changed: nothing read again
    (docs / "usage" / "trim.rst.inc").write_text(INC.replace("kiln sweep", "kiln vacuum"))
    (book / "listings" / "trim.sh").write_text("kiln trim --keep-weekly 9\n")
    report = run()
    assert sorted(n.rsplit("/", 1)[-1] for n in report["updated"]) == ["chapter.md", "trim.rst", "trim.sh"], report
    assert "kiln vacuum" in top("disk space freed after kiln vacuum")
    assert "--keep-weekly 9" in top("kiln trim keep weekly")


def test_a_page_gives_the_files_it_includes_with_the_bytes_it_read(tmp_path: Path) -> None:
    """What the indexer hashes a page with: each included file and the bytes the loader read of
    it (not read again), so the hash is of the text the page was built from."""
    docs = _sphinx(tmp_path)
    loader = loaders.get("rst")()
    inc = docs / "usage" / "trim.rst.inc"
    assert loader.included_files(docs / "usage" / "trim.rst") == [(inc, inc.read_bytes())]
    assert loader.included_files(inc) == []  # a fragment includes nothing
    # the page's bytes the indexer read already are what is looked through, not the file again
    page = docs / "usage" / "trim.rst"
    assert loader.included_files(page, b"Trim\n====\n\nNo includes here.\n") == []
    assert loader.included_files(docs / "usage" / "copy.rst", page.read_bytes()) == [(inc, inc.read_bytes())]
