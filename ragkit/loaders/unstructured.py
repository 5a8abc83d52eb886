"""Every other file type via the optional ``unstructured`` package (``pip install 'ragkit[unstructured]'``).

Offline by design. What the installed ``unstructured`` (0.21.5 and later, checked on 0.27.32) does
on its own, and what this module does about it:

- It classifies text elements with spaCy, and the first time it needs the ``en_core_web_sm``
  model it *downloads the model wheel from GitHub and installs it into site-packages*
  (``unstructured.nlp.tokenize._load_spacy_model``). Offline that fails (``RuntimeError: Failed
  to download spaCy model``) after a network attempt. When the model is not installed, ragkit
  hands unstructured a blank English spaCy pipeline (tokenizer + rule-based sentencizer, no
  download) and logs one warning. Text extraction is unaffected; only unstructured's element
  categories (Title vs NarrativeText), which ragkit does not use, get coarser. Install the model
  (``python -m spacy download en_core_web_sm``) to get the full behaviour.
- Versions before 0.21.5 used NLTK and downloaded ``punkt_tab``/``averaged_perceptron_tagger_eng``
  at run time. ragkit does not patch those; a missing-data error (``LookupError``) or a failed
  download becomes a :class:`LoaderError` naming the fix. Use ``unstructured>=0.21.5``.
- It sends usage telemetry and prints a notice unless told not to: ragkit sets
  ``SCARF_NO_ANALYTICS`` and ``UNSTRUCTURED_DISABLE_NOTICE`` (``setdefault``, so an explicit
  environment wins) before importing it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import mimetypes
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.loaders.base import Loader, strip_encoded_data
from ragkit.registry import loaders
from ragkit.types import Document

log = logging.getLogger(__name__)

SPACY_MODEL = "en_core_web_sm"
_QUIET_ENV = {"SCARF_NO_ANALYTICS": "true", "UNSTRUCTURED_DISABLE_NOTICE": "1"}
_DOWNLOAD_HINTS = ("download", "nltk", "punkt", "spacy", "en_core_web")
#: an XML document that opens with its document type and no ``<?xml …?>`` declaration (JATS
#: articles, ``.nxml``): unstructured takes it for plain text and keeps every tag
_XML_DOCTYPE = re.compile(rb"(?:\xef\xbb\xbf)?\s*<!DOCTYPE\s+(?!html\b)[A-Za-z_][\w:.-]*", re.IGNORECASE)


@loaders.register("unstructured")
class UnstructuredLoader(Loader):
    """Partitions any file type ``unstructured`` understands (without extras: XML, e-mail, plain
    text, HTML, JSON, CSV, ...). One document per page when the elements carry page numbers,
    else one per file; element texts are joined by blank lines."""

    name = "unstructured"
    mime = "application/octet-stream"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        elements = _partition(path)
        pages: dict[int | None, list[str]] = {}
        filetype: str | None = None
        for element in elements:
            text = strip_encoded_data(getattr(element, "text", "") or "").strip()
            meta = getattr(element, "metadata", None)
            filetype = filetype or getattr(meta, "filetype", None)
            if text:
                pages.setdefault(getattr(meta, "page_number", None), []).append(text)
        if not pages:
            raise LoaderError(
                f"{path}: unstructured found no text in the file", path=str(path), reason="empty file"
            )
        mime = filetype or mimetypes.guess_type(path.name)[0] or self.mime
        docs = []
        for page, texts in pages.items():
            meta = {"source": source, "mime": mime, "title": path.stem}
            if page is not None:
                meta["page"] = int(page)
            docs.append(Document(text="\n\n".join(texts), metadata=meta))
        return iter(docs)


def _partition(path: Path) -> list[Any]:
    partition = _import_partition()
    guard_nlp_downloads()
    where = str(path)
    try:
        return list(partition(filename=where, content_type=xml_content_type(path)))
    except ImportError as exc:  # the file type needs one of unstructured's own extras
        first_line = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise LoaderError(
            f"{where}: unstructured needs more packages for '{path.suffix}' files ({first_line}); "
            "install them, or map the extension to another loader under loaders: in the pipeline",
            path=where,
            reason=f"missing dependency for {path.suffix or 'this file type'}",
        ) from exc
    except (LookupError, RuntimeError, OSError) as exc:
        if not any(hint in str(exc).lower() for hint in _DOWNLOAD_HINTS):
            raise _failed(path, exc) from exc
        raise LoaderError(
            f"{where}: unstructured tried to fetch language data at run time and failed ({exc}); "
            f"ragkit works offline: upgrade to unstructured>=0.21.5 and, for full element "
            f"classification, install the spaCy model: python -m spacy download {SPACY_MODEL}",
            path=where,
            reason="unstructured needs language data",
        ) from exc
    except Exception as exc:  # UnsupportedFileFormatError, ValueError, parser errors
        raise _failed(path, exc) from exc


def xml_content_type(path: Path) -> str | None:
    """``application/xml`` for a file that opens with a non-HTML ``<!DOCTYPE``, so unstructured
    reads its text rather than its markup; ``None`` (unstructured's own detection) otherwise."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError:
        return None
    return "application/xml" if _XML_DOCTYPE.match(head) else None


def _failed(path: Path, exc: BaseException) -> LoaderError:
    reason = str(exc) or type(exc).__name__
    return LoaderError(
        f"{path}: unstructured could not read the file ({reason}); exclude it or convert it to a "
        "supported format",
        path=str(path),
        reason=f"unstructured failed: {reason}",
    )


@functools.lru_cache(maxsize=1)
def _import_partition() -> Any:
    for key, value in _QUIET_ENV.items():
        os.environ.setdefault(key, value)
    if importlib.util.find_spec("unstructured") is None:
        raise MissingDependencyError("unstructured", "unstructured", "reading this file type")
    from unstructured.partition.auto import partition

    return partition


def guard_nlp_downloads() -> bool:
    """Stop unstructured from downloading its spaCy model at run time.

    When ``en_core_web_sm`` is not installed, replace unstructured's model loader with a blank
    English pipeline plus sentencizer (built from spaCy's own files). Returns whether the guard
    was installed. Safe to call more than once.
    """
    try:
        tokenize = importlib.import_module("unstructured.nlp.tokenize")
    except ImportError:  # an old NLTK-based unstructured, or spaCy missing
        return False
    if not hasattr(tokenize, "_get_nlp") or _model_installed():
        return False
    if tokenize._get_nlp is not _blank_pipeline:
        log.warning(
            "spaCy model %s is not installed; unstructured will use a blank English pipeline "
            "(no download; element categories are coarser, text is unaffected). "
            "For full classification: python -m spacy download %s",
            SPACY_MODEL, SPACY_MODEL,
        )  # fmt: skip
        tokenize._get_nlp = _blank_pipeline
    return True


def _model_installed() -> bool:
    try:
        return importlib.util.find_spec(SPACY_MODEL) is not None
    except (ImportError, ValueError):
        return False


@functools.lru_cache(maxsize=1)
def _blank_pipeline() -> Any:
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp
