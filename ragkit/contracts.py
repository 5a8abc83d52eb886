"""The extension points a plugin author needs, in one import.

    from ragkit.contracts import Embedder, VectorStore, Capabilities, Loader, Splitter, Retriever, Provider

- ``Embedder`` (base class: implement ``embed_batch``, ``dimension``, ``model_id``);
- ``VectorStore`` (protocol) with its ``Capabilities``; every store passes
  ``ragkit.testing.VectorStoreContract``;
- ``Loader`` (base class: ``load(path) -> Iterator[Document]``), ``Splitter`` (protocol:
  ``split(doc) -> list[Chunk]``), ``Retriever`` (protocol: ``retrieve(query, k, filter)``);
- ``Provider`` (protocol: ``complete/stream/acomplete/astream``; ``BaseProvider`` derives three of
  them from ``complete``) with ``Message``, ``ToolCall``, ``ToolSpec``, ``Response``, ``StreamEvent``;
- ``Tool``/``tool`` and ``AgentEvent`` (what ``Agent.stream`` yields);
- the data types ``Document``, ``Chunk``, ``SearchHit``, ``Citation``;
- every error class (one root: ``RagkitError``).

Register an implementation under a name with the registries in :mod:`ragkit.registry` (or an
entry point) and it can be named in a pipeline YAML. Importing this module loads no model, SDK
or database driver.
"""

from __future__ import annotations

from ragkit.agent.observe.observers import Observer
from ragkit.agent.result import AgentEvent
from ragkit.agent.values import CoherenceChecker, CoherenceResult
from ragkit.embedders.base import Embedder
from ragkit.errors import (
    AgentError,
    ConfigError,
    EmbeddingError,
    IndexLockedError,
    LoaderError,
    MissingDependencyError,
    ModelNotFoundError,
    ProviderError,
    RagkitError,
    RegistryError,
    StoreDamagedError,
    StoreError,
    ToolError,
)
from ragkit.guardrails.base import Guardrail, GuardrailResult
from ragkit.loaders.base import Loader
from ragkit.messages import Message, Response, StreamEvent, ToolCall, ToolSpec, Usage
from ragkit.providers.base import BaseProvider, Provider
from ragkit.retrieval.base import Retriever
from ragkit.splitters.base import Splitter
from ragkit.stores.base import Capabilities, VectorStore
from ragkit.tools.tool import Tool, ToolOutput, tool
from ragkit.types import Chunk, Citation, Document, SearchHit

__all__ = [
    "CoherenceChecker",
    "CoherenceResult",
    "Guardrail",
    "GuardrailResult",
    "Observer",
    "AgentError",
    "AgentEvent",
    "BaseProvider",
    "Capabilities",
    "Chunk",
    "Citation",
    "ConfigError",
    "Document",
    "Embedder",
    "EmbeddingError",
    "IndexLockedError",
    "Loader",
    "LoaderError",
    "Message",
    "MissingDependencyError",
    "ModelNotFoundError",
    "Provider",
    "ProviderError",
    "RagkitError",
    "RegistryError",
    "Response",
    "Retriever",
    "SearchHit",
    "Splitter",
    "StoreDamagedError",
    "StoreError",
    "StreamEvent",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolOutput",
    "ToolSpec",
    "Usage",
    "VectorStore",
    "tool",
]
