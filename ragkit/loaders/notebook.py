"""Jupyter notebooks (``.ipynb``), read natively as JSON (nbformat 4, and 3).

One document per notebook, written as Markdown: markdown cells as they are (their headings become
the heading path of the chunks), code cells as fenced code in the kernel's language, and, with
``include_outputs`` (default true), their text outputs (``stream`` stdout, ``text/plain`` results)
as fenced ``text`` blocks, cut at ``max_output_chars``. Images, HTML, JavaScript, widgets, error
tracebacks and stderr are never indexed; raw cells neither. ``page`` is the cell number (1-based,
every cell counted, as in the notebook; ``page_unit: cell`` says so): each chunk cites the cell it
starts in.
``title``: the first ``#`` heading, else the notebook's ``metadata.title``, else the file stem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders.base import Loader, code_fence, read_text, strip_encoded_data
from ragkit.registry import loaders
from ragkit.types import Document

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


@loaders.register("notebook")
class NotebookLoader(Loader):
    """Reads a ``.ipynb`` notebook; options ``include_outputs`` (bool, default true) and
    ``max_output_chars`` (per output, default 2000)."""

    name = "notebook"
    mime = "application/x-ipynb+json"
    option_defaults = {"include_outputs": True, "max_output_chars": 2000}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not isinstance(self.options["include_outputs"], bool):
            raise ConfigError(
                f"loader 'notebook': include_outputs must be true or false (got {self.options['include_outputs']!r})"
            )
        limit = self.options["max_output_chars"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigError(f"loader 'notebook': max_output_chars must be a positive integer (got {limit!r})")

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        notebook = _parse(path)
        language = _language(notebook)
        parts: list[str] = []
        offsets: list[list[int]] = []  # [offset in the text, cell number]
        pos = 0
        for number, cell in enumerate(_cells(path, notebook), start=1):
            text = self._cell_text(cell, language)
            if not text:
                continue
            if parts:
                pos += 2  # the blank line between cells
            offsets.append([pos, number])
            parts.append(text)
            pos += len(text)
        body = "\n\n".join(parts)
        if not body.strip():
            raise LoaderError(f"{path}: the notebook has no text (no cell with content)", path=str(path),
                              reason="empty file")
        match = _H1.search("\n\n".join(p for p in parts if not p.startswith("```")))
        title = match.group(1).strip() if match else _meta_title(notebook) or path.stem
        meta = self._metadata(source, title=title, markup="markdown", page=offsets[0][1], page_unit="cell",
                              page_offsets=offsets)
        return iter([Document(text=body, metadata=meta)])

    def _cell_text(self, cell: Mapping[str, Any], language: str) -> str:
        kind = cell.get("cell_type")
        if kind == "markdown":
            return strip_encoded_data(_source(cell)).strip()
        if kind == "heading":  # nbformat 3
            return f"{'#' * int(cell.get('level', 1))} {_source(cell).strip()}"
        if kind != "code":
            return ""  # raw cells are for nbconvert, not reading
        code = _source(cell, key="input" if "input" in cell else "source").strip("\n")
        blocks = [_fence(code, language)] if code.strip() else []
        if self.options["include_outputs"]:
            blocks.extend(_fence(out, "text") for out in self._outputs(cell))
        return "\n".join(blocks)

    def _outputs(self, cell: Mapping[str, Any]) -> Iterator[str]:
        limit = self.options["max_output_chars"]
        for output in cell.get("outputs") or []:
            if not isinstance(output, Mapping):
                continue
            kind = output.get("output_type")
            if kind == "stream" and output.get("name", "stdout") == "stdout":
                text = _joined(output.get("text"))
            elif kind in ("execute_result", "display_data", "pyout"):
                data = output.get("data") if isinstance(output.get("data"), Mapping) else output
                if any(str(k).startswith("image/") or k in ("png", "jpeg", "svg") for k in data):
                    continue  # a plot: its text form is only a placeholder ("<Figure size 640x480>")
                text = _joined(data.get("text/plain", data.get("text")))
            else:  # errors (tracebacks), stderr, and anything without a text form
                continue
            text = strip_encoded_data(_ANSI.sub("", text)).strip("\n")
            if not text.strip():
                continue
            yield text if len(text) <= limit else text[:limit].rstrip() + "\n… (output cut)"


def _parse(path: Path) -> Mapping[str, Any]:
    try:
        notebook = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise LoaderError(
            f"{path}: not a valid notebook (malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "re-save it from Jupyter",
            path=str(path), reason="malformed notebook JSON",
        ) from exc
    if not isinstance(notebook, dict) or not ("cells" in notebook or "worksheets" in notebook):
        raise LoaderError(
            f"{path}: not a Jupyter notebook (a JSON {type(notebook).__name__} without 'cells'); map the "
            "extension to another loader under loaders: in the pipeline if it is something else",
            path=str(path), reason="not a notebook",
        )
    return notebook


def _cells(path: Path, notebook: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: worksheets of cells
        cells = [c for ws in notebook.get("worksheets") or [] if isinstance(ws, Mapping) for c in ws.get("cells") or []]
    if not isinstance(cells, list):
        raise LoaderError(f"{path}: not a valid notebook ('cells' is not a list); re-save it from Jupyter",
                          path=str(path), reason="malformed notebook")
    return [c for c in cells if isinstance(c, Mapping)]


def _language(notebook: Mapping[str, Any]) -> str:
    meta = notebook.get("metadata") if isinstance(notebook.get("metadata"), Mapping) else {}
    for key in ("language_info", "kernelspec"):
        info = meta.get(key)
        if isinstance(info, Mapping) and isinstance(info.get("name" if key == "language_info" else "language"), str):
            return str(info.get("name" if key == "language_info" else "language")).lower()
    return "python"


def _meta_title(notebook: Mapping[str, Any]) -> str | None:
    meta = notebook.get("metadata")
    title = meta.get("title") if isinstance(meta, Mapping) else None
    return title.strip() if isinstance(title, str) and title.strip() else None


def _source(cell: Mapping[str, Any], key: str = "source") -> str:
    return _joined(cell.get(key))


def _joined(value: Any) -> str:
    """A notebook string: one string, or a list of lines (each with its newline)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return ""


def _fence(code: str, language: str) -> str:
    fence = code_fence(code)
    return f"{fence}{language}\n{code}\n{fence}"


__all__ = ["NotebookLoader"]
