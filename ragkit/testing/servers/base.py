"""A threaded loopback HTTP server with a scriptable queue of replies and a request log.

Subclasses speak one vendor's wire protocol (OpenAI, Anthropic, Cohere) well enough for the real
SDK clients. Replies are scripted provider-neutrally (:class:`TextReply`, :class:`ToolCallReply`,
:class:`ErrorReply`, :class:`Disconnect`) and each subclass renders them in its own format, as
JSON or as a server-sent-event stream depending on what the request asked for. With an empty
queue a server falls back to a deterministic default (chat echoes the last user message).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import socket
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

_WORD = re.compile(r"\w+")


# ---------------------------------------------------------------- scripted replies


@dataclass(frozen=True)
class TextReply:
    """A plain assistant answer. ``finish="length"`` simulates hitting max_tokens."""

    text: str
    finish: str = "stop"  # "stop" | "length"


@dataclass(frozen=True)
class ToolCall:
    """One scripted tool call. A ``str`` ``arguments`` is sent verbatim (use it for bad JSON)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass(frozen=True)
class ToolCallReply:
    calls: tuple[ToolCall, ...]
    text: str = ""  # text said before the calls (Anthropic text block, Cohere tool_plan)


@dataclass(frozen=True)
class ErrorReply:
    status: int
    message: str = "scripted error"
    retry_after: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Disconnect:
    """Close the connection without answering (the client sees a connection error)."""


@dataclass(frozen=True)
class Hang:
    """Never answer (until the server stops): the client's read timeout fires."""


@dataclass(frozen=True)
class JSONReply:
    """Anything else: a raw status, JSON body and headers, sent as is."""

    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


Reply = TextReply | ToolCallReply | ErrorReply | Disconnect | Hang | JSONReply


# ---------------------------------------------------------------- wire-level answers


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None
    raw: bytes = b""


@dataclass(frozen=True)
class SSE:
    """A server-sent-event stream: (event name or None, data) pairs; dict data is JSON-encoded."""

    events: list[tuple[str | None, Any]]
    headers: dict[str, str] = field(default_factory=dict)


HTTPAnswer = JSONReply | SSE | Disconnect | Hang


# ---------------------------------------------------------------- helpers for subclasses


def count_tokens(text: str) -> int:
    """The fake servers' tokenizer: one token per word."""
    return len(_WORD.findall(text))


def hashed_vector(text: str, dimension: int) -> np.ndarray:
    """A deterministic, L2-normalised bag-of-hashed-words vector (float32)."""
    vec = np.zeros(dimension, dtype=np.float32)
    for word in _WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "little") % dimension
        vec[index] += 1.0 if digest[4] % 2 == 0 else -1.0
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        vec[0] = 1.0
        return vec
    return vec / norm


def overlap_score(query: str, document: str) -> float:
    """Word-overlap relevance in [0, 1]: the share of query words found in the document."""
    q = set(_WORD.findall(query.lower()))
    d = set(_WORD.findall(document.lower()))
    return len(q & d) / len(q) if q else 0.0


def free_port(host: str = "127.0.0.1") -> int:
    """A port that nothing listens on right now (for "dead endpoint" tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def chunk_text(text: str, size: int = 8) -> list[str]:
    """Split ``text`` into pieces of ``size`` characters (how fake streams deliver deltas)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def word_chunks(text: str) -> list[str]:
    """Split text into word-sized deltas that concatenate back to the original."""
    return re.findall(r"\S+\s*|\s+", text) or [""]


def reply_tokens(reply: TextReply | ToolCallReply) -> int:
    """Output tokens of a chat reply: its text, plus each tool call's arguments and one for its name."""
    calls = reply.calls if isinstance(reply, ToolCallReply) else ()
    return count_tokens(reply.text) + sum(count_tokens(c.arguments_json()) + 1 for c in calls)


def call_id(call: ToolCall, n: int, i: int) -> str:
    """The id of the ``i``-th tool call of the ``n``-th reply: the scripted one, else ``call_{n}_{i}``."""
    return call.id or f"call_{n}_{i}"


