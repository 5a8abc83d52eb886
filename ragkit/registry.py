"""Named registries: the vocabulary of pipeline YAML.

Every ``type:`` in a pipeline file is a name in one of these registries. Names map to factories
registered by ragkit's own modules (imported lazily, so that heavy libraries load on first use)
or by third-party plugins through the ``ragkit.<kind>`` entry-point groups. A dotted import path
named in YAML is never imported.
"""

from __future__ import annotations

import difflib
import importlib
import logging
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Generic, TypeVar

from ragkit.errors import RegistryError
from ragkit.provider_names import builtin_modules

T = TypeVar("T")
log = logging.getLogger(__name__)


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ``"; did you mean 'x'?"`` for the closest choice, or a list of allowed names."""
    options = sorted(choices)
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    if close:
        return f"; did you mean '{close[0]}'?"
    return f"; allowed: {', '.join(options)}" if options else ""


class Registry(Generic[T]):
    """A name -> factory map for one kind of component (loaders, stores, ...)."""

    def __init__(self, kind: str, builtins: dict[str, str] | None = None) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        # name -> module that registers it when imported (lazy built-ins)
        self._lazy: dict[str, str] = dict(builtins or {})
        self._plugins_loaded = False

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@stores.register("faiss")``. A duplicate name is an error."""

        def deco(obj: T) -> T:
            if name in self._items and self._items[name] is not obj:
                raise RegistryError(
                    f"duplicate {self.kind} name '{name}': already registered by "
                    f"{_describe(self._items[name])}; choose another name"
                )
            self._items[name] = obj
            return obj

        return deco

    def get(self, name: str) -> T:
        if name not in self._items and name in self._lazy:
            importlib.import_module(self._lazy[name])
        if name not in self._items:
            self._load_plugins()
        if name not in self._items:
            raise RegistryError(f"unknown {self.kind} '{name}'{did_you_mean(name, self.names())}")
        return self._items[name]

    def names(self) -> list[str]:
        self._load_plugins()
        return sorted(set(self._items) | set(self._lazy))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        for ep in metadata.entry_points(group=f"ragkit.{self.kind}s"):
            if ep.name in self._items or ep.name in self._lazy:
                raise RegistryError(
                    f"plugin {ep.value!r} registers {self.kind} '{ep.name}', which already exists"
                )
            try:
                self._items[ep.name] = ep.load()
            except Exception as exc:  # a broken plugin must not break ragkit
                log.warning("could not load %s plugin %s: %s", self.kind, ep.value, exc)


def _describe(obj: object) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


loaders: Registry[type] = Registry(
    "loader",
    {
        "text": "ragkit.loaders.text",
        "markdown": "ragkit.loaders.markdown",
        "pdf": "ragkit.loaders.pdf",
        "html": "ragkit.loaders.html",
        "docx": "ragkit.loaders.docx",
        "json": "ragkit.loaders.json_document",
        "jsonl": "ragkit.loaders.tabular",
        "csv": "ragkit.loaders.tabular",
        "tsv": "ragkit.loaders.tabular",
        "xlsx": "ragkit.loaders.xlsx",
        "rst": "ragkit.loaders.rst",
        "notebook": "ragkit.loaders.notebook",
        "pptx": "ragkit.loaders.pptx",
        "epub": "ragkit.loaders.epub",
        "odf": "ragkit.loaders.odf",
        "doc": "ragkit.loaders.word_binary",
        "xls": "ragkit.loaders.xls",
        "rtf": "ragkit.loaders.rtf",
        "org": "ragkit.loaders.org",
        "manpage": "ragkit.loaders.manpage",
        "asciidoc": "ragkit.loaders.asciidoc",
        "fb2": "ragkit.loaders.fictionbook",
        "xml": "ragkit.loaders.xml_markup",
        "latex": "ragkit.loaders.latex",
        "subtitles": "ragkit.loaders.subtitles",
        "mediawiki": "ragkit.loaders.mediawiki",
        "tiddlywiki": "ragkit.loaders.tiddlywiki",
        "texinfo": "ragkit.loaders.texinfo",
        "pod": "ragkit.loaders.pod",
        "rd": "ragkit.loaders.rd",
        "ppt": "ragkit.loaders.powerpoint_binary",
        "eml": "ragkit.loaders.mail",
        "mbox": "ragkit.loaders.mail",
        "msg": "ragkit.loaders.outlook",
        "unstructured": "ragkit.loaders.unstructured",
        "image": "ragkit.loaders.image",
    },
)
splitters: Registry[type] = Registry(
    "splitter",
    {"recursive": "ragkit.splitters.recursive", "markdown": "ragkit.splitters.markdown"},
)
embedders: Registry[type] = Registry(
    "embedder",
    {
        "sentence-transformers": "ragkit.embedders.sentence_transformers",
        "hashing": "ragkit.testing.hashing",
        "onnx": "ragkit.embedders.onnx",
        "cohere": "ragkit.embedders.cohere",
        "openai": "ragkit.embedders.openai",
        "voyage": "ragkit.embedders.voyage",
    },
)
stores: Registry[type] = Registry(
    "store",
    {
        "memory": "ragkit.stores.memory",
        "faiss": "ragkit.stores.faiss",
        "chroma": "ragkit.stores.chroma",
        "duckdb": "ragkit.stores.duckdb",
        "sqlite": "ragkit.stores.sqlite",
        "pgvector": "ragkit.stores.pgvector",
    },
)
retrievers: Registry[type] = Registry(
    "retriever",
    {
        "dense": "ragkit.retrieval.dense",
        "bm25": "ragkit.retrieval.bm25",
        "hybrid": "ragkit.retrieval.hybrid",
        "rerank": "ragkit.retrieval.rerank",
        "mmr": "ragkit.retrieval.mmr",
    },
)
#: tools by name (a server's configured tools): factories taking the tool's options, returning a Tool
tools: Registry[Callable[..., object]] = Registry(
    "tool",
    {name: "ragkit.tools.builtin" for name in ("calculator", "current_time", "read_file", "search_files")},
)
#: built from the one list of provider names (``ragkit.provider_names``), presets included
providers: Registry[type] = Registry("provider", builtin_modules())
