"""API keys own their data. Key B gets 404 for key A's session, trace, job and
uploaded document (and cannot append to A's session, find A's upload, or take its name); an admin
key sees everything; `ragkit serve keys list|create|revoke` never shows a secret, and a revoked
key is refused at once by every worker of a `--workers 2` server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.testing.server_process import ServerProcess, ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
SECRET_DOC = "Alice's private note: the spare key of the lighthouse is under the third stone."


def create_key(index: Path, name: str, *extra: str) -> str:
    result = CliRunner().invoke(cli, ["serve", "keys", "create", "--index", str(index), "--name", name, *extra])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()[0]


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Path, dict[str, str]]]:
    index = build_index(tmp_path_factory.mktemp("owners"))
    keys = {name: create_key(index, name) for name in ("ops", "alice", "bob", "carol")}  # ops is first: the admin
    with ragkit_server(index, workers=2) as server:
        yield server, index, keys


def wait_job(url: str, job_id: str, key: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        job = httpx.get(f"{url}/jobs/{job_id}", headers=auth(key)).json()
        if job["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


@pytest.fixture(scope="module")
def alices(keyed) -> dict[str, str]:
    """What key A (alice) made: a session with one turn, its trace, an uploaded document and its job."""
    server, _, keys = keyed
    a = auth(keys["alice"])
    turn = httpx.post(server.url + "/chat", json={"message": "When does the ferry sail?"}, headers=a, timeout=60).json()
    up = httpx.post(server.url + "/documents", json={"documents": [{"name": "alice/spare-key.md", "text": SECRET_DOC}]},
                    headers=a).json()
    assert wait_job(server.url, up["id"], keys["alice"])["status"] == "succeeded"
    return {"session": turn["session_id"], "trace": turn["trace"]["id"], "job": up["id"], "doc": "alice/spare-key.md"}


def test_key_b_gets_404_for_everything_of_key_a(keyed, alices) -> None:
    server, _, keys = keyed
    url, b = server.url, auth(keys["bob"])
    sid = alices["session"]
    for method, path in (("GET", f"/sessions/{sid}"), ("DELETE", f"/sessions/{sid}"), ("POST", f"/sessions/{sid}/end"),
                         ("GET", f"/traces/{alices['trace']}"), ("GET", f"/traces?session_id={sid}"),
                         ("GET", f"/jobs/{alices['job']}"), ("DELETE", f"/documents/{alices['doc']}")):
        for _ in range(2):  # both workers
            r = httpx.request(method, url + path, headers=b, json={} if method == "POST" else None)
            assert r.status_code == 404, (method, path, r.status_code, r.text)
            assert SECRET_DOC not in r.text
    # appending to A's session through either chat endpoint
    r = httpx.post(url + "/chat", json={"message": "What did we say?", "session_id": sid}, headers=b, timeout=60)
    assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"
    with pytest.raises(openai.NotFoundError):
        openai.OpenAI(base_url=server.base_url, api_key=keys["bob"], max_retries=0).chat.completions.create(
            model="ragkit", messages=[{"role": "user", "content": "hi"}], extra_body={"session_id": sid})
    # lists and searches leave A's things out
    assert sid not in {s["id"] for s in httpx.get(url + "/sessions", headers=b).json()["data"]}
    assert alices["trace"] not in {t["id"] for t in httpx.get(url + "/traces", headers=b).json()["data"]}
    assert alices["doc"] not in {d["source"] for d in httpx.get(url + "/documents", headers=b).json()["data"]}
    hits = httpx.post(url + "/search", json={"query": "spare key lighthouse third stone"}, headers=b).json()["data"]
    assert hits and all(h["source"] != alices["doc"] for h in hits)
    answer = httpx.post(url + "/chat", json={"message": "Where is the spare key of the lighthouse?"}, headers=b,
                        timeout=60).json()
    assert "third stone" not in answer["response"] and all(c["source"] != alices["doc"] for c in answer["citations"])
    # nor can B take the name of A's upload
    r = httpx.post(url + "/documents", json={"documents": [{"name": alices["doc"], "text": "bob was here"}]}, headers=b)
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    # A's session is as A left it
    session = httpx.get(f"{url}/sessions/{sid}", headers=auth(keys["alice"])).json()
    assert session["items"] == 2 and not session["ended"]


def test_a_key_sees_its_own_and_an_admin_sees_all(keyed, alices) -> None:
    server, _, keys = keyed
    url = server.url
    for who in ("alice", "ops"):
        h = auth(keys[who])
        assert alices["session"] in {s["id"] for s in httpx.get(url + "/sessions", headers=h).json()["data"]}
        assert httpx.get(f"{url}/traces/{alices['trace']}", headers=h).status_code == 200
        assert httpx.get(f"{url}/jobs/{alices['job']}", headers=h).status_code == 200
        assert alices["doc"] in {d["source"] for d in httpx.get(url + "/documents", headers=h).json()["data"]}
        hits = httpx.post(url + "/search", json={"query": "spare key lighthouse third stone"}, headers=h).json()["data"]
        assert hits[0]["source"] == alices["doc"]
    mine = httpx.post(url + "/sessions", json={"title": "bob's"}, headers=auth(keys["bob"])).json()["id"]
    bobs = {s["id"] for s in httpx.get(url + "/sessions", headers=auth(keys["bob"])).json()["data"]}
    assert mine in bobs and alices["session"] not in bobs
    assert mine in {s["id"] for s in httpx.get(url + "/sessions", headers=auth(keys["ops"])).json()["data"]}
    assert httpx.get(f"{url}/sessions/{mine}", headers=auth(keys["alice"])).status_code == 404


def test_keys_cli_lists_without_secrets_and_a_revoked_key_is_refused_at_once(keyed, alices) -> None:
    server, index, keys = keyed
    listed = CliRunner().invoke(cli, ["serve", "keys", "list", "--index", str(index)])
    assert listed.exit_code == 0, listed.output
    for name in ("ops", "alice", "bob", "carol"):
        assert name in listed.output
    assert "admin" in listed.output and "last used" in listed.output
    rows = json.loads(CliRunner().invoke(cli, ["serve", "keys", "list", "--index", str(index), "--json"]).stdout)
    by_name = {r["name"]: r for r in rows}
    assert by_name["ops"]["admin"] and not by_name["alice"]["admin"] and not by_name["bob"]["admin"]
    assert by_name["alice"]["last_used_at"] and by_name["alice"]["created_at"]
    for key in keys.values():
        assert key not in listed.output and key not in json.dumps(rows)
        assert key[3:20] not in listed.output  # no part of a secret either
    made = json.loads(CliRunner().invoke(cli, ["serve", "keys", "create", "--index", str(index), "--name", "ci",
                                              "--admin", "--json"]).stdout)
    assert made["admin"] and made["key"].startswith("rk-")

    b = auth(keys["bob"])
    assert httpx.get(server.url + "/sessions", headers=b).status_code == 200
    revoked = CliRunner().invoke(cli, ["serve", "keys", "revoke", "bob", "--index", str(index)])
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    statuses = [httpx.get(server.url + "/sessions", headers=b).status_code for _ in range(20)]  # both workers
    assert statuses == [401] * 20
    r = httpx.get(server.url + "/sessions", headers=b)
    assert r.json()["error"]["code"] == "invalid_api_key" and "revoked" in r.json()["error"]["message"]
    assert httpx.get(server.url + "/sessions", headers=auth(keys["alice"])).status_code == 200
    rows = json.loads(CliRunner().invoke(cli, ["serve", "keys", "list", "--index", str(index), "--json"]).stdout)
    assert {r["name"]: r["revoked"] for r in rows}["bob"]
    unknown = CliRunner().invoke(cli, ["serve", "keys", "revoke", "nobody", "--index", str(index)])
    assert unknown.exit_code != 0 and "no API key" in unknown.output


#: a request for each route that takes a body, naming key A's things where it can; a route added
#: later must be added here (the test below fails until it is), so no route escapes the checks
EXAMPLES: dict[tuple[str, str], Any] = {
    ("POST", "/v1/chat/completions"): lambda a: {"model": "ragkit", "messages": [{"role": "user", "content": "hi"}],
                                                 "session_id": a["session"]},
    ("POST", "/chat"): lambda a: {"message": "hi", "session_id": a["session"]},
    ("POST", "/sessions"): lambda a: {"title": "mine"},
    ("POST", "/sessions/{session_id}/end"): lambda a: {},
    ("POST", "/search"): lambda a: {"query": "spare key lighthouse third stone"},
    ("POST", "/documents"): lambda a: {"documents": [{"name": a["doc"], "text": "overwritten by bob"}]},
    ("POST", "/v1/completions"): lambda a: {"prompt": "hi", "session_id": a["session"]},
    ("POST", "/v1/embeddings"): lambda a: {"input": "spare key lighthouse third stone"},
    ("POST", "/session/start"): lambda a: {"title": "mine"},
    ("POST", "/session/end"): lambda a: {"session_id": a["session"]},
}
#: path parameters and the thing of key A each one names (see ragkit.server.ownership.OWNED_PARAMS)
PARAMS = {"session_id": "session", "trace_id": "trace", "job_id": "job", "source": "doc"}


def _every_route() -> list[tuple[str, str]]:
    from ragkit.server.app import create_app
    from ragkit.server.errors import routes
    from ragkit.server.ownership import OWNED_PARAMS
    from ragkit.server.settings import ServerSettings

    assert set(PARAMS) == set(OWNED_PARAMS)
    found = []
    for path, methods, _ in routes(create_app(ServerSettings(index="unused"))):
        for method in sorted(methods - {"HEAD"}) or ["GET"]:
            found.append((method, path))
    return found


def _fill(path: str, alices: dict[str, str]) -> str:
    import re

    def one(m: re.Match[str]) -> str:
        name = m.group(1).split(":")[0]
        assert name in PARAMS, (f"the route {path} takes '{name}': say in ragkit.server.ownership.OWNED_PARAMS "
                                "whose it is (so another key gets 404), and add it to PARAMS here")
        return alices[PARAMS[name]]

    filled = re.sub(r"\{([^}]+)\}", one, path)
    return filled + "/app.js" if path == "/static" else filled


def test_every_route_passes_the_host_csrf_and_ownership_checks(keyed, alices) -> None:
    server, _, keys = keyed
    b = auth(keys["carol"])  # bob's key is revoked by the test before
    leaks = [alices["session"], alices["trace"], alices["job"], "third stone"]
    for method, path in _every_route():
        url = server.url + _fill(path, alices)
        example = EXAMPLES.get((method, path))
        if method in ("POST", "PUT", "PATCH"):
            assert example is not None, f"new route {method} {path}: add an example request to EXAMPLES"
        body = example(alices) if example else None
        # DNS rebinding: another Host name is refused before anything else
        r = httpx.request(method, url, json=body, headers={**b, "Host": "attacker.example"})
        assert r.status_code == 421, (method, path, r.status_code)
        if method != "GET":  # cross-site: another origin, or a form's content type
            r = httpx.request(method, url, json=body, headers={**b, "Origin": "https://evil.example"})
            assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin_refused", (method, path)
        if method == "POST":
            r = httpx.post(url, content=b"a=1", headers={"Content-Type": "application/x-www-form-urlencoded"})
            assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_header_missing", (method, path)
        # ownership: B names A's things; never sees them, never changes them
        r = httpx.request(method, url, json=body, headers=b, timeout=60)
        assert r.status_code < 500, (method, path, r.text)
        sent = url + json.dumps(body)  # an error may name what the request named, nothing more
        assert not any(leak in r.text for leak in leaks if leak not in sent), (method, path, r.text[:300])
        if "{" in path or (isinstance(body, dict) and "session_id" in body):
            assert r.status_code == 404, (method, path, r.status_code, r.text)
    a = auth(keys["alice"])
    session = httpx.get(f"{server.url}/sessions/{alices['session']}", headers=a).json()
    assert session["items"] == 2 and not session["ended"]
    docs = {d["source"]: d for d in httpx.get(server.url + "/documents", headers=a).json()["data"]}
    assert docs[alices["doc"]]["status"] == "indexed"
    hits = httpx.post(server.url + "/search", json={"query": "overwritten by bob"}, headers=a).json()["data"]
    assert all("overwritten by bob" not in h["text"] for h in hits)
