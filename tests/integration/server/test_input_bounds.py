"""Inputs are bounded at the edge (4xx naming the field, never 5xx or
a 502 blaming the provider), uploads are written all or nothing (409 ``name_taken`` for a clash),
refused uploads say why, state.db is private (0600), errors never show server paths, and a 405
says which methods the path has."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.network_local]


def index_of(server) -> Path:
    args = list(server.proc.args)
    return Path(args[args.index("--index") + 1])


@pytest.mark.parametrize("path", ["/sessions", "/traces"])
@pytest.mark.parametrize("offset", [2**63, 2**64 + 5, 10**30])
def test_huge_offsets_are_a_400_naming_the_field(local_server, path: str, offset: int) -> None:
    r = httpx.get(local_server.url + path, params={"offset": offset})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "offset"


@pytest.mark.parametrize("route, body, field", [
    ("/v1/chat/completions", {"model": "ragkit", "messages": [{"role": "user", "content": "ferry \ud800 days?"}]},
     "messages.0.content"),
    ("/chat", {"message": "ferry \udfff?"}, "message"),
    ("/search", {"query": "x\ud83d"}, "query"),
    ("/documents", {"documents": [{"name": "s.md", "text": "lone \ud800 surrogate"}]}, "documents.0.text"),
])
def test_a_lone_surrogate_is_a_400_naming_the_field(local_server, route: str, body: dict, field: str) -> None:
    import json

    raw = json.dumps(body)  # ensure_ascii: the surrogate travels as the escape \\udXXX, as JSON allows
    r = httpx.post(local_server.url + route, content=raw, headers={"Content-Type": "application/json"}, timeout=60)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == field and "surrogate" in r.json()["error"]["message"]


def test_an_upload_clashing_with_a_file_or_folder_is_409_and_writes_nothing(local_server) -> None:
    url, uploads = local_server.url, index_of(local_server) / "uploads"
    ok = httpx.post(url + "/documents", json={"documents": [{"name": "area/tides.md", "text": "High tide at noon."},
                                                            {"name": "plain.md", "text": "Plain."}]})
    assert ok.status_code == 202
    for clash in ("area", "plain.md/inner.md"):
        body = {"documents": [{"name": "first.md", "text": "first"}, {"name": "second.md", "text": "second"},
                              {"name": clash, "text": "clash"}]}
        r = httpx.post(url + "/documents", json=body)
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "name_taken" and clash.split("/")[0] in r.json()["error"]["message"]
        assert not (uploads / "first.md").exists() and not (uploads / "second.md").exists()
    inside = {"documents": [{"name": "x/y.md", "text": "a"}, {"name": "x", "text": "b"}]}  # within one request
    assert httpx.post(url + "/documents", json=inside).status_code == 409
    assert not (uploads / "x").exists()
    assert (uploads / "area" / "tides.md").read_text() == "High tide at noon."


@pytest.mark.parametrize("name, why", [(".env", "hidden"), ("notes/.secret.md", "hidden"), (".git/config.md", "hidden"),
                                       ("img/photo.png", "assets"), ("questions.yaml", "exclude")])
def test_uploads_the_pipeline_would_drop_are_refused_with_the_reason(local_server, name: str, why: str) -> None:
    body = {"documents": [{"name": "kept.md", "text": "kept"}, {"name": name, "text": "API_KEY=1"}]}
    r = httpx.post(local_server.url + "/documents", json=body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "document_not_indexable" and name in error["message"] and why in error["message"]
    assert not (index_of(local_server) / "uploads" / "kept.md").exists()
    files = {"files": (name, b"API_KEY=1", "text/plain")}
    r = httpx.post(local_server.url + "/documents", files=files, headers={"X-Ragkit-Client": "test"})
    assert r.status_code == 400 and why in r.json()["error"]["message"]


def test_state_db_is_private(local_server) -> None:
    index = index_of(local_server)
    httpx.post(local_server.url + "/sessions", json={})
    for name in ("state.db", "state.db-wal", "state.db-shm"):
        f = index / name
        if f.exists():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, (name, oct(f.stat().st_mode))
    assert (index / "state.db").exists()


def test_errors_never_show_server_paths(local_server) -> None:
    index = index_of(local_server)
    con = _writer(index / "catalog.duckdb")  # another process writing the catalog
    try:
        responses = [httpx.get(local_server.url + "/documents"),
                     httpx.post(local_server.url + "/search", json={"query": "ferry", "retriever": "bm25"}),
                     httpx.post(local_server.url + "/search", json={"query": "ferry", "filter": {"page": {"$gt": "x"}}}),
                     httpx.post(local_server.url + "/documents", json={"documents": [{"name": "/etc/x", "text": "x"}]})]
    finally:
        con.close()
    for r in responses:
        assert r.status_code < 500, r.text
        for secret in (str(index), str(index.parent), str(Path.home())):
            assert secret not in r.text, r.text


def _writer(catalog: Path) -> Any:
    """A read-write connection to the catalog, once the server's ingest jobs of earlier tests let go."""
    import time

    import duckdb

    deadline = time.monotonic() + 120
    while True:
        try:
            return duckdb.connect(str(catalog))
        except duckdb.IOException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_405_names_the_allowed_methods(local_server) -> None:
    for method, path, allow in (("PUT", "/sessions", "GET, POST"), ("GET", "/chat", "POST"),
                                ("PATCH", "/sessions/abc", "DELETE, GET"), ("POST", "/traces", "GET")):
        r = httpx.request(method, local_server.url + path, json={})
        assert r.status_code == 405 and r.headers["allow"] == allow, (method, path, r.headers.get("allow"))
        assert r.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize("name", ["n" * 300 + ".md", "deep/" * 250 + "x.md"])
def test_upload_names_are_bounded(local_server, name: str) -> None:
    r = httpx.post(local_server.url + "/documents", files={"files": (name, b"text", "text/markdown")},
                   headers={"X-Ragkit-Client": "test"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_document_name", r.text
    r = httpx.post(local_server.url + "/documents", json={"documents": [{"name": "two\nlines.md", "text": "x"}]})
    assert r.status_code == 400 and "control characters" in r.json()["error"]["message"]


def test_idempotency_keys_are_bounded(local_server) -> None:
    body = {"model": "ragkit", "messages": [{"role": "user", "content": "ferry?"}]}
    r = httpx.post(local_server.url + "/v1/chat/completions", json=body, headers={"Idempotency-Key": "k" * 1000})
    assert r.status_code == 400 and r.json()["error"]["param"] == "Idempotency-Key"
