"""Loaders: each format on generated input, and every kind of bad input."""

from __future__ import annotations

import builtins
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders import base
from ragkit.loaders.base import Loader, check_file, loader_name_for, read_text
from ragkit.registry import loaders
from ragkit.types import Document

MB = 1024 * 1024


def load(name: str, path: Path, **options: Any) -> list[Document]:
    return list(loaders.get(name)(**options).load(path, source=f"sub/{path.name}"))


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def assert_names(err: LoaderError, path: Path, reason: str) -> None:
    assert str(path) in str(err)
    assert err.path == str(path)
    assert reason in (err.reason or "")


# ---------------------------------------------------------------- registry and options


@pytest.mark.parametrize("name", ["text", "markdown", "pdf", "html", "docx", "jsonl", "csv", "tsv", "xlsx", "rst",
                                  "notebook", "pptx", "epub", "eml", "mbox"])
def test_every_builtin_loader_is_registered_under_its_name(name: str) -> None:
    cls = loaders.get(name)
    assert issubclass(cls, Loader)
    assert cls.name == name


def test_unknown_option_names_the_option_and_the_allowed_ones() -> None:
    with pytest.raises(ConfigError) as info:
        loaders.get("jsonl")(text_feild="body")
    msg = str(info.value)
    assert "'text_feild'" in msg and "text_field" in msg and "metadata_fields" in msg


def test_loader_without_options_says_so() -> None:
    with pytest.raises(ConfigError, match="takes no options"):
        loaders.get("text")(encoding="latin-1")


def test_metadata_fields_must_be_a_list() -> None:
    with pytest.raises(ConfigError, match="metadata_fields must be a list"):
        loaders.get("csv")(metadata_fields="author")


# ---------------------------------------------------------------- loader_name_for


def test_loader_name_for_defaults_and_overrides() -> None:
    assert loader_name_for(Path("a/b.MD")) == "markdown"
    assert loader_name_for(Path("x.htm")) == "html"
    assert loader_name_for(Path("x.jsonl")) == "jsonl"
    assert loader_name_for(Path("x.log"), {".log": "text"}) == "text"
    assert loader_name_for(Path("x.LOG"), {"log": "text"}) == "text"
    assert loader_name_for(Path("x.md"), {".md": "text"}) == "text"


def test_unknown_extension_goes_to_unstructured_only_when_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(base, "unstructured_available", lambda: True)
    assert loader_name_for(Path("x.xyz")) == "unstructured"
    monkeypatch.setattr(base, "unstructured_available", lambda: False)
    assert loader_name_for(Path("x.xyz")) is None


# ---------------------------------------------------------------- check_file


def test_check_file_accepts_a_normal_file(tmp_path: Path) -> None:
    check_file(write(tmp_path, "ok.txt", "hello"), max_bytes=MB)


def test_broken_symlink(tmp_path: Path) -> None:
    link = tmp_path / "dangling.txt"
    link.symlink_to(tmp_path / "missing.txt")
    with pytest.raises(LoaderError) as info:
        check_file(link, max_bytes=MB)
    assert_names(info.value, link, "broken symlink")
    assert "missing.txt" in str(info.value)


def test_directory_is_not_a_regular_file(tmp_path: Path) -> None:
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    with pytest.raises(LoaderError) as info:
        check_file(folder, max_bytes=MB)
    assert_names(info.value, folder, "not a regular file")


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "secret.txt", "classified")
    if os.geteuid() == 0:  # root reads anything: simulate the denial for this one path
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != path and real_access(p, mode))
    else:
        path.chmod(0)
    try:
        with pytest.raises(LoaderError) as info:
            check_file(path, max_bytes=MB)
    finally:
        path.chmod(0o644)
    assert_names(info.value, path, "permission denied")


def test_permission_denied_on_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "locked.txt", "classified")
    real_open = builtins.open

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    with pytest.raises(LoaderError) as info:
        check_file(path, max_bytes=MB)
    assert_names(info.value, path, "permission denied")


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.md", b"")
    with pytest.raises(LoaderError) as info:
        check_file(path, max_bytes=MB)
    assert_names(info.value, path, "empty file")


