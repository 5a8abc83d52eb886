"""Every path inside an index directory, in one place.

Layout of an index directory::

    pipeline.yaml     the pipeline it was built with (search/ask reuse it)
    catalog.duckdb    sources, chunks, runs, embedding cache (``ragkit.index.catalog``)
    store/            the vector store's own files
    bm25/             the lexical index, when the retriever needs one
    index.lock        held by the one process writing the index
    index.pid         the pid of that process while it runs
    state.db          sessions, traces and API keys of `ragkit serve` and `ragkit chat` (SQLite default)
    uploads/          documents uploaded to the server (indexed as one more root)
    upload-staging/   a request's uploads while they are checked, before they enter uploads/
    server.generation touched after each ingest job of the server (its workers then reopen the index)
    quarantine/       uploads of a server ingest job that was given up (its process died twice)
    ocr-cache/        what OCR read from images and scanned PDF pages (text, word boxes), by file content hash
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# where an index lives by default is part of the one default pipeline (``ragkit.config``)


@dataclass(frozen=True)
class IndexLayout:
    """The paths of the index directory ``root`` (nothing is created or read here)."""

    root: Path

    def __init__(self, root: str | Path) -> None:
        object.__setattr__(self, "root", Path(root))

    @property
    def pipeline_file(self) -> Path:
        return self.root / "pipeline.yaml"

    @property
    def catalog(self) -> Path:
        return self.root / "catalog.duckdb"

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def lexical(self) -> Path:
        return self.root / "bm25"

    @property
    def lock(self) -> Path:
        return self.root / "index.lock"

    @property
    def run_file(self) -> Path:
        """The pid of the index run in progress (see ``ragkit.index.lock``)."""
        return self.root / "index.pid"

    @property
    def state_db(self) -> Path:
        """The default sessions and traces database of the server and ``ragkit chat``."""
        return self.root / "state.db"

    @property
    def uploads(self) -> Path:
        return self.root / "uploads"

    @property
    def upload_staging(self) -> Path:
        return self.root / "upload-staging"

    @property
    def server_generation(self) -> Path:
        """Touched after each ingest job of the server: its workers reopen the index when it changes."""
        return self.root / "server.generation"

    @property
    def quarantine(self) -> Path:
        """Where the server moves the uploads of an ingest job it gave up on (one folder per job)."""
        return self.root / "quarantine"

    @property
    def ocr_cache(self) -> Path:
        """OCR output by file content hash (``ragkit.loaders.ocr.OcrCache``): never OCR a file twice."""
        return self.root / "ocr-cache"

    def exists(self) -> bool:
        """Whether an index was built here (its catalog exists)."""
        return self.catalog.exists()


__all__ = ["IndexLayout"]
