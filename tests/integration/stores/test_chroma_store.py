"""The chroma store, embedded and against a real `chroma run` server: contract + own checks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import VectorStore
from ragkit.stores.chroma import ChromaStore, decode_metadata, encode_metadata
from ragkit.testing.contract import VectorStoreContract, make_rows
from ragkit.testing.servers_db import free_port


def collection_for(path: Path) -> str:
    """One collection per test store path, so tests sharing a server do not see each other."""
    return "c-" + hashlib.sha1(str(path).encode()).hexdigest()[:16]


class TestChromaEmbeddedContract(VectorStoreContract):
    approximate = True

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return ChromaStore(dimension=dimension, path=path)


@pytest.mark.network_local
@pytest.mark.slow
class TestChromaHttpContract(VectorStoreContract):
    approximate = True

    @pytest.fixture(autouse=True)
    def _server(self, chroma_http: tuple[str, int]) -> None:
        self.host, self.port = chroma_http

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return ChromaStore(dimension=dimension, path=path, mode="http", host=self.host, port=self.port,
                           collection=collection_for(path))


def test_registered_under_its_name() -> None:
    assert stores.get("chroma") is ChromaStore


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": "red"}, r"'colour'.*allowed: collection, host, mode, port"),
        ({"mode": "cloud"}, r"mode must be 'embedded' or 'http' \(got 'cloud'\)"),
        ({"port": 0}, r"port .* \(got 0\)"),
        ({"collection": "ab"}, r"collection .* \(got 'ab'\)"),
    ],
)
def test_option_validation(tmp_path: Path, options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ChromaStore(dimension=4, path=tmp_path, **options)


def test_metadata_codec_round_trip() -> None:
    meta = {"headings": ["A", "B"], "empty": [], "none": None, "nested": {"a": [1]}, "s": "[1]", "n": 2}
    enc = encode_metadata(meta)
    assert enc is not None and all(isinstance(v, (str, int, float, bool)) for v in enc.values())
    assert decode_metadata(enc) == meta
    assert encode_metadata({}) is None and decode_metadata(None) == {}


def test_list_metadata_round_trip_and_filter(tmp_path: Path) -> None:
    s = ChromaStore(dimension=4, path=tmp_path)
    x = np.eye(4, dtype=np.float32)
    s.add(["a", "b", "c"], x[:3], [{"headings": ["Intro", "Setup"]}, {"headings": []}, {"headings": "Intro"}])
    hits = {h.id: h.metadata for h in s.search(np.ones(4, dtype=np.float32), k=3)}
    assert hits == {"a": {"headings": ["Intro", "Setup"]}, "b": {"headings": []}, "c": {"headings": "Intro"}}
    got = s.search(np.ones(4, dtype=np.float32), k=3, filter={"headings": ["Intro", "Setup"]})
    assert [h.id for h in got] == ["a"]
    assert s.search(np.ones(4, dtype=np.float32), k=3, filter={"headings": {"$in": []}}) == []
    s.close()


def test_range_on_strings_is_an_error(tmp_path: Path) -> None:
    s = ChromaStore(dimension=4, path=tmp_path)
    s.add(["a"], np.ones((1, 4), dtype=np.float32), [{"source": "a.md"}])
    with pytest.raises(StoreError, match="numbers only"):
        s.search(np.ones(4, dtype=np.float32), k=1, filter={"source": {"$gt": "a"}})
    s.close()


def test_batches_above_max_batch_size(tmp_path: Path) -> None:
    s = ChromaStore(dimension=8, path=tmp_path)
    limit = s.capabilities.max_batch
    assert limit is not None and limit > 0
    n = 2 * limit + 7
    ids, x, meta = make_rows(n, 8, seed=17)
    s.add(ids, x, meta)
    assert s.count() == n
    assert s.ids() == set(ids)
    s.delete(ids[: limit + 3])
    assert s.count() == n - limit - 3
    s.close()


def test_http_server_down_names_host_and_port(tmp_path: Path) -> None:
    port = free_port()
    with pytest.raises(StoreError, match=rf"127\.0\.0\.1:{port}.*chroma run"):
        ChromaStore(dimension=4, path=tmp_path, mode="http", host="127.0.0.1", port=port)


@pytest.mark.network_local
@pytest.mark.slow
def test_http_reopen_sees_data(chroma_http: tuple[str, int], tmp_path: Path) -> None:
    host, port = chroma_http
    opts = {"mode": "http", "host": host, "port": port, "collection": collection_for(tmp_path)}
    ids, x, meta = make_rows(50, 8, seed=2)
    s = ChromaStore(dimension=8, **opts)
    s.add(ids, x, meta)
    s.close()
    s2 = ChromaStore(dimension=8, **opts)
    assert s2.count() == 50 and s2.search(x[4], k=1)[0].metadata == meta[4]
    with pytest.raises(StoreError, match="8-d.*dimension 16"):
        ChromaStore(dimension=16, **opts)
    s2.close()
