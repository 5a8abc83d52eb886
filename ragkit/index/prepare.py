"""Turn a source (a file or a group of in-memory documents) into chunks ready to embed.

Runs in the pipeline's producer thread; it reads the catalog only through the snapshot it is
given, never the database itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ragkit import registry
from ragkit.config import PipelineSpec, check_options
from ragkit.errors import ConfigError, LoaderError
from ragkit.ids import text_hash
from ragkit.index.catalog import SourceRow
from ragkit.index.components import Components
from ragkit.index.sources import SourceFile
from ragkit.types import Chunk, Document

if TYPE_CHECKING:
    from ragkit.loaders.base import Loader

log = logging.getLogger(__name__)
DOCUMENTS_ROOT = "<documents>"
#: skip reasons that may go away without the file changing (a package installed since)
_RETRY_REASONS = ("install", "ragkit[", "requires", "required")


@dataclass(frozen=True)
class Unit:
    source: str
    root: str
    path: Path | None = None
    docs: tuple[Document, ...] | None = None

    @classmethod
    def from_file(cls, f: SourceFile) -> Unit:
        return cls(source=f.source, root=f.root.key, path=f.path)


@dataclass
class Prepared:
    source: str
    root: str
    content_hash: str | None = None
    size: int = 0
    loader: str | None = None
    chunks: list[Chunk] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    error: str | None = None
    unchanged: bool = False
    #: embeddings already computed elsewhere (a Ray embed actor), by chunk text hash; the writer
    #: uses them for the chunks the embedding cache lacks instead of embedding those itself
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    #: the chunks' text hashes, in order (``chunk_hashes``: computed once, in the producer thread)
    hashes: list[str] = field(default_factory=list)

    def chunk_hashes(self) -> list[str]:
        """The hash of the text each chunk embeds (``Chunk.indexed_text``: its contextual header,
        when it has one, and its text), the embedding cache's and the catalog's key; computed once."""
        if len(self.hashes) != len(self.chunks):
            self.hashes = [text_hash(c.indexed_text) for c in self.chunks]
        return self.hashes


def document_units(docs: Iterable[Document]) -> Iterator[Unit]:
    groups: dict[str, list[Document]] = {}
    for i, d in enumerate(docs):
        if not isinstance(d, Document):
            raise ConfigError(f"index_documents expects ragkit.types.Document objects (item {i} is {type(d).__name__})")
        src = d.source or f"document-{i}"
        if not d.source:
            d = Document(d.text, {**d.metadata, "source": src})
        groups.setdefault(src, []).append(d)
    for src, group in groups.items():
        yield Unit(source=src, root=DOCUMENTS_ROOT, docs=tuple(group))


class Preparer:
    def __init__(self, parts: Components, spec: PipelineSpec, known: Mapping[str, SourceRow]) -> None:
        self.parts = parts
        self.spec = spec
        self.known = known
        self.max_bytes = int(spec.sources.max_file_size_mb * 1024 * 1024)
        self.loaders = PipelineLoaders(spec)

    def prepare(self, unit: Unit) -> Prepared:
        """Check, load and split ``unit`` (a source the catalog has unchanged is not loaded)."""
        return self._guarded(unit, load=True)

    def check(self, unit: Unit) -> Prepared:
        """Only the change detection of ``prepare``: check and hash the content, compare with the
        catalog; nothing is loaded or split (a distributed engine's driver does this, and ships
        what is neither unchanged nor unreadable)."""
        return self._guarded(unit, load=False)

    def _guarded(self, unit: Unit, *, load: bool) -> Prepared:
        p = Prepared(source=unit.source, root=unit.root)
        try:
            self._hash(unit, p)
            if load and not p.unchanged:
                self._split(self._documents(unit, p), p)
        except LoaderError as exc:
            p.error = _reason(exc, unit)
            p.chunks, p.tokens = [], []
            log.info("skipped %s: %s", unit.source, p.error)  # listed once, in the run report
        return p

    # ------------------------------------------------------------------ steps
    def _hash(self, unit: Unit, p: Prepared) -> None:
        if unit.docs is not None:
            p.content_hash = _docs_hash(unit.docs)
            p.size = sum(len(d.text) for d in unit.docs)
            p.loader = "documents"
        else:
            from ragkit.loaders.base import check_file

            assert unit.path is not None
            check_file(unit.path, max_bytes=self.max_bytes)
            data = _read_bytes(unit.path)
            p.content_hash = hashlib.sha256(data).hexdigest()
            p.size = len(data)
        p.unchanged = self._is_unchanged(unit.source, p.content_hash)
        if not p.unchanged and unit.docs is None and self._still_unreadable(unit.source, p.content_hash):
            # skipped before with the same bytes: stays skipped with its reason, not re-loaded
            p.unchanged, p.error = True, self.known[unit.source].reason or "unreadable"

    def _documents(self, unit: Unit, p: Prepared) -> list[Document]:
        if unit.docs is not None:
            return list(unit.docs)
        assert unit.path is not None
        name = self.loaders.name_for(unit.path)
        if name is None:
            ext = unit.path.suffix or unit.path.name
            raise LoaderError(
                f"no loader for '{ext}' files; install ragkit[unstructured] or map the extension under "
                "loaders: in the pipeline", path=unit.source,
            )
        p.loader = name
        docs = list(self.loaders.get(name, unit.path.suffix.lower()).load(unit.path, source=unit.source))
        if not docs or not any(d.text.strip() for d in docs):
            raise LoaderError(f"{unit.source}: no text found", path=unit.source, reason="no text found")
        return docs

    def _split(self, docs: list[Document], p: Prepared) -> None:
        splitter = self.parts.splitter
        for d in docs:
            if not d.text.strip():
                continue
            p.chunks.extend(splitter.split(d))
        if not p.chunks:
            raise LoaderError(f"{p.source}: no text found", path=p.source, reason="no text found")
        emb = self.parts.embedder
        counter = getattr(emb, "count_tokens_batch", None)
        texts = [c.indexed_text for c in p.chunks]  # what is embedded: the header counts too
        p.tokens = list(counter(texts)) if counter else [emb.count_tokens(t) for t in texts]
        p.chunk_hashes()

    def _is_unchanged(self, source: str, content_hash: str) -> bool:
        row = self.known.get(source)
        return row is not None and row.status == "indexed" and row.content_hash == content_hash

    def _still_unreadable(self, source: str, content_hash: str) -> bool:
        """A file skipped before with the same content is not loaded again (its reason stands),
        unless the reason was a missing package, which may have been installed since."""
        row = self.known.get(source)
        return (
            row is not None and row.status == "skipped" and row.content_hash == content_hash
            and not any(word in (row.reason or "") for word in _RETRY_REASONS)
        )


class PipelineLoaders:
    """The loaders of a pipeline: each built once with the options its ``loaders:`` entry gives
    (checked), and handed the same mapping for the files inside what it reads (a mail's
    attachments: ``Loader.use_inner_loaders``)."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.overrides = spec.loader_overrides()
        self._loaders: dict[str, Loader] = {}

    def name_for(self, path: Path) -> str | None:
        from ragkit.loaders.base import loader_name_for

        return loader_name_for(path, {k: v.type for k, v in self.overrides.items()})

    def get(self, name: str, ext: str) -> Loader:
        key = f"{name}:{ext}"
        if key not in self._loaders:
            spec = self.overrides.get(ext)
            opts = spec.options if spec is not None and spec.type == name else {}
            cls = registry.loaders.get(name)
            check_options(cls, opts, section=f"loaders.{ext}", kind="loader", name=name, origin=self.spec.origin)
            self._loaders[key] = cls(**opts)
            self._loaders[key].use_inner_loaders(self.inner)
        return self._loaders[key]

    def inner(self, path: Path) -> tuple[str, Loader] | None:
        """The loader of a file inside another (a mail's attachment), by the same mapping."""
        name = self.name_for(path)
        return (name, self.get(name, path.suffix.lower())) if name is not None else None


def _reason(exc: LoaderError, unit: Unit) -> str:
    """The error's full message (it carries the fix) without the leading path."""
    msg = str(exc)
    for prefix in (exc.path, str(unit.path) if unit.path else None, unit.source):
        if prefix and msg.startswith(f"{prefix}: "):
            return msg[len(prefix) + 2 :]
    return msg or (exc.reason or "unreadable")


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except PermissionError:
        raise LoaderError(f"{path}: permission denied; make the file readable (chmod +r)", path=str(path),
                          reason="permission denied (make the file readable)") from None
    except OSError as exc:
        raise LoaderError(f"{path}: cannot read: {exc.strerror}", path=str(path), reason=f"cannot read: {exc.strerror}") from None


def _docs_hash(docs: Iterable[Document]) -> str:
    h = hashlib.sha256()
    for d in docs:
        meta = {k: v for k, v in d.metadata.items() if k not in ("mtime", "size")}
        h.update(json.dumps(meta, sort_keys=True, default=str).encode())
        h.update(b"\x00")
        h.update(d.text.encode("utf-8", "surrogatepass"))
        h.update(b"\x01")
    return h.hexdigest()
