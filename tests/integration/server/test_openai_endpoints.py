"""``/v1/embeddings`` and ``/v1/completions`` of a real `ragkit serve`, through the clients that call
them: the `openai` SDK, LangChain's ``OpenAIEmbeddings`` and LlamaIndex's ``OpenAILike`` with its
defaults (in its own virtualenv: its OpenAI integration requires openai<3; see tests/clients/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import openai
import pytest

from ragkit.index.reader import KnowledgeBase

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
QUESTION = "When does the ferry sail?"
CLIENTS = Path(__file__).parents[2] / "clients"


def client(server) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0)


def test_embeddings_use_the_index_model_and_count_tokens(local_server, index_dir) -> None:
    texts = ["the ferry sails on Tuesdays", "lighthouse"]
    resp = client(local_server).embeddings.create(model="ragkit", input=texts)  # the SDK asks for base64
    kb = KnowledgeBase.open(index=index_dir)
    try:
        expected = kb.embedder.embed_documents(texts)
        tokens = sum(kb.embedder.count_tokens(t) for t in texts)
        model_id = kb.embedder.model_id
    finally:
        kb.close()
    assert resp.model == model_id and [d.index for d in resp.data] == [0, 1]
    assert np.allclose(np.array([d.embedding for d in resp.data]), expected, atol=1e-6)
    assert resp.usage.prompt_tokens == resp.usage.total_tokens == tokens > 0
    assert resp.usage.model_extra["cost"] > 0  # the test index's model is priced
    raw = httpx.post(local_server.base_url + "/embeddings", json={"input": "lighthouse"}, timeout=30).json()
    assert raw["data"][0]["embedding"] == pytest.approx(expected[1].tolist(), abs=1e-6)  # floats; model optional
    by_id = client(local_server).embeddings.create(model=model_id, input="x")
    assert by_id.model == model_id


def test_an_unpriced_embedding_model_is_never_a_silent_zero(tmp_path) -> None:
    from ragkit.testing.server_process import ragkit_server

    from .conftest import build_index

    with ragkit_server(build_index(tmp_path, model="house-embedder")) as server:
        usage = httpx.post(server.base_url + "/embeddings", json={"input": "ferry"}, timeout=30).json()["usage"]
    assert usage["prompt_tokens"] > 0 and usage["cost"] is None
    assert len(usage["unpriced"]) == 1 and "house-embedder" in usage["unpriced"][0]


def test_langchain_openai_embeddings_share_the_index_model(local_server) -> None:
    from langchain_openai import OpenAIEmbeddings

    emb = OpenAIEmbeddings(model="ragkit", base_url=local_server.base_url, api_key="no-key-configured",
                           check_embedding_ctx_length=False)
    query, docs = emb.embed_query("ferry"), emb.embed_documents(["ferry", "lighthouse"])
    assert query == pytest.approx(docs[0], abs=1e-6) and len(docs) == 2 and len(query) == 64


@pytest.mark.parametrize(("body", "status", "param", "words"), [
    ({"input": []}, 400, "input", "empty"),
    ({"input": [[1, 2, 3]]}, 400, "input", "check_embedding_ctx_length=False"),
    ({"input": ["ok", "  "]}, 400, "input", "input[1] is empty"),
    ({"input": ["x"] * 2049}, 400, "input", "at most 2048"),
    ({"input": "x", "model": "text-embedding-ada-002"}, 404, "model", "the index's model"),
    ({"input": "x", "dimensions": 8}, 400, "dimensions", "64 dimensions"),
])
def test_embedding_errors_name_the_field(local_server, body, status, param, words) -> None:
    r = httpx.post(local_server.base_url + "/embeddings", json=body, timeout=30)
    assert r.status_code == status and r.json()["error"]["param"] == param and words in r.json()["error"]["message"]


def test_legacy_completions_answer_stream_and_cite(local_server) -> None:
    oa = client(local_server)
    full = oa.completions.create(model="ragkit", prompt=QUESTION)
    assert full.object == "text_completion" and full.id.startswith("cmpl-")
    choice = full.choices[0]
    assert "Tuesdays" in choice.text and choice.finish_reason == "stop"
    assert choice.model_extra["citations"][0]["source"] == "notes/gamma.txt"
    assert full.usage.prompt_tokens > 0 and full.usage.model_extra["embedding_tokens"] > 0
    chunks = list(oa.completions.create(model="ragkit", prompt=QUESTION, stream=True,
                                        stream_options={"include_usage": True}))
    assert "".join(c.choices[0].text for c in chunks if c.choices) == choice.text
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    cut = oa.completions.create(model="ragkit", prompt=QUESTION, max_tokens=3)
    assert cut.choices[0].finish_reason == "length" and len(cut.choices[0].text) <= 12


@pytest.mark.parametrize(("extra", "param"), [({"echo": True}, "echo"), ({"best_of": 2}, "best_of"),
                                             ({"logprobs": 2}, "logprobs"), ({"suffix": "!"}, "suffix"),
                                             ({"prompt": ["a", "b"]}, "prompt"), ({"prompt": [[1, 2]]}, "prompt")])
def test_legacy_completion_options_ragkit_cannot_honour_are_refused(local_server, extra, param) -> None:
    r = httpx.post(local_server.base_url + "/completions", json={"prompt": QUESTION, **extra}, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["param"] == param


def llamaindex_python() -> str:
    """LlamaIndex's own virtualenv (``make test`` builds ``.venv-llamaindex`` beside ``.venv``)."""
    explicit = os.environ.get("RAGKIT_LLAMAINDEX_PYTHON")
    candidate = Path(explicit) if explicit else Path(sys.prefix).parent / ".venv-llamaindex" / "bin" / "python"
    if not candidate.exists():
        pytest.fail(f"LlamaIndex's virtualenv is missing ({candidate}): run `make test` (it installs "
                    "tests/clients/llamaindex.txt there) or set RAGKIT_LLAMAINDEX_PYTHON", pytrace=False)
    return str(candidate)


def test_llamaindex_openai_like_with_its_defaults(local_server) -> None:
    out = subprocess.run([llamaindex_python(), str(CLIENTS / "llamaindex_client.py"), local_server.base_url, QUESTION],
                         capture_output=True, text=True, timeout=180, env={**os.environ, "PYTHONPATH": ""})
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["is_chat_model"] is False  # its default: the legacy completions endpoint
    assert "Tuesdays" in got["complete"] and got["stream"] == got["complete"] and "Tuesdays" in got["chat"]
    assert got["raw_citations"][0]["source"] == "notes/gamma.txt"
