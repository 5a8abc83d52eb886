"""Images in messages: encoded per vendor on the wire (the real SDKs against the loopback servers),
counted in usage, priced as the registry knows, refused before any call for a model that cannot
see them; the bounds of what an image may be; ``ragkit ask --image``."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit import pricing
from ragkit.agent import Agent
from ragkit.cli.main import cli
from ragkit.messages import MAX_IMAGE_BYTES, Image, ImageError, Message
from ragkit.providers.anthropic import AnthropicProvider
from ragkit.providers.openai import GeminiProvider, OpenAIProvider
from ragkit.providers.vision import VisionError
from ragkit.rag.local import LocalProvider
from ragkit.testing.servers import IMAGE_TOKENS, FakeAnthropicServer, FakeOpenAIServer
from ragkit.testing.servers.anthropic import MESSAGES_PATH
from ragkit.testing.servers.openai import CHAT_PATH

from ..unit.pipeline.helpers import write_cli_pipeline

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 32


def question(*images: Image) -> list[Message]:
    return [Message(role="user", content="What is in the picture?", images=images)]


@pytest.fixture(autouse=True)
def _fresh_prices():
    pricing.reload()
    yield
    pricing.reload()


def test_openai_sends_image_url_parts_and_counts_and_prices_the_images() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_text("A cat.")
        provider = OpenAIProvider(model="gpt-4o-mini", api_key="test", base_url=server.url)
        result = Agent(provider).run(question(Image.from_bytes(PNG), Image.from_url("https://example.com/cat.jpg",
                                                                                    detail="low")))
        body = server.requests_to(CHAT_PATH)[-1].body
    parts = body["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "What is in the picture?"}
    assert parts[1] == {"type": "image_url",
                        "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}
    assert parts[2] == {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg", "detail": "low"}}
    usage = result.usage
    assert result.content == "A cat." and usage.images == 2
    assert usage.input_tokens == 5 + 2 * IMAGE_TOKENS  # the vendor bills the images as input tokens
    expected = (usage.input_tokens * 0.15 + usage.output_tokens * 0.60) / 1e6  # gpt-4o-mini's list prices
    assert usage.llm_cost == pytest.approx(expected) and usage.unpriced == []
    step = result.trace.of_type("llm_call")[0]
    assert step.images == 2 and "2 images" in usage.summary_line()


def test_anthropic_sends_image_blocks_streamed_too() -> None:
    with FakeAnthropicServer() as server:
        provider = AnthropicProvider(model="claude-3-5-haiku-latest", api_key="test", base_url=server.url)
        events = list(provider.stream(question(Image.from_bytes(JPEG), Image.from_url("https://example.com/a.png"))))
        body = server.requests_to(MESSAGES_PATH)[-1].body
    blocks = body["messages"][-1]["content"]
    assert blocks[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                                     "data": base64.b64encode(JPEG).decode()}}
    assert blocks[1] == {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    assert blocks[2] == {"type": "text", "text": "What is in the picture?"}
    response = events[-1].response
    assert response.usage.images == 2 and response.usage.input_tokens == 5 + 2 * IMAGE_TOKENS


def test_gemini_takes_images_through_its_openai_endpoint() -> None:
    with FakeOpenAIServer() as server:
        provider = GeminiProvider(model="gemini-2.0-flash", api_key="test", base_url=server.url)
        response = provider.complete(question(Image.from_bytes(PNG)))
        body = server.requests_to(CHAT_PATH)[-1].body
    assert body["model"] == "gemini-2.0-flash"
    assert body["messages"][-1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert response.usage.images == 1


def test_a_model_without_vision_is_refused_before_any_call() -> None:
    with FakeOpenAIServer() as server:
        provider = OpenAIProvider(model="gpt-3.5-turbo", api_key="test", base_url=server.url)
        with pytest.raises(VisionError, match=r"'gpt-3.5-turbo' does not take images.*vision model"):
            provider.complete(question(Image.from_bytes(PNG)))
        with pytest.raises(VisionError):
            Agent(provider).run(question(Image.from_bytes(PNG)))
        assert server.requests == []  # nothing left the machine
    with pytest.raises(VisionError, match="'local' provider"):  # the offline answerer reads text only
        Agent(LocalProvider()).run(question(Image.from_bytes(PNG)))


def test_images_of_a_model_whose_image_pricing_is_unknown_are_unpriced_out_loud(caplog) -> None:
    pricing.register("house-vlm", input=1.0, output=2.0)  # a price, but nothing says it takes images
    with FakeOpenAIServer() as server, caplog.at_level(logging.WARNING, logger="ragkit.pricing"):
        provider = OpenAIProvider(model="house-vlm", api_key="test", base_url=server.url)
        result = Agent(provider).run(question(Image.from_bytes(PNG)))
        assert result.usage.llm_cost is None and result.usage.unpriced == ["house-vlm"]
        assert "unpriced" in result.usage.summary_line()
        assert "vision: true" in caplog.text
        pricing.register("house-vlm", input=1.0, output=2.0, vision=True)  # now the registry knows
        result = Agent(provider).run(question(Image.from_bytes(PNG)))
    assert result.usage.llm_cost == pytest.approx((result.usage.input_tokens * 1.0 + result.usage.output_tokens * 2.0) / 1e6)


def test_image_bounds(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a picture")
    with pytest.raises(ImageError, match=r"notes\.txt is not an image"):
        Image.from_file(text)
    with pytest.raises(ImageError, match="cannot read"):
        Image.from_file(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="limit is"):
        Image.from_bytes(PNG + b"\x00" * MAX_IMAGE_BYTES)
    with pytest.raises(ImageError, match="not supported"):
        Image(data=PNG, media_type="image/bmp")
    with pytest.raises(ImageError, match="http"):
        Image.from_url("file:///etc/passwd")
    with pytest.raises(ImageError, match="base64"):
        Image.from_url("data:image/png;base64,@@@")
    with pytest.raises(ImageError, match="does not hold"):
        Image.from_url("data:image/png;base64," + base64.b64encode(b"hello").decode())
    with pytest.raises(ImageError, match="detail"):
        Image.from_bytes(PNG, detail="huge")
    picture = tmp_path / "p.png"
    picture.write_bytes(PNG)
    image = Image.from_file(picture)
    assert image.media_type == "image/png" and Image.from_dict(image.to_dict()) == image


def test_ask_image_reaches_the_model_and_a_non_image_file_is_a_clear_error(tmp_path: Path) -> None:
    docs, pipe = write_cli_pipeline(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(docs), "--pipeline", str(pipe)]).exit_code == 0
    index = str(pipe.parent / "index")
    text = tmp_path / "notes.txt"
    text.write_text("not a picture")
    res = runner.invoke(cli, ["ask", "What is this?", "--index", index, "--image", str(text)])
    assert res.exit_code == 2 and "notes.txt is not an image" in res.output and "Traceback" not in res.output
    res = runner.invoke(cli, ["ask", "What is this?", "--index", index, "--image", str(text.with_name("p.png"))])
    assert res.exit_code == 2 and "cannot read" in res.output
    picture = tmp_path / "p.png"
    picture.write_bytes(PNG)
    res = runner.invoke(cli, ["ask", "What is this?", "--index", index, "--image", str(picture)])
    assert res.exit_code == 2 and "does not take images" in res.output  # the local provider: refused up front
    with FakeOpenAIServer() as server:
        server.enqueue_text("A tiny picture.")
        res = runner.invoke(cli, ["ask", "What is this?", "--index", index, "--image", str(picture), "--provider",
                                  "openai", "--model", "gpt-4o-mini", "--base-url", server.url, "--json"],
                            env={"OPENAI_API_KEY": "sk-test"})
        body = server.requests_to(CHAT_PATH)[0].body
    assert res.exit_code == 0, res.output
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    assert [p["type"] for p in user["content"]] == ["text", "image_url"]
    assert '"images": 1' in res.output


def test_cohere_sends_image_url_parts() -> None:
    from ragkit.providers.cohere import CohereProvider
    from ragkit.testing.servers import FakeCohereServer

    with FakeCohereServer() as server:
        provider = CohereProvider(model="command-a-vision-07-2025", api_key="test", base_url=server.url)
        response = provider.complete(question(Image.from_bytes(PNG)))
        body = server.requests[-1].body
    parts = body["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "What is in the picture?"}
    assert parts[1]["type"] == "image_url" and parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert response.usage.images == 1


def test_a_handoff_to_an_agent_that_cannot_see_the_images_is_refused_before_it_is_called() -> None:
    from ragkit.agent import AgentRunner
    from ragkit.agent.multi.definition import AgentDefinition
    from ragkit.agent.multi.handoff import handoff
    from ragkit.testing.scripted import ScriptedProvider, tool_call_response

    seeing = ScriptedProvider([tool_call_response(("transfer_to_text", {}))], model="gpt-4o-mini")
    blind = ScriptedProvider(["never asked"])
    a = AgentDefinition(name="vision", provider=seeing, handoffs=[handoff("text")])
    b = AgentDefinition(name="text", provider=blind)
    with pytest.raises(VisionError, match="'scripted' provider's model 'scripted' does not take images"):
        AgentRunner([a, b], entry="vision").run(question(Image.from_bytes(PNG)))
    assert len(seeing.calls) == 1 and blind.calls == []


def test_images_count_in_the_context_window_estimate() -> None:
    from ragkit.agent import AgentConfig, ConversationMemory
    from ragkit.testing.scripted import ScriptedProvider
    from ragkit.tokens import IMAGE_TOKENS_ESTIMATE

    memory = ConversationMemory(context_window=IMAGE_TOKENS_ESTIMATE)  # room for the text, not for the picture
    provider = ScriptedProvider(["A cat."], model="gpt-4o-mini")
    assert Agent(provider, config=AgentConfig(memory=memory)).run(question()).stop_reason == "stop"
    result = Agent(provider, config=AgentConfig(memory=memory)).run(question(Image.from_bytes(PNG)))
    assert result.stop_reason == "budget" and len(provider.calls) == 1  # the second request never left
    assert memory.count_tokens(question(Image.from_bytes(PNG))) > IMAGE_TOKENS_ESTIMATE
