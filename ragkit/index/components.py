"""Build the components of an index from its pipeline spec: embedder, splitter, vector store,
lexical (BM25) index and retrievers.

The only caller of the registries for these kinds at run time. Each component is built once, on
first use (the embedding model and faiss load lazily). Retrievers are built from their spec
(``{type: rerank, base: {type: hybrid}, model: DIR}``): a constructor argument the pipeline wires
in (``ragkit.wiring.WIRED``: ``embedder``, ``store``, ``index``, ``dense``, ``lexical``) is built
here and passed in, ``base`` is built from its nested spec (``DEFAULT_BASE`` when absent), and every other
argument comes from the YAML. What a retriever needs of the index (``needs``: dense vectors, the
lexical index) decides whether the index keeps a BM25 index.
"""

from __future__ import annotations

import inspect
import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ragkit import registry
from ragkit.config import PipelineSpec, build_component, component_options, resolve
from ragkit.embedders.base import Embedder
from ragkit.errors import ConfigError, StoreDamagedError
from ragkit.index.layout import IndexLayout
from ragkit.index.sinks import StoreSink
from ragkit.retrieval.base import PIPELINE_KEYS, MinScore, Retriever
from ragkit.splitters.base import Splitter
from ragkit.stores.base import IndexSink, VectorStore
from ragkit.wiring import DEFAULT_BASE, check_min_score, wired

if TYPE_CHECKING:
    from ragkit.retrieval.bm25 import BM25Index

RetrieverConf = dict[str, Any]
T = TypeVar("T")
log = logging.getLogger(__name__)