def function_calls(reply: ToolCallReply, n: int) -> list[dict[str, Any]]:
    """A reply's tool calls as ``{"id", "type": "function", "function": {"name", "arguments"}}``
    objects (the shape OpenAI and Cohere v2 share)."""
    return [
        {"id": call_id(c, n, i), "type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}}
        for i, c in enumerate(reply.calls)
    ]


def typed_event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    """An SSE event named ``kind`` whose data repeats it as ``type`` (Anthropic's and Cohere's streams)."""
    return kind, {"type": kind, **fields}


# ---------------------------------------------------------------- the server


class FakeServer:
    """Base class: subclasses set ``chat_path``, ``url_prefix`` and implement ``route``."""

    chat_path: str = "/"
    url_prefix: str = ""  # appended to http://host:port to form ``url``

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self._requested_port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Reply]] = {}
        self._stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._counter = 0  # chat replies served, numbering their ids

    def chat_turn(self, body: dict[str, Any], reply: Reply | None) -> tuple[TextReply | ToolCallReply, int]:
        """The reply to a chat request (an echo of the last user text when none was queued), numbered."""
        if reply is None:
            reply = TextReply(f"echo: {last_user_text(body.get('messages', []))}")
        if not isinstance(reply, TextReply | ToolCallReply):
            raise TypeError(f"cannot answer a chat request with {reply!r}")
        with self._lock:
            self._counter += 1
            return reply, self._counter

    # -- lifecycle
    def start(self) -> FakeServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = ThreadingHTTPServer((self.host, self._requested_port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name=type(self).__name__,
            daemon=True,
        )
        self._thread.start()
        log.debug("%s listening on %s", type(self).__name__, self.url)
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # releases handlers parked on a Hang reply
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running; use it as a context manager or call start()")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give the SDK client."""
        return f"http://{self.host}:{self.port}{self.url_prefix}"

    # -- scripting
    def enqueue(self, *replies: Reply, path: str | None = None) -> None:
        """Queue replies for ``path`` (default: the chat endpoint), served first-in first-out."""
        with self._lock:
            self._queues.setdefault(path or self.chat_path, deque()).extend(replies)

    def enqueue_text(self, text: str, *, finish: str = "stop") -> None:
        self.enqueue(TextReply(text, finish))

    def enqueue_tool_call(self, name: str, arguments: dict[str, Any] | str, *, text: str = "") -> None:
        self.enqueue(ToolCallReply((ToolCall(name, arguments),), text=text))

    def enqueue_error(
        self,
        status: int,
        message: str = "scripted error",
        *,
        retry_after: str | None = None,
        path: str | None = None,
    ) -> None:
        self.enqueue(ErrorReply(status, message, retry_after), path=path)

    def pending(self, path: str | None = None) -> int:
        with self._lock:
            return len(self._queues.get(path or self.chat_path, ()))

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def _next_reply(self, path: str) -> Reply | None:
        with self._lock:
            queue = self._queues.get(path)
            return queue.popleft() if queue else None

    # -- to implement
    def route(self, request: RecordedRequest, reply: Reply | None) -> HTTPAnswer:
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"message": message, "code": status}}

    def answer(self, request: RecordedRequest) -> HTTPAnswer:
        reply = self._next_reply(request.path)
        if isinstance(reply, Disconnect | Hang | JSONReply):
            return reply
        if isinstance(reply, ErrorReply):
            headers = dict(reply.headers)
            if reply.retry_after is not None:
                headers["Retry-After"] = reply.retry_after
            return JSONReply(self.error_body(reply.status, reply.message), reply.status, headers)
        return self.route(request, reply)


class EmbeddingServer(FakeServer):
    """A fake server with an embeddings endpoint: ``dimension`` is the length of the vectors it
    returns when a request asks for no other."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, dimension: int = 64) -> None:
        super().__init__(host=host, port=port)
        self.dimension = dimension


def _make_handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"fake": server})


class _Handler(BaseHTTPRequestHandler):
    """Records each request, asks the fake server for an answer, and writes it."""

    protocol_version = "HTTP/1.0"
    fake: FakeServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s: " + format, type(self.fake).__name__, *args)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(self.command, path, headers, body, raw)
        with self.fake._lock:
            self.fake.requests.append(request)
        try:
            answer = self.fake.answer(request)
        except Exception as exc:  # a bug in the fake must show up as a 500, not a hang
            log.exception("fake server failed")
            answer = JSONReply(self.fake.error_body(500, f"fake server bug: {exc!r}"), 500)
        self._write(answer)

    def _write(self, answer: HTTPAnswer) -> None:
        if isinstance(answer, Hang):
            self.fake._stopping.wait(timeout=60)
        if isinstance(answer, Disconnect | Hang):
            self.close_connection = True
            return
        if isinstance(answer, SSE):
            self._write_sse(answer)
            return
        payload = json.dumps(answer.body).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _write_sse(self, answer: SSE) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for chunk in _encode_events(answer.events):
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True


def _encode_events(events: Iterable[tuple[str | None, Any]]) -> Iterator[bytes]:
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {name}\n" if name else ""
        yield f"{head}data: {text}\n\n".encode()


def last_user_text(messages: list[dict[str, Any]]) -> str:
    """The text of the last user message, whatever the vendor's content shape."""
    for message in reversed(messages or []):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def content_text(content: Any) -> str:
    """Flatten a string or a list of content blocks into text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                inner = block.get("text") or block.get("content") or ""
                parts.append(content_text(inner))
            elif isinstance(block, str):
                parts.append(block)
        return " ".join(p for p in parts if p)
    return ""


#: what the fake servers bill an image block (``image_url`` or ``image``) as, in input tokens
IMAGE_TOKENS = 85


def image_blocks(content: Any) -> int:
    """How many image blocks a message's content holds (OpenAI ``image_url``, Anthropic ``image``)."""
    if not isinstance(content, list):
        return 0
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") in ("image_url", "image"))


def messages_tokens(messages: list[dict[str, Any]], extra: str = "") -> int:
    """Input tokens: one per word, plus ``IMAGE_TOKENS`` per image block (as the vendors bill images)."""
    return sum(count_tokens(content_text(m.get("content"))) + IMAGE_TOKENS * image_blocks(m.get("content"))
               for m in messages or []) + count_tokens(extra)