def test_oversize_file_names_size_limit_and_setting(tmp_path: Path) -> None:
    path = write(tmp_path, "big.txt", "x" * 2000)
    with pytest.raises(LoaderError) as info:
        check_file(path, max_bytes=1000)
    assert_names(info.value, path, "file too large")
    msg = str(info.value)
    assert "2,000 bytes" in msg and "1,000 bytes" in msg and "sources.max_file_size_mb" in msg


# ---------------------------------------------------------------- read_text


def test_read_text_strips_bom_and_normalises_newlines(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.txt", "\ufeffline one\r\nline two\r\n".encode())
    assert read_text(path) == "line one\nline two\n"


def test_read_text_accepts_utf16_with_bom(tmp_path: Path) -> None:
    path = write(tmp_path, "wide.txt", "Skerrow – 1887".encode("utf-16"))
    assert read_text(path) == "Skerrow – 1887"


def test_binary_file_with_txt_extension(tmp_path: Path) -> None:
    path = write(tmp_path, "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(LoaderError) as info:
        load("text", path)
    assert_names(info.value, path, "binary file")


def test_undecodable_text_names_the_offset_and_the_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "latin.txt", "café au lait".encode("latin-1"))
    with pytest.raises(LoaderError) as info:
        load("text", path)
    assert_names(info.value, path, "undecodable text")
    assert "byte offset 3" in str(info.value) and "0xe9" in str(info.value)
    assert "UTF-8" in str(info.value)


def test_whitespace_only_text_is_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "blank.txt", "  \n\t\n")
    with pytest.raises(LoaderError) as info:
        load("text", path)
    assert_names(info.value, path, "empty file")


# ---------------------------------------------------------------- text and markdown


def test_text_loader_metadata(tmp_path: Path) -> None:
    [doc] = load("text", write(tmp_path, "notes.txt", "The ferry sails on Tuesdays.\n"))
    assert doc.text == "The ferry sails on Tuesdays.\n"
    assert doc.metadata == {"source": "sub/notes.txt", "mime": "text/plain", "title": "notes"}


def test_text_loader_reads_a_typewriters_overstrikes_as_the_characters_shown(tmp_path: Path) -> None:
    """nroff's output (Postfix's README files) writes a bold letter as the letter, a backspace and
    the letter again, an underlined one after an underscore and a backspace: the text is the
    letters shown, so "Ferry Timetable" is found by its words. Before: "F\\bFe\\ber…" as written."""
    bold = "".join(f"{c}\b{c}" if c != " " else c for c in "Ferry Timetable")
    underlined = "".join(f"_\b{c}" for c in "Tuesdays")
    [doc] = load("text", write(tmp_path, "FERRY_README", f"{bold}\n\nThe ferry sails on {underlined}.\n"))
    assert doc.text == "Ferry Timetable\n\nThe ferry sails on Tuesdays.\n"


def test_markdown_title_from_front_matter_which_is_stripped(tmp_path: Path) -> None:
    text = "---\ntitle: Tide Tables\ntags: [sea]\n---\n\n# Heading One\n\nBody text.\n"
    [doc] = load("markdown", write(tmp_path, "tides.md", text))
    assert doc.metadata == {"source": "sub/tides.md", "mime": "text/markdown", "title": "Tide Tables"}
    assert doc.text == "# Heading One\n\nBody text.\n"


def test_markdown_title_from_first_h1_or_stem(tmp_path: Path) -> None:
    [doc] = load("markdown", write(tmp_path, "a.md", "Intro line\n\n## Sub\n\n# The Real Title #\n"))
    assert doc.metadata["title"] == "The Real Title"
    [doc] = load("markdown", write(tmp_path, "no-heading.md", "just text\n"))
    assert doc.metadata["title"] == "no-heading"


def test_markdown_invalid_front_matter_is_ignored_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        [doc] = load("markdown", write(tmp_path, "bad.md", "---\ntitle: [unclosed\n---\n# H\n"))
    assert doc.text == "# H\n" and doc.metadata["title"] == "H"
    assert "front matter" in caplog.text


def test_markdown_front_matter_with_a_tab_after_a_value_is_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    text = "---\n# menu title\ntitle: \"Shift Swaps\"\nweight: 8\t\n---\n\nBody text.\n"
    with caplog.at_level(logging.WARNING):
        [doc] = load("markdown", write(tmp_path, "swaps.md", text))
    assert doc.metadata["title"] == "Shift Swaps" and doc.text == "Body text.\n"
    assert "front matter" not in caplog.text


