"""`ragkit mcp --transport http` checks what `ragkit serve` checks, through the MCP SDK's own client:
on an index with API keys no request gets in without one (a revoked key neither), and each key
sees, reads, finds and is cited only its own uploads besides the indexed folders (an admin all);
a tool's bad input reaches the client as a message saying what is wrong."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ragkit.testing.server_process import ragkit_server
from ragkit.testing.servers_db import free_port

from ...doc_examples import blocks_run_by
from .conftest import build_index
from .test_key_ownership import SECRET_DOC, auth, create_key, wait_job

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
SECRET = "alice/spare-key.md"
SECRET_URI = "ragkit://documents/" + SECRET


@contextmanager
def mcp_http(index: Path, log: Path, *args: str) -> Iterator[str]:
    """`ragkit mcp --transport http` on a free loopback port; yields its /mcp URL."""
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "ragkit.cli.main", "mcp", "--index", str(index),
                                 "--transport", "http", "--port", str(port), *args],
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def connect(url: str, key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=60)))


@pytest.fixture(scope="module")
def keyed_mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], Path]]:
    """An index with keys ops (the admin), alice and bob, and alice's private upload (made through
    `ragkit serve`); then `ragkit mcp --transport http` over it."""
    root = tmp_path_factory.mktemp("mcp-keys")
    index = build_index(root)
    keys = {name: create_key(index, name) for name in ("ops", "alice", "bob")}
    with ragkit_server(index) as server:
        up = httpx.post(server.url + "/documents", json={"documents": [{"name": SECRET, "text": SECRET_DOC}]},
                        headers=auth(keys["alice"]))
        assert up.status_code == 202, up.text
        assert wait_job(server.url, up.json()["id"], keys["alice"])["status"] == "succeeded"
    with mcp_http(index, root / "mcp.log") as url:
        yield url, keys, index


async def _view(url: str, key: str) -> dict[str, Any]:
    """What a key sees: resources, whether it reads the secret, what search and ask find."""
    async with connect(url, key) as client:
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        try:
            read = (await client.read_resource(SECRET_URI)).contents[0].text
        except Exception as exc:  # noqa: BLE001 - the SDK's error for a failed read
            read = f"refused: {exc}"
        found = await client.call_tool("search_knowledge_base", {"query": "spare key third stone", "top_k": 5})
        asked = await client.call_tool("ask", {"question": "Where is the spare key of the lighthouse?"})
        return {"listed": listed, "read": read,
                "found": {p["source"] for p in found.structured_content["passages"]},
                "cited": {c["source"] for c in asked.structured_content["citations"]},
                "answer": asked.structured_content["answer"]}


def test_the_serving_guide_connects_with_a_key_as_written(keyed_mcp) -> None:
    """docs/guides/serving.md's MCP example, its URL and key filled in and its ``...`` a tool listing."""
    url, keys, _ = keyed_mcp
    (example,) = blocks_run_by("tests/integration/server/test_mcp_keys.py")
    body = example.replaced({"rk-...": keys["alice"], "http://127.0.0.1:8001/mcp": url,
                                  "    ...": "    tools = {t.name for t in (await client.list_tools()).tools}"})
    namespace: dict[str, Any] = {}
    exec("async def example():\n" + textwrap.indent(body, "    ") + "    return tools\n", namespace)  # noqa: S102
    assert {"search_knowledge_base", "ask"} <= asyncio.run(asyncio.wait_for(namespace["example"](), 120))


def test_mcp_over_http_needs_a_key_once_the_index_has_one(keyed_mcp) -> None:
    url, keys, _ = keyed_mcp
    for key in (None, "rk-not-a-key"):
        r = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                       headers={"Authorization": f"Bearer {key}"} if key else {})
        assert r.status_code == 401, r.text
        assert r.json()["error"]["code"] == ("missing_api_key" if key is None else "invalid_api_key")
        assert r.headers["x-content-type-options"] == "nosniff"

        async def without(key: str | None = key) -> None:
            async with connect(url, key) as client:
                await client.list_resources()

        with pytest.raises(Exception):  # noqa: B017 - the SDK's error for a refused connection
            asyncio.run(asyncio.wait_for(without(), 60))


def test_each_key_sees_only_its_own_uploads_over_mcp(keyed_mcp) -> None:
    url, keys, _ = keyed_mcp
    views = asyncio.run(asyncio.wait_for(_gather(url, keys), 180))
    bob, alice, ops = views["bob"], views["alice"], views["ops"]
    assert SECRET_URI not in bob["listed"] and "ragkit://documents/alpha.md" in bob["listed"]
    assert bob["read"].startswith("refused") and "third stone" not in bob["read"]
    assert SECRET not in bob["found"] and SECRET not in bob["cited"] and "third stone" not in bob["answer"]
    for view in (alice, ops):
        assert SECRET_URI in view["listed"] and "third stone" in view["read"]
        assert SECRET in view["found"]


async def _gather(url: str, keys: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {name: await _view(url, keys[name]) for name in ("bob", "alice", "ops")}


def test_a_revoked_key_is_refused_at_once(keyed_mcp, tmp_path: Path) -> None:
    url, _, index = keyed_mcp
    carol = create_key(index, "carol")
    ok = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=auth(carol))
    assert ok.status_code != 401
    from click.testing import CliRunner

    from ragkit.cli.main import cli

    done = CliRunner().invoke(cli, ["serve", "keys", "revoke", "carol", "--index", str(index)])
    assert done.exit_code == 0, done.output
    r = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=auth(carol))
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"


def test_tool_input_errors_say_what_is_wrong(keyed_mcp) -> None:
    url, keys, _ = keyed_mcp

    async def run() -> list[str]:
        async with connect(url, keys["bob"]) as client:
            calls = [("search_knowledge_base", {"query": "   "}), ("ask", {"question": ""}),
                     ("ask", {"question": "When does the ferry sail?", "top_k": 500})]
            results = [await client.call_tool(name, args) for name, args in calls]
        assert all(r.is_error for r in results)
        return [r.content[0].text for r in results]

    empty_query, empty_question, top_k = asyncio.run(asyncio.wait_for(run(), 120))
    assert "query is empty" in empty_query
    assert "question is empty" in empty_question
    assert "top_k" in top_k and "50" in top_k


def test_mcp_refuses_an_open_bind_without_keys(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ragkit.cli.main import cli

    index = build_index(tmp_path)
    done = CliRunner().invoke(cli, ["mcp", "--index", str(index), "--transport", "http", "--host", "0.0.0.0"])
    assert done.exit_code != 0 and "without an API key" in done.output
