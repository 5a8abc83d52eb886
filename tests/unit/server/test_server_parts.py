"""Fast checks of the server's parts that need no server process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragkit.errors import ConfigError, ProviderError
from ragkit.messages import Message, ToolSpec
from ragkit.server.library import resolve_upload
from ragkit.server.settings import ServerSettings, is_loopback
from ragkit.testing.echo import FAIL_TRIGGER, EchoProvider
from ragkit.types import Citation


@pytest.mark.parametrize("name", ["a.md", "notes/b.txt", "./c.txt", "deep/er/d.pdf"])
def test_upload_names_inside_the_area(tmp_path: Path, name: str) -> None:
    target = resolve_upload(tmp_path, name)
    assert target.is_relative_to(tmp_path.resolve()) and target.name == Path(name).name


@pytest.mark.parametrize("name", ["", "/", "..", "../x", "a/../../x", "/etc/passwd", "..\\x", "C:x", "a\0b", "."])
def test_upload_names_that_would_leave_the_area(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match="invalid document name"):
        resolve_upload(tmp_path, name)


def test_symlink_out_of_the_area_is_refused(tmp_path: Path) -> None:
    area, outside = tmp_path / "uploads", tmp_path / "outside"
    area.mkdir()
    outside.mkdir()
    (area / "link").symlink_to(outside)
    with pytest.raises(ConfigError, match="outside the upload area"):
        resolve_upload(area, "link/x.txt")


def test_loopback() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10")


def test_settings_validate_and_travel_as_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    s = ServerSettings(index=str(tmp_path), cors_origins=["https://a.example"])
    assert s.state_url == "sqlite:///" + str(tmp_path.absolute() / "state.db")
    monkeypatch.setenv("RAGKIT_SERVE_SETTINGS", s.to_env())
    assert ServerSettings.from_env() == s
    with pytest.raises(ConfigError, match="cannot be combined"):
        ServerSettings(index=".", cors_origins=["*", "https://a.example"])
    with pytest.raises(ConfigError, match="max_body_bytes"):
        ServerSettings(index=".", max_body_bytes=10)


def test_echo_provider_calls_the_tool_then_answers_and_can_fail() -> None:
    tool = ToolSpec("search_knowledge_base", "search", {"type": "object"})
    p = EchoProvider()
    first = p.complete([Message("user", "ferry?")], [tool])
    assert first.tool_calls[0].arguments == {"query": "ferry?"}
    passages = Message("tool", "Passages:\n\n[1] source: notes/g.txt | score: 0.9\ntext", tool_call_id="c")
    answer = p.complete([Message("user", "ferry?"), first.to_message(), passages], [tool])
    assert answer.content == "You asked: ferry?. notes/g.txt says so [1]."
    words = [e.text for e in p.stream([Message("user", "ferry?"), first.to_message(), passages], [tool])
             if e.type == "text"]
    assert "".join(words) == answer.content
    failing = [Message("user", FAIL_TRIGGER), first.to_message(), passages]
    with pytest.raises(ProviderError):
        p.complete(failing, [tool])

    async def stream() -> list[str]:
        return [e.text async for e in p.astream(failing, [tool]) if e.type == "text"]

    with pytest.raises(ProviderError):
        asyncio.run(stream())


class _Book:
    """The citation book of a run whose searches returned the passages ``numbers``."""

    def __init__(self, *numbers: int) -> None:
        self.numbers = numbers

    def get(self, n: int) -> Citation | None:
        return Citation(number=n, source=f"s{n}.md", chunk_id=f"c{n}") if n in self.numbers else None


# the server's turns go through the one citation resolver: a marker that does not
# resolve goes with the space before it, as in RAGAgent's answers (the server's own filter kept it)
@pytest.mark.parametrize("pieces", [["See [1] and [7]."], ["See [", "1] and [", "7", "]."], list("See [1] and [7].")])
def test_marker_filter_drops_markers_that_do_not_resolve(pieces: list[str]) -> None:
    from ragkit.rag.citations import CitationNumbering

    f = CitationNumbering(_Book(1))  # type: ignore[arg-type]
    out = "".join(f.feed(p) for p in pieces) + f.flush()
    assert out == "See [1] and."


def test_marker_filter_keeps_brackets_that_are_not_markers() -> None:
    from ragkit.rag.citations import CitationNumbering

    f = CitationNumbering(_Book())  # type: ignore[arg-type]
    assert f.feed("a [b] [") + f.feed("x] [12") + f.flush() == "a [b] [x] [12"