def test_markdown_with_only_front_matter_is_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "fm.md", "---\ntitle: Nothing\n---\n\n")
    with pytest.raises(LoaderError) as info:
        load("markdown", path)
    assert_names(info.value, path, "empty file")


# ---------------------------------------------------------------- html


def test_html_keeps_visible_text_title_and_paragraphs(tmp_path: Path) -> None:
    html = """<html><head><title> Visitor   Centre </title><style>p{color:red}</style></head>
    <body><nav>Home | Contact</nav><script>var secret = 1;</script>
    <h1>Welcome</h1><p>Open from
    April to <b>October</b>.</p><p>Line one<br>line two</p>
    <table><tr><th>Ticket</th><th>Price</th></tr><tr><td>Adult</td><td>6.50</td></tr></table>
    </body></html>"""
    doc, row = load("html", write(tmp_path, "page.html", html))
    assert doc.metadata == {"source": "sub/page.html", "mime": "text/html", "title": "Visitor Centre"}
    assert doc.text == "Welcome\n\nOpen from April to October.\n\nLine one\nline two"
    assert row.text == "table: Welcome\nTicket: Adult\nPrice: 6.50"  # the table's rows: documents of their own
    for dropped in ("secret", "Home", "color"):
        assert dropped not in doc.text


def test_html_with_one_main_element_is_read_from_it(tmp_path: Path) -> None:
    body = "The lighthouse at Alpha Point was built in 1871 and its lamp turns twice a minute. " * 4
    html = ("<html><head><title>Alpha Point</title></head><body><a href='#c'>Jump to content</a>"
            "<header><form><input name=q>Search</form><div>15 languages</div></header>"
            f"<main id=c><h1>Alpha Point</h1><p>{body}</p></main><footer>Privacy policy</footer></body></html>")
    [doc] = load("html", write(tmp_path, "page.html", html))
    assert doc.text == f"Alpha Point\n\n{body.strip()}" and doc.metadata["title"] == "Alpha Point"
    # a main element with little text is not where the page's text is
    [doc] = load("html", write(tmp_path, "short.html", f"<main>Menu</main><div><p>{body}</p></div>"))
    assert doc.text == f"Menu\n\n{body.strip()}"


def test_html_pre_keeps_its_lines(tmp_path: Path) -> None:
    """A man page's table of values in a ``<pre>``: one value and its meaning per line, not one
    run-on line of every value."""
    html = ("<h1>tide_set_mode</h1><p>The possible modes are:\n<pre>\n  TIDE_MODE_FULL   Enable every correction\n"
            "  TIDE_MODE_NONE   Disable every correction\r\n  TIDE_MODE_LUNAR  Lunar term only\n</pre>"
            "Each call\nreplaces the last.</p>")
    [doc] = load("html", write(tmp_path, "mode.html", html))
    assert doc.text == ("tide_set_mode\n\nThe possible modes are:\n\nTIDE_MODE_FULL Enable every correction\n"
                        "TIDE_MODE_NONE Disable every correction\nTIDE_MODE_LUNAR Lunar term only\n\nEach call replaces the last.")


def test_html_title_falls_back_to_h1(tmp_path: Path) -> None:
    [doc] = load("html", write(tmp_path, "x.htm", "<h1>Gull Haven</h1><p>text</p>"))
    assert doc.metadata["title"] == "Gull Haven"


def test_html_without_visible_text_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "script.html", "<html><script>alert(1)</script></html>")
    with pytest.raises(LoaderError) as info:
        load("html", path)
    assert_names(info.value, path, "empty file")


# ---------------------------------------------------------------- jsonl and csv


def jsonl(rows: list[Any]) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n"


def test_jsonl_one_document_per_row_with_id_and_metadata(tmp_path: Path) -> None:
    rows = [
        {"id": 7, "body": "First passage.", "lang": "en", "skip": "x"},
        "",
        {"id": "b", "body": "Second passage.", "lang": "de"},
    ]
    path = write(tmp_path, "rows.jsonl", jsonl(rows))
    docs = load("jsonl", path, text_field="body", id_field="id", metadata_fields=["lang"])
    assert [d.text for d in docs] == ["First passage.", "Second passage."]
    assert docs[0].metadata == {
        "source": "sub/rows.jsonl", "mime": "application/jsonl", "row": 0, "record_id": "7", "lang": "en",
    }  # fmt: skip
    assert docs[1].metadata["row"] == 1 and docs[1].metadata["record_id"] == "b"


