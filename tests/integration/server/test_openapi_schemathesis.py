"""`/openapi.json` describes every response the server
gives (errors in OpenAI's envelope, validation errors as the 400 they are, the `/documents` request body
in both its forms), and a bounded schemathesis run over it (every operation: coverage, fuzzing and
stateful phases) finds no 5xx and no schema violation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
#: every check but positive_data_acceptance: schema-valid data may still be refused on purpose (a
#: name the pipeline would not index, a session of another key), with a documented 4xx
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance", "negative_data_rejection",
          "missing_required_header", "unsupported_method", "allow_header_conformance", "use_after_free",
          "ensure_resource_availability"]


def test_the_schema_describes_errors_and_the_upload_body(local_server) -> None:
    spec = httpx.get(local_server.url + "/openapi.json").json()
    envelope = spec["components"]["schemas"]["ErrorBody"]
    assert envelope["properties"]["error"]
    assert "HTTPValidationError" not in spec["components"]["schemas"]  # validation errors are 400 envelopes
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert "422" not in op["responses"], (method, path)
            for status in ("400", "401", "403", "404", "421", "500", "507"):
                ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorBody"), (method, path, status)
    upload = spec["paths"]["/documents"]["post"]["requestBody"]["content"]
    assert upload["application/json"]["schema"]["required"] == ["documents"]
    assert upload["multipart/form-data"]["schema"]["properties"]["files"]["items"]["format"] == "binary"
    chat = spec["paths"]["/v1/chat/completions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    chat = spec["components"]["schemas"][chat["$ref"].rsplit("/", 1)[-1]]
    assert {"type": "null"} in chat["properties"]["stream"]["anyOf"]  # null: the default, as OpenAI takes it
    assert "null" not in str(chat["properties"]["messages"])  # a required field stays required
    stream = spec["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert set(stream) == {"application/json", "text/event-stream"}


def test_a_bounded_schemathesis_run_finds_no_5xx_and_no_schema_violation(local_server, tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "schemathesis.cli", "run", local_server.url + "/openapi.json",
           "--checks", ",".join(CHECKS), "--max-examples", "8", "--seed", "26", "--no-shrink", "--workers", "1",
           "--request-timeout", "60", "--header", "X-Ragkit-Client: schemathesis",
           "--report", "junit", "--report-junit-path", str(tmp_path / "schemathesis.xml")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    summary = done.stdout[-6000:]
    assert done.returncode == 0, f"schemathesis found failures:\n{summary}\n{done.stderr[-2000:]}"
    assert "17 selected" in done.stdout or "Operations:" in done.stdout
    assert " passed" in summary and "failed" not in summary.split("SUMMARY")[-1]
