"""ragkit: turn a folder of documents into a searchable knowledge base and answer questions over it.

The public API is imported lazily, so ``import ragkit`` stays light (no torch, faiss, duckdb or
SDKs until they are used).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Document": "ragkit.types", "Chunk": "ragkit.types", "SearchHit": "ragkit.types", "Citation": "ragkit.types",
    "RagkitError": "ragkit.errors", "ConfigError": "ragkit.errors", "LoaderError": "ragkit.errors",
    "EmbeddingError": "ragkit.errors", "StoreError": "ragkit.errors", "StoreDamagedError": "ragkit.errors",
    "ProviderError": "ragkit.errors",
    "ToolError": "ragkit.errors", "AgentError": "ragkit.errors", "IndexLockedError": "ragkit.errors",
    "MissingDependencyError": "ragkit.errors", "RegistryError": "ragkit.errors", "ModelNotFoundError": "ragkit.errors",
    "PipelineSpec": "ragkit.config", "load_pipeline": "ragkit.config",
    "IndexingPipeline": "ragkit.index.writer", "IndexReport": "ragkit.index.report",
    "KnowledgeBase": "ragkit.index.reader",
    "Message": "ragkit.messages", "Image": "ragkit.messages",
    "tool": "ragkit.tools", "Tool": "ragkit.tools", "ToolOutput": "ragkit.tools", "ToolRegistry": "ragkit.tools",
    "current_attempt": "ragkit.tools",
    "Agent": "ragkit.agent", "AgentConfig": "ragkit.agent", "AgentResult": "ragkit.agent",
    "ConversationMemory": "ragkit.agent", "ToolPolicy": "ragkit.agent", "UsageLimits": "ragkit.agent",
    "AgentDefinition": "ragkit.agent", "AgentRunner": "ragkit.agent", "handoff": "ragkit.agent",
    "RunState": "ragkit.agent", "ToolContext": "ragkit.agent",
    "GuardrailSet": "ragkit.guardrails", "default_guardrails": "ragkit.guardrails",
    "LocalProvider": "ragkit.rag.local",
    "RAGAgent": "ragkit.rag.agent", "rag_definition": "ragkit.rag.agent",
}
__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
