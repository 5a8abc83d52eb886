"""Through a real `ragkit serve`: OpenAI-format image parts reach a vision model, a model without
vision is a 400 before any call, a bad image is a 400 naming it; stored traces say when the turn
started and completed and which sampling settings it carried (returned inline only when asked)."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import openai
import pytest

from ragkit.testing.server_process import ServerProcess, ragkit_server
from ragkit.testing.servers import IMAGE_TOKENS, FakeOpenAIServer
from ragkit.testing.servers.openai import CHAT_PATH

from .conftest import build_index

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
DATA_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


@pytest.fixture(scope="module")
def vision(tmp_path_factory: pytest.TempPathFactory, upstream: FakeOpenAIServer) -> Iterator[ServerProcess]:
    """`ragkit serve --provider openai --model gpt-4o-mini` in front of the recording ``upstream``."""
    index = build_index(tmp_path_factory.mktemp("vision"))
    with ragkit_server(index, provider="openai", args=["--model", "gpt-4o-mini", "--base-url", upstream.url],
                       env={"OPENAI_API_KEY": "sk-test"}) as server:
        yield server


def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="no-key-configured", max_retries=0)


def picture_question(url: str = DATA_URL) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": "What does the chart show?"},
                                         {"type": "image_url", "image_url": {"url": url, "detail": "low"}}]}]


def test_image_parts_pass_through_to_the_model(vision: ServerProcess, upstream: FakeOpenAIServer) -> None:
    upstream.enqueue_text("A rising line.")
    resp = client(vision).chat.completions.create(model="ragkit", messages=picture_question())
    assert resp.choices[0].message.content == "A rising line."
    user = [m for m in upstream.requests_to(CHAT_PATH)[-1].body["messages"] if m["role"] == "user"][-1]
    assert user["content"][1] == {"type": "image_url", "image_url": {"url": DATA_URL, "detail": "low"}}
    assert resp.usage.prompt_tokens > IMAGE_TOKENS  # the image was billed as input


def test_a_bad_image_is_a_400_naming_it(vision: ServerProcess, upstream: FakeOpenAIServer) -> None:
    before = len(upstream.requests)
    for url, why in [("data:image/png;base64,aGVsbG8=", "does not hold"), ("file:///etc/passwd", "http"),
                     ("data:image/tiff;base64," + base64.b64encode(PNG).decode(), "not supported")]:
        with pytest.raises(openai.BadRequestError) as info:
            client(vision).chat.completions.create(model="ragkit", messages=picture_question(url))
        assert "messages[0].content[1]" in str(info.value) and why in str(info.value)
    assert len(upstream.requests) == before  # nothing reached the model


def test_a_model_without_vision_is_a_400_before_any_call(local_server: ServerProcess) -> None:
    with pytest.raises(openai.BadRequestError, match="does not take images"):
        client(local_server).chat.completions.create(model="ragkit", messages=picture_question())


def test_stored_traces_carry_times_and_sampling(vision: ServerProcess, upstream: FakeOpenAIServer) -> None:
    resp = client(vision).chat.completions.create(
        model="ragkit", messages=[{"role": "user", "content": "When does the ferry sail?"}],
        temperature=0.3, top_p=0.8, max_tokens=40)
    data = resp.model_dump()
    assert "trace" not in data  # inline only when asked
    stored = httpx.get(f"{vision.url}/traces/{data['trace_id']}", timeout=30).json()["run"]
    assert stored["started_at"].endswith("Z") and stored["completed_at"] >= stored["started_at"]
    assert stored["sampling"] == {"temperature": 0.3, "top_p": 0.8, "max_tokens": 40}
    asked = client(vision).chat.completions.create(
        model="ragkit", messages=[{"role": "user", "content": "Again?"}], temperature=0.5,
        extra_body={"trace": True}).model_dump()
    assert asked["trace"]["sampling"] == {"temperature": 0.5} and asked["trace"]["completed_at"]
