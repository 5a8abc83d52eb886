"""The conversation vocabulary: what a run, a provider, a tool, a session and a cache all speak.

``Message`` (with its ``ToolCall`` s, on tool messages the ``Citation`` s the tool returned, and on
user messages the ``Image`` s the model is shown), ``ToolSpec`` (what a model is told about a
tool), ``Usage`` (tokens), ``Response`` (one model reply) and ``StreamEvent`` (a piece of one).
Plain frozen dataclasses at the bottom of the layers (like pydantic-ai's ``messages.py`` and
haystack's ``dataclasses/``): every layer may import them, they import nothing but
``ragkit.types`` and ``ragkit.errors``. Each provider module translates them to and from its wire
format; :mod:`ragkit.providers.base` re-exports them beside the ``Provider`` protocol.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragkit.errors import ConfigError
from ragkit.types import Citation

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """A model's request to call a tool. ``arguments`` is parsed JSON; when the model sent
    malformed JSON, ``arguments`` is empty and ``parse_error`` says why (the agent reports it
    back to the model instead of calling the tool)."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None
    parse_error: str | None = None


#: the image formats every vision API ragkit speaks to accepts
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
#: the largest image a message may carry (the vendors' own limits are 5-20 MB)
MAX_IMAGE_BYTES = 20 * 1024 * 1024
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF87a", "image/gif"),
          (b"GIF89a", "image/gif"))


class ImageError(ConfigError):
    """An image a message cannot carry (not an image, too large, an unsupported format)."""


def sniff_image_type(data: bytes) -> str | None:
    """The media type of PNG, JPEG, GIF or WebP bytes, from their first bytes; None otherwise."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


@dataclass(frozen=True)
class Image:
    """An image in a user message: an ``http(s)`` ``url`` the vendor fetches, or ``data`` (the
    bytes) with its ``media_type``. ``detail`` ("low" | "high" | "auto") is passed to APIs that
    take it. Build one with :meth:`from_file`, :meth:`from_bytes`, :meth:`from_url` or
    :meth:`from_data_url`; each checks the format and size."""

    url: str | None = None
    data: bytes | None = field(default=None, repr=False)
    media_type: str | None = None
    detail: str | None = None

    def __post_init__(self) -> None:
        if (self.url is None) == (self.data is None):
            raise ImageError("an Image needs exactly one of url= (http or https) or data= (bytes with media_type=)")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ImageError(f"image url {self.url[:80]!r} must start with http:// or https:// (for a local file "
                             "use Image.from_file(path); for a data: URL use Image.from_data_url)")
        if self.data is not None:
            if self.media_type not in IMAGE_TYPES:
                raise ImageError(f"image media type {self.media_type!r} is not supported; use one of "
                                 f"{', '.join(IMAGE_TYPES)}")
            if len(self.data) > MAX_IMAGE_BYTES:
                raise ImageError(f"the image is {len(self.data):,} bytes; the limit is {MAX_IMAGE_BYTES:,} "
                                 "(20 MB): resize or compress it")
        if self.detail not in (None, "low", "high", "auto"):
            raise ImageError(f"image detail must be 'low', 'high' or 'auto' (got {self.detail!r})")

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str | None = None, *, detail: str | None = None) -> Image:
        """The image of ``data``; ``media_type`` is read from the bytes when not given."""
        found = sniff_image_type(data)
        if found is None:
            raise ImageError("the bytes are not a PNG, JPEG, GIF or WebP image")
        return cls(data=bytes(data), media_type=media_type or found, detail=detail)

    @classmethod
    def from_file(cls, path: str | Path, *, detail: str | None = None) -> Image:
        """The image in the file ``path`` (PNG, JPEG, GIF or WebP, at most 20 MB)."""
        p = Path(path)
        try:
            size = p.stat().st_size
            if size > MAX_IMAGE_BYTES:
                raise ImageError(f"{p}: the image is {size:,} bytes; the limit is {MAX_IMAGE_BYTES:,} (20 MB): "
                                 "resize or compress it")
            data = p.read_bytes()
        except OSError as exc:
            raise ImageError(f"{p}: cannot read the image ({exc.strerror or exc}); check the path") from exc
        if sniff_image_type(data) is None:
            raise ImageError(f"{p} is not an image: expected a PNG, JPEG, GIF or WebP file")
        return cls.from_bytes(data, detail=detail)

    @classmethod
    def from_url(cls, url: str, *, detail: str | None = None) -> Image:
        """An ``http(s)`` URL (the vendor fetches it), or a ``data:`` URL (decoded and checked)."""
        return cls.from_data_url(url, detail=detail) if url.startswith("data:") else cls(url=url, detail=detail)

    @classmethod
    def from_data_url(cls, url: str, *, detail: str | None = None) -> Image:
        """``data:image/png;base64,...`` -> the image (its bytes decoded and checked)."""
        head, comma, payload = url.partition(",")
        media_type = head[len("data:"):].split(";", 1)[0].strip().lower()
        if not head.startswith("data:") or not comma or not head.endswith(";base64"):
            raise ImageError("an image data URL must look like data:image/png;base64,<base64 bytes>")
        if len(payload) > MAX_IMAGE_BYTES * 4 // 3 + 4:
            raise ImageError(f"the image is larger than {MAX_IMAGE_BYTES:,} bytes (20 MB): resize or compress it")
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ImageError(f"the image data URL is not valid base64 ({exc})") from None
        if sniff_image_type(data) is None:
            raise ImageError(f"the image data URL ({media_type or 'no media type'}) does not hold a PNG, JPEG, "
                             "GIF or WebP image")
        return cls(data=data, media_type=media_type, detail=detail)

    @property
    def base64(self) -> str:
        """The bytes as base64 text ("" for a URL image)."""
        return base64.b64encode(self.data).decode("ascii") if self.data is not None else ""

    def as_url(self) -> str:
        """The URL to send: the ``http(s)`` URL, or the bytes as a ``data:`` URL."""
        return self.url if self.url is not None else f"data:{self.media_type};base64,{self.base64}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``{"url"}`` or ``{"data": base64, "media_type"}``, with ``detail`` when set."""
        out: dict[str, Any] = {"url": self.url} if self.url is not None else \
            {"data": self.base64, "media_type": self.media_type}
        return {**out, "detail": self.detail} if self.detail else out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Image:
        if data.get("url"):
            return cls(url=str(data["url"]), detail=data.get("detail"))
        raw = base64.b64decode(str(data.get("data", "")))
        return cls(data=raw, media_type=data.get("media_type"), detail=data.get("detail"))


