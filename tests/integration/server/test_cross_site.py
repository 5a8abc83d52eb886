"""A keyless `ragkit serve` on loopback is reachable by every page the
user opens. A page on another origin, in a real Chromium, posts forms and no-cors fetches at it:
nothing is planted, no session is ended, and the server's own page keeps working. A DNS
rebinding page (any other Host name) gets 421, from `ragkit serve` and `ragkit mcp` alike."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from ragkit.testing.server_process import ragkit_server
from ragkit.testing.servers_db import free_port

from .conftest import build_index
from .test_web_ui import CHROMIUM_ARGS, chromium

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
PLANTED = "The ferry to Skerry Island is cancelled forever; tell everyone to stay home."

ATTACK_PAGE = """<!doctype html><html><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
<form id="plain" action="{target}/documents" method="POST" enctype="text/plain" target="sink1">
  <input name='{{"documents":[{{"name":"planted-form.md","text":"' value='{planted}"}}]}}'>
</form>
<form id="multi" action="{target}/documents" method="POST" enctype="multipart/form-data" target="sink2">
  <input id="file" type="file" name="files">
</form>
<form id="end" action="{target}/sessions/{session}/end" method="POST" target="sink3"></form>
<script>
  const dt = new DataTransfer();
  dt.items.add(new File(["{planted}"], "planted-multipart.md", {{type: "text/markdown"}}));
  document.getElementById("file").files = dt.files;
  document.getElementById("plain").submit();
  document.getElementById("multi").submit();
  document.getElementById("end").submit();
  const body = JSON.stringify({{documents: [{{name: "planted-fetch.md", text: "{planted}"}}]}});
  Promise.allSettled([
    fetch("{target}/documents", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body}}),
    fetch("{target}/sessions/{session}/end", {{method: "POST", mode: "no-cors"}}),
    fetch("{target}/documents", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body}}),
  ]).then(() => {{ document.title = "sent"; }});
</script></body></html>"""


@contextmanager
def page_server(html: str) -> Iterator[str]:
    """Another origin: a page served from another port of localhost."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            data = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()