class Components:
    def __init__(self, spec: PipelineSpec, layout: IndexLayout) -> None:
        self.spec = spec
        self.layout = layout
        spec.register_prices()  # before the embedder looks its price up
        self._store: VectorStore | None = None
        self._lexical: BM25Index | None = None
        self._retrievers: dict[str, Retriever] = {}

    # ------------------------------------------------------------------ index components
    @cached_property
    def embedder(self) -> Embedder:
        return build_component(registry.embedders, self.spec, "embedder")  # type: ignore[no-any-return]

    @cached_property
    def splitter(self) -> Splitter:
        length = self.embedder.count_tokens if self.spec.splitter.unit == "tokens" else None
        return build_component(registry.splitters, self.spec, "splitter", length_function=length)  # type: ignore[no-any-return]

    @property
    def store(self) -> VectorStore:
        if self._store is None:
            self._store = build_component(
                registry.stores, self.spec, "store", dimension=self.embedder.dimension, path=self.layout.store
            )
        return self._store

    @property
    def lexical(self) -> BM25Index:
        """The BM25 index kept in step with the store; for an index that keeps none (its pipeline's
        retriever is dense), one built in memory from the chunk texts the catalog keeps."""
        if self._lexical is None and self.spec.lexical.backend == "postgres" and self.spec.uses_lexical:
            from ragkit.retrieval.pg_lexical import PgLexicalIndex

            lx = self.spec.lexical
            dsn = lx.dsn or (self.spec.store.options.get("dsn") if self.spec.store.type == "pgvector" else None)
            self._lexical = PgLexicalIndex(dsn=str(dsn or ""), table=lx.table, language=lx.language)  # type: ignore[assignment]
        if self._lexical is None:
            from ragkit.retrieval.bm25 import BM25Index

            lx = self.spec.lexical
            kept = self.spec.uses_lexical
            try:
                self._lexical = BM25Index(
                    path=self.layout.lexical if kept else None, k1=lx.k1, b=lx.b, stemmer=lx.stemmer,
                    stopwords=lx.stopwords,
                )
            except (OSError, ValueError) as exc:  # e.g. a file cut in the middle of a character
                raise StoreDamagedError(
                    f"the BM25 index at {self.layout.lexical} is damaged ({exc}); {StoreDamagedError.HINT}"
                ) from None
            if not kept:
                self._fill_lexical_from_catalog(self._lexical)
        return self._lexical

    def _fill_lexical_from_catalog(self, index: BM25Index) -> None:
        from ragkit.errors import IndexLockedError
        from ragkit.index.catalog import Catalog
        from ragkit.stores.base import SinkRecord

        fix = (
            "set `retriever: {type: hybrid}` (or `lexical: {enabled: true}`) in the pipeline and run "
            "`ragkit index PATH --pipeline FILE`: it builds the BM25 index from the catalog, nothing is re-embedded"
        )
        if not self.layout.catalog.exists():
            raise ConfigError(f"the index at {self.layout.root} has no lexical (BM25) index; {fix}")
        try:
            cat = Catalog(self.layout.catalog, read_only=True)
        except IndexLockedError:
            raise ConfigError(
                f"the index at {self.layout.root} keeps no lexical (BM25) index and its catalog is busy (an "
                f"index run is in progress); try again when it ends, or {fix}"
            ) from None
        try:
            records = cat.chunk_records()
            total = cat.chunk_count()
        finally:
            cat.close()
        if total and not records:
            raise ConfigError(
                f"the index at {self.layout.root} has no lexical (BM25) index and its catalog keeps no chunk texts "
                f"(built by an older ragkit); {fix}"
            )
        index.upsert([SinkRecord(r.id, r.text, None, r.metadata) for r in records])
        log.info("no BM25 index is kept at %s: built one in memory from %d chunks", self.layout.root, len(records))

    def check_store(self) -> None:
        """Open the pipeline's store once in a scratch folder of the index and close it: a missing
        extra, a bad option or an unreachable server fails here, before the store in use is given
        up (a server store is opened at its real address; only a local one's files are scratch)."""
        scratch = Path(tempfile.mkdtemp(prefix=".store-check-", dir=self.layout.root))
        try:
            store = build_component(
                registry.stores, self.spec, "store", dimension=self.embedder.dimension, path=IndexLayout(scratch).store
            )
            store.close()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def discard_store(self, store_type: str | None) -> None:
        """Close the vector store and remove its files when it is local (a changed or damaged
        store, rebuilt by the writer from the catalog and the embedding cache)."""
        if self._store is not None:
            try:
                self._store.close()
            except Exception:  # a half-loaded store may not close cleanly  # noqa: BLE001
                log.debug("closing the discarded store failed", exc_info=True)
            self._store = None
        try:
            local = store_type is not None and getattr(registry.stores.get(store_type), "local", False)
        except Exception:  # an unknown old store type: leave its files  # noqa: BLE001
            local = False
        if local and self.layout.store.exists():
            shutil.rmtree(self.layout.store)

    def discard_lexical(self) -> None:
        """Forget the BM25 index and remove its files (a damaged one, rebuilt by the writer)."""
        self._lexical = None
        if self.layout.lexical.exists():
            shutil.rmtree(self.layout.lexical)

    def sinks(self, *, on_damage: Callable[[StoreDamagedError], None] | None = None) -> list[IndexSink]:
        """Everything the writer keeps in step with the catalog: the store, and BM25 if kept.

        ``on_damage``: a sink whose files are damaged is reported to it, then discarded and opened
        empty (the writer refills it from the catalog); without it the error is raised."""
        out: list[IndexSink] = [
            StoreSink(_open(lambda: self.store, lambda: self.discard_store(self.spec.store.type), on_damage),
                      path=self.layout.store)
        ]
        if self.spec.uses_lexical:
            out.append(_open(lambda: self.lexical, self.discard_lexical, on_damage))
        return out

    def sink_dirs(self) -> list[Path] | None:
        """The directories holding the sinks' state when every sink is local (files only), else
        None. Decided from the classes' declarations, without opening the store."""
        store_cls = resolve(registry.stores, self.spec.store.type, "store.type", self.spec.origin)
        if not getattr(store_cls, "local", False):
            return None
        dirs = [self.layout.store]
        if self.spec.uses_lexical:
            from ragkit.retrieval.bm25 import BM25Index

            if not BM25Index.local or self.spec.lexical.backend != "local":
                return None
            dirs.append(self.layout.lexical)
        return dirs

    # ------------------------------------------------------------------ retrievers
    def retriever(self, kind: str | Mapping[str, Any] | None = None) -> Retriever:
        """The pipeline's retriever, or another: a registry name (``bm25``; a wrapper such as
        ``rerank`` or ``mmr`` then wraps the pipeline's own retriever) or a full spec mapping.
        Built once per spec."""
        conf = self.retriever_conf(kind)
        key = json.dumps(conf, sort_keys=True, default=str)
        if key not in self._retrievers:
            self._retrievers[key] = self._build(conf, "retriever")
        return self._retrievers[key]

    def retriever_conf(self, kind: str | Mapping[str, Any] | None = None) -> RetrieverConf:
        configured: RetrieverConf = {"type": self.spec.retriever.type, **component_options(self.spec, "retriever")}
        if self.spec.retriever.min_score is not None:
            configured["min_score"] = self.spec.retriever.min_score
        if kind is None:
            return configured
        if isinstance(kind, Mapping):
            return dict(kind)
        found = _find(configured, kind)
        if found is not None:
            return found
        cls = resolve(registry.retrievers, kind, "retriever", "--retriever")
        if "base" in inspect.signature(cls).parameters:
            return {"type": kind, "base": configured}
        return {"type": kind}

    def _build(self, conf: Mapping[str, Any], where: str) -> Retriever:
        name = str(conf.get("type", ""))
        cls = resolve(registry.retrievers, name, f"{where}.type", self.spec.origin)
        opts = {k: v for k, v in conf.items() if k not in PIPELINE_KEYS}
        provided: dict[str, Callable[[], Any]] = {  # what wiring.WIRED["retriever"] names, built here
            "embedder": lambda: self.embedder,
            "store": lambda: self.store,
            "index": lambda: self.lexical,
            "dense": lambda: self._build({"type": "dense"}, f"{where}.dense"),
            "lexical": lambda: self._build({"type": "bm25"}, f"{where}.lexical"),
        }
        params = inspect.signature(cls).parameters
        runtime = {n: provided[n]() for n in sorted(wired("retriever")) if n in params and n not in opts}
        if "base" in params:
            runtime["base"] = self._build(opts.pop("base", None) or DEFAULT_BASE, f"{where}.base")
        try:
            built: Retriever = cls(**opts, **runtime)
            threshold = check_min_score(conf.get("min_score"))
            return built if threshold is None else MinScore(built, threshold)
        except ConfigError as exc:
            raise ConfigError(f"{self.spec.origin}: {where}: {exc}") from None
        except TypeError as exc:
            raise ConfigError(f"{self.spec.origin}: {where}: invalid options for '{name}': {exc}") from None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._lexical is not None:
            self._lexical.close()
            self._lexical = None
        self._retrievers.clear()


def _open(make: Callable[[], T], discard: Callable[[], None], on_damage: Callable[[StoreDamagedError], None] | None) -> T:
    try:
        return make()
    except StoreDamagedError as exc:
        if on_damage is None:
            raise
        on_damage(exc)
        discard()
        return make()


def _find(conf: Mapping[str, Any], kind: str) -> RetrieverConf | None:
    """The retriever of type ``kind`` inside ``conf`` (itself or a base it wraps), if any."""
    if conf.get("type") == kind:
        return dict(conf)
    base = conf.get("base")
    return _find(base, kind) if isinstance(base, Mapping) else None


__all__ = ["Components"]
