"""The pgvector store against a real PostgreSQL+pgvector: the full contract plus its own checks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ragkit.errors import ConfigError, StoreError
from ragkit.registry import stores
from ragkit.stores.base import VectorStore
from ragkit.stores.pgvector import PgVectorStore, glob_to_regex
from ragkit.testing.contract import VectorStoreContract, make_queries, make_rows
from ragkit.testing.servers_db import free_port


def table_for(path: Path) -> str:
    """One table per test store path, so tests sharing the server do not see each other."""
    return "t_" + hashlib.sha1(str(path).encode()).hexdigest()[:16]


@pytest.mark.network_local
@pytest.mark.slow
class TestPgVectorContract(VectorStoreContract):
    approximate = True

    @pytest.fixture(autouse=True)
    def _server(self, postgres_dsn: str) -> None:
        self.dsn = postgres_dsn

    def make_store(self, path: Path, dimension: int) -> VectorStore:
        return PgVectorStore(dimension=dimension, path=path, dsn=self.dsn, table=table_for(path))


def test_registered_under_its_name() -> None:
    assert stores.get("pgvector") is PgVectorStore


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dsn": "postgresql://x@localhost/db", "colour": "red"},
         r"'colour'.*allowed: dsn, ef_construction, ef_search, m, table"),
        ({}, r"needs the option dsn"),
        ({"dsn": "postgresql://u:${PGPASSWORD}@h/db"}, r"\$\{\.\.\.\} placeholder"),
        ({"dsn": "postgresql://x@localhost/db", "table": "bad; drop"}, r"table must be .*'bad; drop'"),
        ({"dsn": "postgresql://x@localhost/db", "m": 1}, r"m must be an integer 2-100 \(got 1\)"),
        ({"dsn": "postgresql://x@localhost/db", "ef_search": "40"}, r"ef_search must be .*'40'"),
    ],
)
def test_option_validation(options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        PgVectorStore(dimension=4, **options)


def test_server_down_names_host_port_and_fix_without_password() -> None:
    port = free_port()
    with pytest.raises(StoreError) as err:
        PgVectorStore(dimension=4, dsn=f"postgresql://rag:s3cretpw@127.0.0.1:{port}/ragdb")
    text = str(err.value)
    assert f"127.0.0.1:{port}/ragdb" in text
    assert "start the server or fix the store's dsn option" in text
    assert "s3cretpw" not in text


@pytest.mark.parametrize(
    ("pattern", "yes", "no"),
    [("*3.md", ["doc3.md", "a/b3.md"], ["doc3xmd", "doc3.mdx"]), ("doc?.md", ["doc1.md"], ["doc10.md"]),
     ("a[!b]c", ["axc"], ["abc"]), ("x.y+z", ["x.y+z"], ["xxyyz"])],
)
def test_glob_to_regex_matches_fnmatch(pattern: str, yes: list[str], no: list[str]) -> None:
    import re

    rx = re.compile(glob_to_regex(pattern))
    assert all(rx.match(s) for s in yes) and not any(rx.match(s) for s in no)


@pytest.mark.network_local
@pytest.mark.slow
def test_new_store_object_sees_the_data(postgres_dsn: str, tmp_path: Path) -> None:
    opts = {"dsn": postgres_dsn, "table": table_for(tmp_path), "m": 8, "ef_construction": 32, "ef_search": 64}
    ids, x, meta = make_rows(300, 16, seed=4)
    meta[7] = {**meta[7], "headings": ["Intro", "Setup"], "flag": True, "extra": {"a": [1, 2]}, "none": None}
    s = PgVectorStore(dimension=16, **opts)
    s.add(ids, x, meta)
    s2 = PgVectorStore(dimension=16, **opts)  # while the first is still open
    assert s2.count() == 300 and s2.ids() == set(ids)
    hit = s2.search(x[7], k=1)[0]
    assert hit.id == ids[7] and hit.metadata == meta[7]
    assert [h.id for h in s2.search(x[7], k=5, filter={"headings": ["Intro", "Setup"]})] == [ids[7]]
    s.close()
    s2.close()
    with pytest.raises(StoreError, match="16-d.*dimension 8"):
        PgVectorStore(dimension=8, **opts)


@pytest.fixture(scope="module")
def index_only_dsn(postgres_dsn: str) -> str:
    """A database whose sessions cannot choose a sequential scan, so searches go through HNSW."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS index_only")
        conn.execute("CREATE DATABASE index_only")
        conn.execute("ALTER DATABASE index_only SET enable_seqscan = off")
    return make_conninfo(postgres_dsn, dbname="index_only")


@pytest.mark.network_local
@pytest.mark.slow
def test_rare_filter_returns_k_hits_through_the_hnsw_index(index_only_dsn: str, tmp_path: Path) -> None:
    """Through the index with ef_search=10, a filter matching 1% of rows still yields k hits."""
    s = PgVectorStore(dimension=16, dsn=index_only_dsn, table=table_for(tmp_path), ef_search=10)
    ids, x, meta = make_rows(3000, 16, seed=8)
    rare = list(range(0, 3000, 100))
    for i in rare:
        meta[i] = {**meta[i], "rare": "yes"}
    s.add(ids, x, meta)
    q = make_queries(1, 16, seed=8)[0]
    plan = "\n".join(r[0] for r in s._run(s._sql("EXPLAIN SELECT id FROM {t} ORDER BY embedding <=> %s LIMIT 20"), [q]))
    assert "hnsw" in plan, plan
    hits = s.search(q, k=20, filter={"rare": "yes"})
    assert len(hits) == 20
    assert all(h.metadata["rare"] == "yes" for h in hits)
    best = {ids[i] for i in sorted(rare, key=lambda i: -float(x[i] @ q))[:20]}
    assert len({h.id for h in hits} & best) >= 18  # approximate, but close to exact
    s.close()


class _NoVectorConnection:
    """A fake connection to a server without pgvector: pg_available_extensions has no 'vector' row."""

    def execute(self, query: object, params: object = None) -> _NoVectorConnection:
        self.description = [("installed_version",), ("default_version",)]
        return self

    def fetchall(self) -> list[tuple[object, ...]]:
        return []


@pytest.mark.network_local
@pytest.mark.slow
def test_missing_vector_extension_says_how_to_install(postgres_dsn: str, tmp_path: Path) -> None:
    s = PgVectorStore(dimension=4, dsn=postgres_dsn, table=table_for(tmp_path))
    with pytest.raises(StoreError, match=r"does not have the 'vector' extension; install pgvector"):
        s._ensure_extension(_NoVectorConnection())
    s.close()
