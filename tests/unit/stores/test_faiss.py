"""The faiss store: the contract for every index kind, plus FAISS-specific behaviour."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("faiss")

import faiss  # noqa: E402

from ragkit.stores.base import VectorStore  # noqa: E402
from ragkit.stores.faiss import FaissStore  # noqa: E402
from ragkit.testing.contract import VectorStoreContract  # noqa: E402


@pytest.fixture(autouse=True)
def one_openmp_thread():
    """FAISS's OpenMP k-means spin-waits; on a busy 2-core box two threads train ~20x slower."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    yield
    faiss.omp_set_num_threads(before)


class TestFaissFlat(VectorStoreContract):
    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="flat")


class TestFaissHNSW(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="hnsw")


class TestFaissIVFFlat(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="ivf_flat")


class TestFaissIVFPQ(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return FaissStore(dimension=dimension, path=path, index="ivf_pq")
