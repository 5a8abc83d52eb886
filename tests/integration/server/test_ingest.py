"""The ingest API: uploads become jobs that run through the incremental pipeline and its lock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from filelock import FileLock

from ragkit.testing.server_process import ServerProcess, ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
WINTER = "In winter the ferry to Skerry Island only sails on Fridays, weather permitting."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    index = build_index(tmp_path_factory.mktemp("ingest"))
    with ragkit_server(index, workers=2) as s:
        yield s


def index_of(server: ServerProcess) -> Path:
    args = list(server.proc.args)
    return Path(args[args.index("--index") + 1])


def wait_job(server: ServerProcess, job_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job = httpx.get(f"{server.url}/jobs/{job_id}").json()
        if job["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def test_upload_text_then_search_and_cite_it(server) -> None:
    r = httpx.post(server.url + "/documents", json={"documents": [{"name": "faq/winter.md", "text": WINTER}]})
    assert r.status_code == 202 and r.json()["status"] == "queued" and r.json()["documents"] == ["faq/winter.md"]
    job = wait_job(server, r.json()["id"])
    assert job["status"] == "succeeded", job
    res = job["result"]
    assert res["counts"]["added"] == 1 and res["added"] == ["faq/winter.md"] and res["embedding_tokens"] > 0
    assert res["cost"] > 0 and res["counts"]["chunks_total"] > 3
    docs = {d["source"]: d for d in httpx.get(server.url + "/documents").json()["data"]}
    assert docs["faq/winter.md"]["uploaded"] and not docs["alpha.md"]["uploaded"]
    hits = httpx.post(server.url + "/search", json={"query": "winter ferry Skerry", "top_k": 2}).json()["data"]
    assert hits[0]["source"] == "faq/winter.md" and "Fridays" in hits[0]["text"]
    for _ in range(4):  # both workers reopen the index after the job
        resp = httpx.post(server.url + "/chat", json={"message": "When does the ferry to Skerry Island sail in winter?"},
                          timeout=60).json()
        assert any(c["source"] == "faq/winter.md" for c in resp["citations"]), resp
    stored = [httpx.get(f"{server.url}/sessions/{resp['session_id']}").text,
              httpx.get(f"{server.url}/traces/{resp['trace']['id']}").text]
    assert all("faq/winter.md" in text and "uploads/" not in text for text in stored)  # never the index's name
    hits = httpx.post(server.url + "/search", json={"query": "ferry", "filter": {"source": {"$glob": "faq/*"}}}).json()
    assert {h["source"] for h in hits["data"]} == {"faq/winter.md"}


def test_an_upload_cannot_take_the_name_of_a_folder_document(server) -> None:
    r = httpx.post(server.url + "/documents", json={"documents": [{"name": "new.md", "text": "x"},
                                                                  {"name": "alpha.md", "text": WINTER}]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken" and "alpha.md" in r.json()["error"]["message"]
    assert not (index_of(server) / "uploads" / "new.md").exists()  # nothing of the request was written
    docs = {d["source"]: d for d in httpx.get(server.url + "/documents").json()["data"]}
    assert not docs["alpha.md"]["uploaded"] and "new.md" not in docs


def test_reingesting_identical_content_is_a_no_op(server) -> None:
    body = {"documents": [{"name": "faq/winter.md", "text": WINTER}]}
    job = wait_job(server, httpx.post(server.url + "/documents", json=body).json()["id"])
    counts = job["result"]["counts"]
    assert job["status"] == "succeeded" and counts["added"] == counts["updated"] == 0
    assert counts["unchanged"] >= 1 and job["result"]["embedding_tokens"] == 0


def test_multipart_upload_reports_skipped_files_with_reasons(server) -> None:
    files = [("files", ("tides.txt", b"High tide at the old harbour is at noon on Sundays.", "text/plain")),
             ("files", ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "application/pdf"))]
    r = httpx.post(server.url + "/documents", files=files, headers={"X-Ragkit-Client": "test"})
    assert r.status_code == 202 and sorted(r.json()["documents"]) == ["broken.pdf", "tides.txt"]
    job = wait_job(server, r.json()["id"])
    assert job["status"] == "succeeded" and "tides.txt" in job["result"]["added"]
    skipped = {s["source"]: s["reason"] for s in job["result"]["skipped"]}
    assert "broken.pdf" in skipped and skipped["broken.pdf"]


def test_delete_an_uploaded_document(server) -> None:
    r = httpx.delete(server.url + "/documents/tides.txt")
    assert r.status_code == 202
    job = wait_job(server, r.json()["id"])
    assert job["status"] == "succeeded" and job["result"]["removed"] == ["tides.txt"]
    assert "tides.txt" not in {d["source"] for d in httpx.get(server.url + "/documents").json()["data"]}
    r = httpx.delete(server.url + "/documents/alpha.md")
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_uploaded"
    r = httpx.delete(server.url + "/documents/missing.md")
    assert r.status_code == 404 and r.json()["error"]["code"] == "document_not_found"
    assert httpx.get(server.url + "/jobs/job_nope").status_code == 404


def test_jobs_queue_behind_the_index_writer_lock(server) -> None:
    lock = FileLock(str(index_of(server) / "index.lock"))
    with lock.acquire(timeout=10):  # as if `ragkit index` were running
        r = httpx.post(server.url + "/documents", json={"documents": [{"name": "late.md", "text": "The bell rings at six."}]})
        time.sleep(2)
        assert httpx.get(f"{server.url}/jobs/{r.json()['id']}").json()["status"] == "queued"
    job = wait_job(server, r.json()["id"])
    assert job["status"] == "succeeded" and job["result"]["added"] == ["late.md"]


def test_listings_keep_answering_while_a_writer_holds_the_catalog(server) -> None:
    import duckdb

    before = httpx.get(server.url + "/documents").json()["data"]
    con = duckdb.connect(str(index_of(server) / "catalog.duckdb"))  # a writer holding the catalog
    try:
        for _ in range(4):  # both workers: the documents as of the last job
            r = httpx.get(server.url + "/documents")
            assert r.status_code == 200 and r.json()["data"] == before
    finally:
        con.close()


def test_bad_ingest_requests(server) -> None:
    r = httpx.post(server.url + "/documents", json={"documents": [{"name": "x.md"}]})
    assert r.status_code == 400 and r.json()["error"]["param"] == "documents.0.text"
    r = httpx.post(server.url + "/search", json={"query": "x", "top_k": 0})
    assert r.status_code == 400 and r.json()["error"]["param"] == "top_k"


def test_fresh_server_on_an_empty_index_dir(tmp_path: Path) -> None:
    from ...unit.pipeline.helpers import make_spec

    spec = make_spec(tmp_path / "index", embedder={"type": "hashing", "dimension": 64})
    (tmp_path / "pipeline.yaml").write_text(spec.model_dump_json(), encoding="utf-8")
    with ragkit_server(tmp_path / "index", args=["--pipeline", str(tmp_path / "pipeline.yaml")]) as s:
        assert httpx.get(s.url + "/documents").json()["data"] == []
        job = wait_job(s, httpx.post(s.url + "/documents", json={"documents": [{"name": "a.md", "text": WINTER}]}).json()["id"])
        assert job["status"] == "succeeded" and job["result"]["added"] == ["a.md"]


def test_uploads_in_the_newer_formats_are_read_without_their_markup(server) -> None:
    """An R help page, Perl POD, a documented Python module, an IRC log, Javadoc, a Go doc comment,
    a sample configuration file, a chart's commented values.yaml, a JSDoc'd script, a .proto file
    and an mdoc page, uploaded through the API, are read by their writers: search returns their
    facts without the format's markup."""
    log = "".join(f"10:0{i} <ann> morning {i}\n" for i in range(6)) + "10:09 <@bo> the breakwater repair is at 60%\n"
    docs = [
        {"name": "man/tide_height.Rd", "text": "\\name{tide_height}\n\\title{Tide Height}\n"
         "\\arguments{\\item{interval}{Minutes between gauge readings; the default is 12 minutes.}}\n"},
        {"name": "lib/Harbour/Ferry.pod", "text": "=head1 NAME\n\nHarbour::Ferry - the ferry timetable\n\n"
         "=head1 OPTIONS\n\n=over\n\n=item B<--berth>\n\nThe ferry's berth, default C<north quay>.\n\n=back\n"},
        {"name": "harbour/gauge.py", "text": '"""Gauge helpers."""\n\n\ndef drain(level=4):\n'
         '    """Opens the sluice when the basin passes *level*, as the lock keeper asked."""\n    return level\n'},
        {"name": "meetings/042.log", "text": log},
        {"name": "src/Lock.java", "text": "package harbour;\n\n/**\n * Opens the gates; a {@code Lock} is not safe\n"
         " * for use by several threads at once.\n */\npublic class Lock {}\n"},
        {"name": "tides/gauge.go", "text": "package tides\n\n// Flood reports whether the basin floods;\n"
         "// it is safe for concurrent use by several goroutines.\nfunc Flood() bool { return false }\n"},
        {"name": "etc/ferryd.conf.sample", "text": "[general]\n; The port the booking desk listens on.\n"
         ";deskport=7311   ; the booking desk's port (default 7311)\nbindaddr = 0.0.0.0\n"},
        {"name": "chart/values.yaml", "text": "## Ferry chart\ningress:\n  # Enable the ingress\n  enabled: false\n"
         "  ## Largest tide table upload\n  maxBodySize: 4m\nreplicas: 1\n"},
        {"name": "src/berth.js", "text": "/**\n * Books a berth.\n * @param {boolean} [opts.overnight=false] - If true,"
         " the berth is held until the morning tide.\n */\nexport function book(opts = {}) {}\n"},
        {"name": "api/ferry.proto", "text": "syntax = \"proto3\";\n\nmessage Sailing {\n  // Minutes that boarding"
         " stays open before the ferry casts off.\n  int32 boarding_window = 1;\n}\n"},
        {"name": "man/kiln-cool.8", "text": ".Dd March 2, 2026\n.Dt KILN-COOL 8\n.Os\n.Sh NAME\n.Nm kiln-cool\n"
         ".Nd cool kilns\n.Sh DESCRIPTION\n.Nm\nlets a kiln cool slowly after the night shift's firing.\n"},
    ]
    r = httpx.post(server.url + "/documents", json={"documents": docs})
    assert r.status_code == 202, r.text
    job = wait_job(server, r.json()["id"])
    assert job["status"] == "succeeded" and job["result"]["counts"]["added"] == 11, job
    for query, source, fact, markup in (
        ("tide_height interval between gauge readings", "man/tide_height.Rd", "12 minutes", "\\item"),
        ("Harbour::Ferry berth default", "lib/Harbour/Ferry.pod", "north quay", "C<"),
        ("drain sluice basin lock keeper", "harbour/gauge.py", "lock keeper", '"""'),
        ("breakwater repair", "meetings/042.log", "bo: the breakwater repair is at 60%", "<@bo>"),
        ("Lock gates threads", "src/Lock.java", "a `Lock` is not safe\nfor use by several threads", "{@code"),
        ("Flood basin goroutines", "tides/gauge.go", "Flood reports whether the basin floods", "// Flood"),
        ("booking desk port default", "etc/ferryd.conf.sample", "`deskport=7311`: the booking desk's port", ";deskport"),
        ("largest tide table upload", "chart/values.yaml", "`ingress.maxBodySize`: Largest tide table upload. Default: `4m`", "##"),
        ("berth held until the morning tide", "src/berth.js",
         "`opts.overnight` (`boolean`, default `false`): If true, the berth is held", "@param"),
        ("boarding stays open before the ferry casts off", "api/ferry.proto",
         "Minutes that boarding stays open", "// Minutes"),
        ("kiln cool slowly after the night shift's firing", "man/kiln-cool.8", "kiln-cool lets a kiln cool", ".Nm"),
    ):
        hits = httpx.post(server.url + "/search", json={"query": query, "top_k": 8}).json()["data"]
        found = [h for h in hits if h["source"] == source]
        assert found and any(fact in h["text"] for h in found), (source, hits)
        assert not any(markup in h["text"] for h in found), (source, hits)
