"""`ragkit mcp` through the MCP SDK's own client, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from ragkit.testing.servers_db import free_port

pytestmark = [pytest.mark.slow, pytest.mark.network_local]


async def _exercise(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search_knowledge_base", "ask"}
    assert "query" in tools["search_knowledge_base"].input_schema["properties"]
    found = await client.call_tool("search_knowledge_base", {"query": "ferry harbour", "top_k": 2})
    passages = found.structured_content["passages"]
    assert len(passages) == 2 and passages[0]["source"] == "notes/gamma.txt" and passages[0]["n"] == 1
    answer = (await client.call_tool("ask", {"question": "Who built the lighthouse?"})).structured_content
    assert "Thomas Reid" in answer["answer"] and answer["citations"][0]["source"] == "alpha.md"
    assert answer["usage"]["embedding_tokens"] > 0
    resources = {str(r.uri): r for r in (await client.list_resources()).resources}
    assert set(resources) == {f"ragkit://documents/{s}" for s in ("alpha.md", "beta.txt", "notes/gamma.txt")}
    text = (await client.read_resource("ragkit://documents/notes/gamma.txt")).contents[0].text
    assert "ferry sails on Tuesdays" in text


def test_mcp_over_stdio(index_dir: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "ragkit.cli.main", "mcp", "--index", str(index_dir)],
                                   env=dict(os.environ))

    async def run() -> None:
        async with Client(params) as client:
            await _exercise(client)

    asyncio.run(asyncio.wait_for(run(), 120))


def test_mcp_over_streamable_http(index_dir: Path, tmp_path: Path) -> None:
    port = free_port()
    with open(tmp_path / "mcp.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "ragkit.cli.main", "mcp", "--index", str(index_dir),
                                 "--transport", "http", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "mcp.log").read_text()
                time.sleep(0.2)

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                await _exercise(client)

        asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_mcp_resources_are_extracted_text_and_follow_the_index(tmp_path: Path) -> None:
    """A PDF and a DOCX are resources of their text (not their bytes), and a
    document an ingest job adds later is listed and readable without restarting `ragkit mcp`."""
    import httpx

    from ragkit.index.writer import IndexingPipeline
    from ragkit.testing.server_process import ragkit_server

    from ...unit.pipeline.helpers import make_spec, write_tree
    from ...unit.test_loaders_documents import make_docx, make_pdf

    docs = write_tree(tmp_path / "docs")
    make_pdf(docs / "manual.pdf", ["The winch is greased every spring.", "Page two: the boat house key is blue."])
    make_docx(docs / "census.docx")
    spec = make_spec(tmp_path / "index", embedder={"type": "hashing", "dimension": 64})
    IndexingPipeline(spec).index_paths([docs])
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "ragkit.cli.main", "mcp", "--index", str(tmp_path / "index")],
                                   env=dict(os.environ))

    async def run(server_url: str) -> None:
        async with Client(params) as client:
            listed = {str(r.uri): r for r in (await client.list_resources()).resources}
            assert {"ragkit://documents/manual.pdf", "ragkit://documents/census.docx"} <= set(listed)
            assert listed["ragkit://documents/manual.pdf"].mime_type == "text/plain"
            pdf = (await client.read_resource("ragkit://documents/manual.pdf")).contents[0]
            assert pdf.mime_type == "text/plain" and "%PDF" not in pdf.text
            assert "[page 1]" in pdf.text and "winch is greased" in pdf.text
            assert "[page 2]" in pdf.text and "boat house key is blue" in pdf.text
            docx = (await client.read_resource("ragkit://documents/census.docx")).contents[0].text
            assert "Puffins counted in June." in docx and "PK" not in docx[:4]

            body = {"documents": [{"name": "late/tides.md", "text": "# Tides\n\nHigh tide at the pier is at noon."}]}
            job = await asyncio.to_thread(httpx.post, server_url + "/documents", json=body)
            deadline = time.monotonic() + 60
            while (await asyncio.to_thread(httpx.get, f"{server_url}/jobs/{job.json()['id']}")).json()["status"] \
                    not in ("succeeded", "failed") and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            listed = {str(r.uri) for r in (await client.list_resources()).resources}
            assert "ragkit://documents/late/tides.md" in listed  # the same MCP session, no restart
            text = (await client.read_resource("ragkit://documents/late/tides.md")).contents[0].text
            assert "High tide at the pier is at noon." in text

    with ragkit_server(tmp_path / "index") as server:
        asyncio.run(asyncio.wait_for(run(server.url), 120))
