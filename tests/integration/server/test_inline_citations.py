"""Citations for clients that drop extension fields: ``citations: "inline"`` per request
and ``ragkit serve --citations inline`` per server end the answer with a short numbered Sources
block, identical streamed and not; the default stays the extension field."""

from __future__ import annotations

import os
from collections.abc import Iterator

import openai
import pytest

from ragkit.testing.server_process import ServerProcess, ragkit_server

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
QUESTION = "When does the ferry sail?"
BLOCK = "\n\nSources:\n[1] notes/gamma.txt"
MESSAGES = [{"role": "user", "content": QUESTION}]


def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0)


def streamed(server: ServerProcess, **kw) -> str:
    chunks = client(server).chat.completions.create(model="ragkit", messages=MESSAGES, stream=True, **kw)
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def test_a_request_asks_for_inline_sources(local_server) -> None:
    oa = client(local_server)
    plain = oa.chat.completions.create(model="ragkit", messages=MESSAGES).choices[0].message
    inline = oa.chat.completions.create(model="ragkit", messages=MESSAGES,
                                        extra_body={"citations": "inline"}).choices[0].message
    assert "Sources:" not in plain.content  # the default: the extension field only
    assert inline.content == plain.content + BLOCK
    assert inline.model_extra["citations"] == plain.model_extra["citations"]  # the field stays
    assert streamed(local_server, extra_body={"citations": "inline"}) == inline.content
    completion = oa.completions.create(model="ragkit", prompt=QUESTION, extra_body={"citations": "inline"})
    assert completion.choices[0].text == inline.content


def test_structured_output_stays_json(local_server) -> None:
    import json

    resp = client(local_server).chat.completions.create(model="ragkit", messages=MESSAGES,
                                                        response_format={"type": "json_object"},
                                                        extra_body={"citations": "inline"})
    assert json.loads(resp.choices[0].message.content)["sources"] == ["notes/gamma.txt"]


@pytest.fixture(scope="module")
def inline_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ragkit_server(build_index(tmp_path_factory.mktemp("inline")), args=["--citations", "inline"]) as server:
        yield server


def test_the_server_option_and_clients_that_drop_extension_fields(inline_server) -> None:
    import litellm
    from langchain_openai import ChatOpenAI

    full = client(inline_server).chat.completions.create(model="ragkit", messages=MESSAGES).choices[0].message
    assert full.content.endswith(BLOCK) and streamed(inline_server) == full.content
    field_only = client(inline_server).chat.completions.create(model="ragkit", messages=MESSAGES,
                                                               extra_body={"citations": "field"})
    assert field_only.choices[0].message.content + BLOCK == full.content
    llm = ChatOpenAI(model="ragkit", base_url=inline_server.base_url, api_key="x", max_retries=0)
    assert llm.invoke(QUESTION).content == full.content  # LangChain drops the citations field
    assert "".join(c.content for c in llm.stream(QUESTION)) == full.content
    parts = litellm.completion(model="openai/ragkit", api_base=inline_server.base_url, api_key="x",
                               messages=MESSAGES, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in parts) == full.content  # litellm streaming too
