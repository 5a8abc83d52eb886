"""The memory store: the contract with and without a path, plus its own edge cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import VectorStore
from ragkit.stores.memory import MemoryStore, top_k
from ragkit.testing.contract import VectorStoreContract, make_rows


class TestMemoryStorePersistent(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return MemoryStore(dimension=dimension, path=path)


class TestMemoryStoreInProcess(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return MemoryStore(dimension=dimension)
