"""Security defaults: hashed API keys, loopback-only without a key, closed CORS, size limits,
no path traversal, no secrets in logs, traces or the database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.testing.server_process import ServerProcess, ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str, Path]]:
    index = build_index(tmp_path_factory.mktemp("keyed"))
    result = CliRunner().invoke(cli, ["serve", "--index", str(index), "--create-key", "--key-name", "ci"])
    assert result.exit_code == 0, result.output
    key = result.stdout.strip().splitlines()[0]
    assert key.startswith("rk-") and len(key) > 40
    args = ["--cors-origin", "https://chat.example.org", "--max-body-kb", "64", "--max-upload-mb", "1"]
    with ragkit_server(index, args=args) as server:
        yield server, key, index


def test_api_keys_are_required_once_one_exists(keyed) -> None:
    server, key, _ = keyed
    ask = {"model": "ragkit", "messages": [{"role": "user", "content": "When does the ferry sail?"}]}
    with pytest.raises(openai.AuthenticationError) as err:
        openai.OpenAI(base_url=server.base_url, api_key="rk-wrong", max_retries=0).chat.completions.create(**ask)
    assert err.value.status_code == 401 and err.value.code == "invalid_api_key"
    r = httpx.get(server.base_url + "/models")
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_api_key"
    for path in ("/sessions", "/traces", "/documents"):
        assert httpx.get(server.url + path).status_code == 401
    assert httpx.get(server.url + "/healthz").status_code == 200  # health checks and the page stay open
    assert httpx.get(server.url + "/").status_code == 200
    good = openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0)
    resp = good.chat.completions.create(**ask)
    assert "Tuesdays" in resp.choices[0].message.content
    trace = httpx.get(f"{server.url}/traces/{resp.model_extra['trace_id']}",
                      headers={"Authorization": f"Bearer {key}"}).json()
    assert key not in str(trace)


def test_keys_never_stored_or_logged_in_clear(keyed) -> None:
    server, key, index = keyed
    for f in index.iterdir():
        if f.is_file():
            assert key.encode() not in f.read_bytes(), f
    assert key not in server.log()


def test_refuses_a_public_bind_without_a_key(tmp_path: Path) -> None:
    index = build_index(tmp_path)
    result = CliRunner().invoke(cli, ["serve", "--index", str(index), "--host", "0.0.0.0"])
    assert result.exit_code != 0 and "refusing to bind 0.0.0.0 without an API key" in result.output
    result = CliRunner().invoke(cli, ["mcp", "--index", str(index), "--transport", "http", "--host", "0.0.0.0"])
    assert result.exit_code != 0 and "refusing" in result.output


def test_cors_only_for_configured_origins_and_never_with_credentials(keyed, local_server) -> None:
    server, _, _ = keyed
    pre = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
    ok = httpx.options(server.base_url + "/chat/completions", headers={"Origin": "https://chat.example.org", **pre})
    assert ok.headers.get("access-control-allow-origin") == "https://chat.example.org"
    assert "access-control-allow-credentials" not in ok.headers
    bad = httpx.options(server.base_url + "/chat/completions", headers={"Origin": "https://evil.example", **pre})
    assert "access-control-allow-origin" not in bad.headers
    closed = httpx.get(local_server.base_url + "/models", headers={"Origin": "https://chat.example.org"})
    assert "access-control-allow-origin" not in closed.headers  # no origins configured: closed


def test_body_and_upload_size_limits(keyed) -> None:
    server, key, _ = keyed
    auth = {"Authorization": f"Bearer {key}"}
    big = {"model": "ragkit", "messages": [{"role": "user", "content": "x" * 100_000}]}
    r = httpx.post(server.base_url + "/chat/completions", json=big, headers=auth)
    assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"

    def chunks():  # no Content-Length: the limit holds while reading
        for _ in range(100):
            yield b"x" * 1024

    r = httpx.post(server.url + "/search", content=chunks(), headers={**auth, "content-type": "application/json"})
    assert r.status_code == 413
    files = {"files": ("big.txt", b"y" * 1_200_000, "text/plain")}
    r = httpx.post(server.url + "/documents", files=files, headers=auth)
    assert r.status_code == 413 and "per upload" in r.json()["error"]["message"]


@pytest.mark.parametrize("name", ["../evil.txt", "../../evil.txt", "/etc/evil.txt", "a/../../evil.txt",
                                  "..\\evil.txt", "C:evil.txt"])
def test_uploads_cannot_leave_the_upload_area(keyed, name: str) -> None:
    server, key, index = keyed
    auth = {"Authorization": f"Bearer {key}"}
    r = httpx.post(server.url + "/documents", json={"documents": [{"name": name, "text": "owned"}]}, headers=auth)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_document_name"
    r = httpx.post(server.url + "/documents", files={"files": (name, b"owned", "text/plain")}, headers=auth)
    assert r.status_code == 400
    assert not list(index.parent.rglob("evil.txt")) and not Path("/etc/evil.txt").exists()
    r = httpx.delete(server.url + "/documents/..%2Fstate.db", headers=auth)
    assert r.status_code in (400, 404) and (index / "state.db").exists()
