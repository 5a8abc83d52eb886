"""Turn a source (a file or a group of in-memory documents) into chunks ready to embed.

Runs in the pipeline's producer thread; it reads the catalog only through the snapshot it is
given, never the database itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragkit.config import PipelineSpec
from ragkit.errors import ConfigError, LoaderError, RagkitError
from ragkit.ids import text_hash
from ragkit.index.catalog import SourceRow
from ragkit.index.components import Components
from ragkit.index.loading import PipelineLoaders, load_file
from ragkit.index.sources import SourceFile
from ragkit.loaders.limits import MB, limit_changed, over_limit
from ragkit.types import Chunk, Document

if TYPE_CHECKING:
    from ragkit.index.load_worker import LoaderProcess
    from ragkit.loaders.base import Loader

log = logging.getLogger(__name__)
DOCUMENTS_ROOT = "<documents>"
#: skip reasons that may go away without the file changing (a package installed since, a run
#: that reached its text limit, a scan that OCR turned on since can read)
_RETRY_REASONS = ("install", "ragkit[", "requires", "required", "limits.max_text_per_run_mb", "ocrmypdf")
#: ragkit's loaders that only read text (their memory bounded by the file size, their time by its
#: length): run in the loading thread, like plugin loaders; ragkit's other loaders run in the loader
#: process (``load_worker.py``), under the time limit and the memory ceiling
IN_PROCESS_LOADERS = frozenset({"text", "markdown", "json", "jsonl", "csv", "tsv", "org", "asciidoc", "latex", "manpage",
                                "subtitles", "mediawiki", "tiddlywiki", "texinfo", "pod", "rd"})
#: files sent to the loader process before the first of them is taken back
LOAD_AHEAD = 8


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
    #: characters of text the loader gave (for the run's text limit)
    text_chars: int = 0
    #: what the loader warned about while reading the file (a table it dropped)
    warnings: list[str] = field(default_factory=list)

    def skip(self, reason: str) -> None:
        """Make this a skipped source with ``reason``: nothing of it is stored."""
        self.error = reason
        self.chunks, self.tokens, self.hashes, self.vectors = [], [], [], {}

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
        # the loaders keep what they cache (OCR output) in the index being built, also when it is
        # not the pipeline's own (``ragkit index --index DIR``)
        self.spec = spec.model_copy(update={"index": str(parts.layout.root)})
        self.known = known
        self.max_bytes = int(spec.sources.max_file_size_mb * 1024 * 1024)
        self.loaders = PipelineLoaders(spec)
        self.limits = self.loaders.limits
        self._process: LoaderProcess | None = None
        #: pages (and images) whose text came from OCR in this run: said once, at ``close``
        self.ocr_pages = 0

    def close(self) -> None:
        """End the loader process, if one was started; say how many pages OCR read."""
        if self.ocr_pages:
            log.info("OCR read %d page(s) and image(s) in this run (ocr.mode: %s)", self.ocr_pages,
                     self.spec.ocr.mode)
            self.ocr_pages = 0
        if self._process is not None:
            self._process.close()
            self._process = None

    def prepare(self, unit: Unit) -> Prepared:
        """Check, load and split ``unit`` (a source the catalog has unchanged is not loaded)."""
        return list(self.prepare_all([unit]))[0]

    def prepare_all(self, units: Iterable[Unit]) -> Iterator[Prepared]:
        """``prepare`` each unit, in order; the files for the loader process are sent to it up to
        ``LOAD_AHEAD`` ahead, so it loads the next ones while this thread splits."""
        waiting: deque[tuple[Unit, Prepared, bool]] = deque()
        for unit in units:
            waiting.append((unit, *self._start(unit)))
            while waiting and (not waiting[0][2] or len(waiting) > LOAD_AHEAD):
                yield self._finish(*waiting.popleft())
        while waiting:
            yield self._finish(*waiting.popleft())

    def check(self, unit: Unit) -> Prepared:
        """Only the change detection of ``prepare``: check and hash the content, compare with the
        catalog; nothing is loaded or split (a distributed engine's driver does this, and ships
        what is neither unchanged nor unreadable)."""
        p = Prepared(source=unit.source, root=unit.root)
        try:
            self._hash(unit, p)
        except LoaderError as exc:
            _skipped(unit, p, exc)
        return p

    def _start(self, unit: Unit) -> tuple[Prepared, bool]:
        """Hash ``unit`` and, when it changed, load and split it here or send it to the loader
        process (then ``True``: ``_finish`` takes its documents)."""
        p = Prepared(source=unit.source, root=unit.root)
        try:
            self._hash(unit, p)
            if not p.unchanged:
                docs = self._documents(unit, p)
                if docs is None:
                    return p, True
                self._split(self._loaded(unit, p, *docs), p)
        except LoaderError as exc:
            _skipped(unit, p, exc)
        return p, False

    def _finish(self, unit: Unit, p: Prepared, submitted: bool) -> Prepared:
        if submitted:
            try:
                docs, warnings = self._loader_process().result()
                for warning in warnings:  # logged in the loader process, where no one sees it
                    log.warning("%s: %s", unit.source, warning)
                self._split(self._loaded(unit, p, docs, warnings), p)
            except LoaderError as exc:
                _skipped(unit, p, exc)
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
            p.content_hash = self._with_includes(hashlib.sha256(data), unit.path, data).hexdigest()
            p.size = len(data)
        p.unchanged = self._is_unchanged(unit.source, p.content_hash)
        if p.unchanged and unit.docs is None and self._read_otherwise(unit):
            p.unchanged = False  # the same bytes, read by another loader or an earlier version of it
        if not p.unchanged and unit.docs is None and self._still_unreadable(unit.source, p.content_hash):
            # skipped before with the same bytes: stays skipped with its reason, not re-loaded
            p.unchanged, p.error = True, self.known[unit.source].reason or "unreadable"

    def _documents(self, unit: Unit, p: Prepared) -> tuple[list[Document], list[str]] | None:
        """The unit's documents and the loader's warnings, or None when the file went to the
        loader process."""
        if unit.docs is not None:
            return list(unit.docs), []
        assert unit.path is not None
        name = loader_name(self.loaders, unit.path, unit.source)
        p.loader = self.loaders.tag(name)
        loader = self.loaders.get(name, unit.path.suffix.lower())  # options checked: a bad pipeline stops the run
        if isolated(name, loader):
            self._loader_process().submit(name, unit.path, unit.source)
            return None
        return _load_here(self.loaders, name, unit.path, unit.source)

    def _loaded(self, unit: Unit, p: Prepared, docs: list[Document], warnings: list[str]) -> list[Document]:
        p.warnings = warnings
        p.text_chars = sum(len(d.text) for d in docs)
        self.ocr_pages += len({d.metadata.get("page") for d in docs if d.metadata.get("ocr")})
        if not docs or not any(d.text.strip() for d in docs):
            raise LoaderError(f"{unit.source}: no text found", path=unit.source, reason="no text found")
        return docs

    def _loader_process(self) -> LoaderProcess:
        if self._process is None:
            from ragkit.index.load_worker import LoaderProcess

            self._process = LoaderProcess(self.spec)
        return self._process

    def _split(self, docs: list[Document], p: Prepared) -> None:
        splitter = self.parts.splitter
        for d in docs:
            if not d.text.strip():
                continue
            try:
                p.chunks.extend(splitter.split(d))
            except RagkitError:
                raise  # the splitter's set-up (its tokenizer): every file's problem, the run's
            except Exception as exc:  # noqa: BLE001 - this text's problem: the file is skipped
                what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                raise LoaderError(f"{p.source}: the splitter could not split its text ({what})", path=p.source,
                                  reason=f"splitter failed: {what}") from None
        if not p.chunks:
            raise LoaderError(f"{p.source}: no text found", path=p.source, reason="no text found")
        emb = self.parts.embedder
        counter = getattr(emb, "count_tokens_batch", None)
        texts = [c.indexed_text for c in p.chunks]  # what is embedded: the header counts too
        p.tokens = list(counter(texts)) if counter else [emb.count_tokens(t) for t in texts]
        p.chunk_hashes()

    def _with_includes(self, digest: Any, path: Path, data: bytes) -> Any:
        """``digest`` (of the file's bytes, ``data``) updated with the names and bytes of the files
        its loader puts into its text (``Loader.included_files``: a page's includes, with the bytes
        it read of each), so a changed include reads the page again though its own bytes are the
        same. Only a file whose bytes write its loader's include marker is looked through for
        them (in the bytes read already): its includes are read once, within the include limits."""
        name = self.loaders.name_for(path)
        if name is None:
            return digest
        loader = self.loaders.get(name, path.suffix.lower())
        marker = loader.include_marker
        if not marker or not any(marker.encode(enc) in data for enc in ("utf-8", "utf-16-le", "utf-16-be")):
            return digest
        for dep, read in loader.included_files(path, data):  # bounded: read under the include limits
            digest.update(b"\0" + str(dep).encode("utf-8", "replace") + b"\0" + read)
        return digest

    def _is_unchanged(self, source: str, content_hash: str) -> bool:
        row = self.known.get(source)
        return row is not None and row.status == "indexed" and row.content_hash == content_hash

    def _read_otherwise(self, unit: Unit) -> bool:
        """Whether the pipeline now reads the unit's file with another loader than the catalog
        records, or another version of it (``Loader.version``): its stored text may be stale."""
        assert unit.path is not None
        row = self.known[unit.source]
        name = self.loaders.name_for(unit.path)  # None: no loader now (an extra uninstalled): keep what is stored
        return name is not None and (row.loader or "") != self.loaders.tag(name)

    def _still_unreadable(self, source: str, content_hash: str) -> bool:
        """A file skipped before with the same content is not loaded again (its reason stands),
        unless the reason was a missing package, which may have been installed since."""
        row = self.known.get(source)
        return (
            row is not None and row.status == "skipped" and row.content_hash == content_hash
            and not any(word in (row.reason or "") for word in _RETRY_REASONS)
            and not limit_changed(row.reason or "", self.limits)
        )


class RunTextBudget:
    """The text one run may load (``sources.limits.max_text_per_run_mb``): a source that would pass it is
    skipped with the limit named (and loaded again by the next run)."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.limit = spec.sources.limits.max_text_per_run_mb
        self.left = int(self.limit * MB)

    def take(self, p: Prepared) -> None:
        if p.error is not None or not p.chunks:
            return
        if p.text_chars > self.left:
            exc = over_limit(p.source, "this run has loaded as much text as one run may", "max_text_per_run_mb",
                             self.limit, "million characters")
            p.skip(str(exc).removeprefix(f"{p.source}: "))
            return
        self.left -= p.text_chars


def _skipped(unit: Unit, p: Prepared, exc: LoaderError) -> None:
    """``p`` becomes a skipped source with ``exc``'s reason."""
    p.skip(_reason(exc, unit))
    log.info("skipped %s: %s", unit.source, p.error)  # listed once, in the run report


def load_alone(spec: PipelineSpec, path: Path, source: str, name: str | None = None) -> list[Document]:
    """One file's documents outside an indexing run (a reader asking for a document's text), loaded
    exactly as a run loads it: the pipeline's loader (``name``, else the one its extension maps
    to) under the pipeline's limits, ragkit's parsers in a loader process of its own (the time
    limit and the memory ceiling hold). Raises :class:`LoaderError` naming the file and the limit."""
    loaders = PipelineLoaders(spec)
    name = name or loader_name(loaders, path, source)
    if not isolated(name, loaders.get(name, path.suffix.lower())):
        return _load_here(loaders, name, path, source)[0]
    from ragkit.index.load_worker import LoaderProcess

    process = LoaderProcess(spec)
    try:
        return process.load(name, path, source)[0]
    finally:
        process.close()


def loader_name(loaders: PipelineLoaders, path: Path, source: str) -> str:
    """The name of the loader the pipeline reads ``path`` with; :class:`LoaderError` when none does."""
    name = loaders.name_for(path)
    if name is None:
        ext = path.suffix or path.name
        raise LoaderError(f"no loader for '{ext}' files; install ragkit[unstructured] or map the extension under "
                          "loaders: in the pipeline", path=source)
    return name


def _load_here(loaders: PipelineLoaders, name: str, path: Path, source: str) -> tuple[list[Document], list[str]]:
    """A text or plugin loader run in this process (the text formats refuse binary files, so no
    zip check for them)."""
    return load_file(loaders, name, path, source, check_zip=name not in IN_PROCESS_LOADERS)


def isolated(name: str, loader: Loader) -> bool:
    """Whether ``loader`` runs in the loader process: ragkit's parsers do; its text loaders and
    plugin loaders (which a fresh process may not be able to import) run in this one."""
    return name not in IN_PROCESS_LOADERS and type(loader).__module__.startswith("ragkit.loaders.")


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
