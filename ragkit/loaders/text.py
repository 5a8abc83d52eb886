"""Plain text files (``.txt``, ``.text``): one document per file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ragkit.loaders.base import Loader, read_text
from ragkit.registry import loaders
from ragkit.types import Document


@loaders.register("text")
class TextLoader(Loader):
    """Reads a UTF-8 (or UTF-16 with BOM) text file as one document titled by its file stem."""

    name = "text"
    mime = "text/plain"

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        text = read_text(path)
        return iter([Document(text=text, metadata=self._metadata(source, title=path.stem))])