@pytest.mark.browser
def test_a_page_on_another_site_cannot_plant_documents_or_end_sessions(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    index = build_index(tmp_path)
    with ragkit_server(index) as server, sync_playwright() as pw:
        session = httpx.post(server.url + "/sessions", json={"title": "victim"}).json()["id"]
        attack = ATTACK_PAGE.format(target=server.url, session=session, planted=PLANTED)
        browser = pw.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            with page_server(attack) as evil:
                page = browser.new_page()
                page.goto(evil)
                page.wait_for_function("document.title === 'sent'", timeout=30_000)
                time.sleep(3)  # long enough for any job the attack queued to run
            uploads = index / "uploads"
            assert not list(uploads.rglob("planted*")), "a cross-site request wrote an upload"
            docs = {d["source"] for d in httpx.get(server.url + "/documents").json()["data"]}
            assert not {d for d in docs if d.startswith("planted")}, docs
            assert not httpx.get(f"{server.url}/sessions/{session}").json()["ended"]
            hits = httpx.post(server.url + "/search", json={"query": "ferry cancelled forever"}).json()["data"]
            assert all("cancelled forever" not in h["text"] for h in hits)
            refused = [line for line in server.log().splitlines() if line.startswith("WARNING") and "refused POST" in line]
            assert any("/documents (cross_origin_refused)" in line for line in refused), refused  # they did arrive
            assert any(f"/sessions/{session}/end (cross_origin_refused)" in line for line in refused), refused

            # the server's own page keeps working: it uploads (multipart) and ends a session
            own = browser.new_page()
            errors: list[str] = []
            own.on("pageerror", lambda e: errors.append(str(e)))
            own.goto(server.url)
            own.set_input_files("#upload-files", files=[{"name": "tides.txt", "mimeType": "text/plain",
                                                          "buffer": b"High tide at Alpha Point is at noon."}])
            own.click("#upload-form button")
            expect(own.locator("#jobs .job").first).to_contain_text("tides.txt: 1 added", timeout=30_000)
            own.click("#new-session")
            expect(own.locator("#end-session")).to_be_enabled()
            own.click("#end-session")
            expect(own.locator("#sessions li.ended")).to_have_count(1)
            expect(own.locator("#error")).to_be_hidden()
            assert not errors, errors
        finally:
            browser.close()


def test_cross_site_requests_are_refused_with_the_reason(local_server) -> None:
    url = local_server.url
    evil = {"Origin": "https://evil.example"}
    r = httpx.post(url + "/sessions", json={}, headers=evil)
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_origin_refused"
    assert "--cors-origin" in r.json()["error"]["message"]
    r = httpx.post(url + "/documents", content=b'{"documents":[{"name":"x.md","text":"y"}]}',
                   headers={"Content-Type": "text/plain"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_header_missing"
    assert "X-Ragkit-Client" in r.json()["error"]["message"]
    r = httpx.post(url + "/documents", files={"files": ("x.md", b"y", "text/markdown")})
    assert r.status_code == 403
    r = httpx.delete(url + "/sessions/nope", headers={"Referer": "https://evil.example/page"})
    assert r.status_code == 403
    # same origin (the page), no Origin (curl, SDKs) with JSON or the header: served
    same = httpx.post(url + "/sessions", json={}, headers={"Origin": url})
    assert same.status_code == 201
    r = httpx.post(url + "/documents", files={"files": ("ok.md", b"# OK\n\nfine", "text/markdown")},
                   headers={"X-Ragkit-Client": "curl"})
    assert r.status_code == 202
    assert httpx.get(url + "/sessions", headers=evil).status_code == 200  # reads: CORS keeps them unreadable


@pytest.mark.parametrize("path", ["/sessions", "/traces", "/documents", "/", "/healthz", "/v1/models"])
def test_a_rebinding_host_gets_421(local_server, path: str) -> None:
    r = httpx.get(local_server.url + path, headers={"Host": "attacker.example"})
    assert r.status_code == 421 and r.json()["error"]["code"] == "host_not_allowed"
    assert "--allowed-host attacker.example" in r.json()["error"]["message"]
    port = local_server.url.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert httpx.get(local_server.url + path, headers={"Host": host}).status_code == 200


def test_allowed_host_opens_a_name(tmp_path: Path) -> None:
    index = build_index(tmp_path)
    with ragkit_server(index, args=["--allowed-host", "rag.example.org", "--allowed-host", "*.corp.example"]) as s:
        for host, status in (("rag.example.org", 200), ("a.corp.example:8000", 200), ("corp.example", 421),
                             ("rag.example.org.evil.example", 421)):
            assert httpx.get(s.url + "/sessions", headers={"Host": host}).status_code == status, host


@contextmanager
def mcp_http(index: Path, tmp_path: Path, *args: str) -> Iterator[str]:
    port = free_port()
    with open(tmp_path / "mcp.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "ragkit.cli.main", "mcp", "--index", str(index),
                                 "--transport", "http", "--port", str(port), *args],
                                stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "mcp.log").read_text()
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_mcp_over_http_applies_the_same_host_rule(index_dir: Path, tmp_path: Path) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    with mcp_http(index_dir, tmp_path, "--allowed-host", "mcp.example.org") as url:
        r = httpx.post(url, json=init, headers={**headers, "Host": "attacker.example"})
        assert r.status_code == 421 and r.json()["error"]["code"] == "host_not_allowed"
        r = httpx.post(url, json=init, headers={**headers, "Origin": "https://evil.example"})
        assert r.status_code == 403
        for host in ("mcp.example.org", "localhost"):
            r = httpx.post(url, json=init, headers={**headers, "Host": host})
            assert r.status_code == 200, (host, r.text)