def test_jsonl_row_without_text_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(tmp_path, "some.jsonl", jsonl([{"text": "kept"}, {"title": "no text"}, {"text": ""}]))
    with caplog.at_level(logging.WARNING):
        docs = load("jsonl", path)
    assert [d.text for d in docs] == ["kept"]
    assert "record 1" in caplog.text and "record 2" in caplog.text


def test_jsonl_where_no_row_has_the_field_names_field_and_fields_present(tmp_path: Path) -> None:
    path = write(tmp_path, "none.jsonl", jsonl([{"body": "a", "id": 1}, {"body": "b"}]))
    with pytest.raises(LoaderError) as info:
        load("jsonl", path)
    assert_names(info.value, path, "missing text field 'text'")
    assert "fields present: body, id" in str(info.value)


def test_malformed_jsonl_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.jsonl", jsonl([{"text": "ok"}, "", '{"text": "unterminated']))
    with pytest.raises(LoaderError) as info:
        load("jsonl", path)
    assert_names(info.value, path, "malformed JSON on line 3")


def test_jsonl_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "list.jsonl", jsonl([{"text": "ok"}, [1, 2]]))
    with pytest.raises(LoaderError) as info:
        load("jsonl", path)
    assert_names(info.value, path, "not a JSON object on line 2")


def test_csv_rows_become_documents(tmp_path: Path) -> None:
    path = write(
        tmp_path, "facts.csv", 'id,text,author\n1,Puffins nest here.,Ana\n2,,Ben\n3,"Seals, pups.",Cy\n'
    )
    docs = load("csv", path, id_field="id", metadata_fields=["author"])
    assert [d.text for d in docs] == ["Puffins nest here.", "Seals, pups."]
    assert docs[1].metadata == {
        "source": "sub/facts.csv", "mime": "text/csv", "row": 2, "record_id": "3", "author": "Cy",
    }  # fmt: skip


def test_csv_with_a_missing_text_field_names_the_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "cols.csv", "id,body\n1,hello\n")
    with pytest.raises(LoaderError) as info:
        load("csv", path, text_field="text")  # set in the pipeline: it must exist (else rows are text)
    assert_names(info.value, path, "missing text field 'text'")
    assert "columns: id, body" in str(info.value)


def test_csv_custom_delimiter_and_text_field(tmp_path: Path) -> None:
    path = write(tmp_path, "semi.csv", "body;n\nhello;1\n")
    [doc] = load("csv", path, text_field="body", delimiter=";")
    assert doc.text == "hello" and doc.metadata["row"] == 0


def test_importing_every_loader_module_stays_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import ragkit.loaders.base, ragkit.loaders.text, ragkit.loaders.markdown, ragkit.loaders.pdf\n"
        "import ragkit.loaders.html, ragkit.loaders.docx, ragkit.loaders.tabular\n"
        "import ragkit.loaders.unstructured, ragkit.loaders.rst, ragkit.loaders.notebook, ragkit.loaders.xlsx\n"
        "import ragkit.loaders.pptx, ragkit.loaders.epub, ragkit.loaders.mail\n"
        "import ragkit.loaders.subtitles, ragkit.loaders.mediawiki, ragkit.loaders.texinfo, ragkit.loaders.pod\n"
        "import ragkit.loaders.rd\n"
        "heavy = ('pypdf', 'bs4', 'docx', 'unstructured', 'spacy', 'yaml', 'torch', 'docutils', 'openpyxl',\n"
        "         'pptx', 'ebooklib', 'lxml')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_loader_reference_lists_every_format_with_its_loader() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "loaders.md").read_text(encoding="utf-8")
    table = page[page.index("| format | loader | extra |"):]
    rows = table[: table.index("\n\n")].splitlines()[2:]
    for ext, name in base.DEFAULT_LOADERS.items():
        if ext in base.TEXT_EXTENSIONS:
            continue  # named as a family in the text loader's row
        row = next((r for r in rows if f"`{ext}`" in r.split("|")[1]), None)
        assert row is not None, f"docs/reference/loaders.md has no row for {ext}"
        assert f"`{name}`" in row.split("|")[2], f"docs/reference/loaders.md's row for {ext} does not name the loader {name!r}"
    assert any("`unstructured`" in r.split("|")[3] for r in rows)  # the extra of the catch-all
