"""Fakes and test helpers shipped with ragkit, for ragkit's tests and for users' own.

``HashingEmbedder`` (deterministic embeddings, no model), ``ScriptedProvider`` (replays scripted
model turns), ``VectorStoreContract``, ``ProviderContract``, ``EmbedderContract``,
``SessionStoreContract`` and ``ResponseCacheContract`` (the conformance suites every vector store,
remote provider, remote embedder, session store and response cache passes; need pytest), wire-protocol servers in ``ragkit.testing.servers`` and real database servers in
``ragkit.testing.servers_db``. Imported lazily, so ``import ragkit.testing`` needs no pytest.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "HashingEmbedder": "ragkit.testing.hashing",
    "ScriptedProvider": "ragkit.testing.scripted",
    "tool_call_response": "ragkit.testing.scripted",
    "VectorStoreContract": "ragkit.testing.contract",
    "ProviderContract": "ragkit.testing.provider_contract",
    "EmbedderContract": "ragkit.testing.embedder_contract",
    "SessionStoreContract": "ragkit.testing.sessions",
    "ResponseCacheContract": "ragkit.testing.cache_contract",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'ragkit.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