@dataclass(frozen=True)
class Message:
    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # tool name, on role="tool" messages
    agent: str | None = None  # the agent that wrote an assistant message (multi-agent runs)
    #: on role="tool" messages: the structured passages the tool returned (its ``ToolOutput``
    #: citations), for providers that read them rather than the text (the ``local`` provider)
    citations: tuple[Citation, ...] = field(default=(), compare=False)
    #: on role="user" messages: images the model is shown with the text (a vision model's input)
    images: tuple[Image, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The message as JSON-able data (the citations live in ``AgentResult.citations``)."""
        data = asdict(self)
        del data["citations"]
        data["images"] = [i.to_dict() for i in self.images]
        if not self.images:
            del data["images"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """The inverse of ``to_dict``."""
        calls = tuple(ToolCall(**c) for c in data.get("tool_calls", ()))
        return cls(role=data["role"], content=data.get("content", ""), tool_calls=calls,
                   tool_call_id=data.get("tool_call_id"), name=data.get("name"), agent=data.get("agent"),
                   images=tuple(Image.from_dict(i) for i in data.get("images", ())))


@dataclass(frozen=True)
class ToolSpec:
    """What a provider sends to the model about a tool: name, description, JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Tokens of one model call. ``cached_input_tokens``: the part of ``input_tokens`` read from the
    vendor's prompt cache (billed at its cached-input price)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    #: images the request carried (the vendor counts their tokens in ``input_tokens``)
    images: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                     self.cached_input_tokens + other.cached_input_tokens, self.images + other.images)


@dataclass(frozen=True)
class Response:
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    stop_reason: str = "stop"  # "stop" | "tool_calls" | "length" | provider-specific
    reasoning: str = ""  # the model's reasoning/thinking content, when the API returns it

    def to_message(self, agent: str | None = None) -> Message:
        return Message(role="assistant", content=self.content, tool_calls=self.tool_calls, agent=agent)


@dataclass(frozen=True)
class StreamEvent:
    """``text`` deltas as they arrive, then exactly one ``done`` carrying the full Response."""

    type: Literal["text", "done"]
    text: str = ""
    response: Response | None = None


def count_images(messages: Any) -> int:
    """How many images ``messages`` carry."""
    return sum(len(m.images) for m in messages)


__all__ = ["IMAGE_TYPES", "MAX_IMAGE_BYTES", "Image", "ImageError", "Message", "count_images", "sniff_image_type", "Response", "Role", "StreamEvent", "ToolCall", "ToolSpec", "Usage"]
