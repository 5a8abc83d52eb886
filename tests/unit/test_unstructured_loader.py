"""The unstructured loader works offline: no socket leaves the machine, no NLTK/spaCy download."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.registry import loaders
from ragkit.types import Document

pytest.importorskip("unstructured")
pytest.importorskip("spacy")

from ragkit.loaders import unstructured as ul  # noqa: E402

EML = """From: keeper@skerrow.example
To: office@portaldous.example
Subject: Tide report
Date: Mon, 1 Jan 2024 10:00:00 +0000
Content-Type: text/plain; charset=utf-8

The spring tide reached 4.2 metres at Gull Haven on Tuesday. Please log it in the register.
"""
XML = """<?xml version="1.0" encoding="utf-8"?>
<log><entry>The lighthouse keeper reads the barometer every six hours.</entry>
<entry>Wind south-west, force seven.</entry></log>
"""


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[Any]]:
    """No network except loopback, an empty NLTK data dir, and unstructured's state restored."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family == socket.AF_UNIX or host in ("127.0.0.1", "::1", "localhost"):
            return real_connect(self, address)
        attempts.append(address)
        raise OSError(f"network disabled in tests (tried {address!r})")

    monkeypatch.setattr(socket.socket, "connect", connect)
    empty = tmp_path / "nltk_data"
    empty.mkdir()
    monkeypatch.setenv("NLTK_DATA", str(empty))
    for key, value in ul._QUIET_ENV.items():  # keep _import_partition's setdefault from leaking
        monkeypatch.setenv(key, value)
    tokenize = pytest.importorskip("unstructured.nlp.tokenize")
    if hasattr(tokenize, "_get_nlp"):
        monkeypatch.setattr(tokenize, "_get_nlp", tokenize._get_nlp)  # undo the guard afterwards
    yield attempts


def load(path: Path) -> list[Document]:
    return list(loaders.get("unstructured")().load(path, source=f"inbox/{path.name}"))


@pytest.mark.parametrize(
    ("name", "content", "expected", "mime"),
    [
        ("report.eml", EML, "The spring tide reached 4.2 metres", "message/rfc822"),
        ("log.xml", XML, "reads the barometer every six hours", "application/xml"),
    ],
)
def test_partitions_without_network(
    offline: list[Any], tmp_path: Path, name: str, content: str, expected: str, mime: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    [doc] = load(path)
    assert expected in doc.text
    assert doc.metadata == {"source": f"inbox/{name}", "mime": mime, "title": path.stem}
    assert offline == []  # nothing even tried to reach the network


JATS = """<!DOCTYPE article
PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.2 20190208//EN" "JATS-archivearticle1.dtd">
<article article-type="research-article"><front><article-meta><title-group><article-title>Tides at Gull Haven
</article-title></title-group></article-meta></front><body><sec><title>Methods</title><p>The spring tide reached
<italic>4.2 metres</italic> on Tuesday.</p></sec></body></article>
""".replace("<body>", "<body>" + "<p>x</p>" * 3000)  # its tags far from its text: read as plain text


@pytest.mark.parametrize("name", ["article.nxml", "article.xml"])
def test_xml_that_opens_with_its_doctype_is_read_as_xml_not_as_text(offline: list[Any], tmp_path: Path,
                                                                    name: str) -> None:
    path = tmp_path / name
    path.write_text(JATS, encoding="utf-8")
    [doc] = load(path)
    assert "Tides at Gull Haven" in doc.text and "4.2 metres" in doc.text
    assert "<" not in doc.text and "DOCTYPE" not in doc.text and "article-type" not in doc.text
    assert ul.xml_content_type(path) == "application/xml"
    html = tmp_path / "page.xml"
    html.write_text("<!doctype html><p>a page</p>", encoding="utf-8")
    assert ul.xml_content_type(html) is None


def test_guard_replaces_the_model_download_when_the_model_is_missing(offline: list[Any]) -> None:
    tokenize = pytest.importorskip("unstructured.nlp.tokenize")
    if not hasattr(tokenize, "_get_nlp"):
        pytest.skip("an NLTK-based unstructured; the spaCy guard does not apply")
    installed = ul._model_installed()
    assert ul.guard_nlp_downloads() is (not installed)
    if not installed:
        assert tokenize._get_nlp is ul._blank_pipeline
        sentences = tokenize.sent_tokenize("The gauge was built in 1889. It ran until 2011.")
        assert sentences == ["The gauge was built in 1889.", "It ran until 2011."]


def test_file_type_needing_an_unstructured_extra_names_the_fix(offline: list[Any], tmp_path: Path) -> None:
    path = tmp_path / "notes.org"
    path.write_text("* Heading\nSome org text.\n", encoding="utf-8")
    try:
        load(path)
    except LoaderError as err:
        assert str(path) in str(err) and err.path == str(path)
        assert "missing dependency" in (err.reason or "") or "unstructured failed" in (err.reason or "")
        assert "under loaders:" in str(err) or "exclude it" in str(err)
    else:  # pypandoc is installed: then the org file simply loads
        pass
    assert offline == []


def test_missing_package_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = ul.importlib.util.find_spec
    monkeypatch.setattr(
        ul.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "unstructured" else real_find_spec(name, *a),
    )
    ul._import_partition.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"ragkit\[unstructured\]"):
            ul._import_partition()
    finally:
        ul._import_partition.cache_clear()
