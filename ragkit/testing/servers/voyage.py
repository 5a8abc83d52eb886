"""A loopback server speaking Voyage AI's embeddings wire format.

``POST /v1/embeddings`` takes ``{"input": str | [str], "model", "input_type": "query" |
"document" | null, "truncation", "output_dimension", "output_dtype"}`` and returns hashed-word
vectors as ``{"object": "list", "data": [{"object": "embedding", "embedding": [...], "index": i}],
"model", "usage": {"total_tokens": n}}``; errors are ``{"detail": "..."}``. Every request is kept
in ``server.requests`` (the ``input_type`` a client sent, its key in ``authorization``).
"""

from __future__ import annotations

from typing import Any

from ragkit.testing.servers.base import (
    EmbeddingServer,
    HTTPAnswer,
    JSONReply,
    RecordedRequest,
    Reply,
    count_tokens,
    hashed_vector,
)

EMBED_PATH = "/v1/embeddings"
INPUT_TYPES = (None, "query", "document")
MAX_INPUTS = 1000


class FakeVoyageServer(EmbeddingServer):
    """``url`` ends in ``/v1``, Voyage's base URL."""

    chat_path = EMBED_PATH  # (scripted replies go to the embeddings path by default)
    embed_path = EMBED_PATH
    url_prefix = "/v1"

    def error_body(self, status: int, message: str) -> Any:
        return {"detail": message}

    def route(self, request: RecordedRequest, reply: Reply | None) -> HTTPAnswer:
        if request.path != EMBED_PATH:
            return JSONReply(self.error_body(404, f"unknown path {request.path}"), 404)
        return self._embeddings(request.body or {})

    def _embeddings(self, body: dict[str, Any]) -> HTTPAnswer:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            return JSONReply(self.error_body(400, "input must be a string or a non-empty list of strings"), 400)
        if len(texts) > MAX_INPUTS:
            return JSONReply(self.error_body(400, f"at most {MAX_INPUTS} inputs per request"), 400)
        if body.get("input_type") not in INPUT_TYPES:
            return JSONReply(self.error_body(400, f"input_type must be query, document or null, "
                                                  f"got {body.get('input_type')!r}"), 400)
        if body.get("output_dtype", "float") != "float":
            return JSONReply(self.error_body(400, "the fake returns float embeddings only"), 400)
        dimension = int(body.get("output_dimension") or self.dimension)
        data = [{"object": "embedding", "embedding": hashed_vector(t, dimension).tolist(), "index": i}
                for i, t in enumerate(texts)]
        tokens = sum(count_tokens(t) for t in texts)
        return JSONReply({"object": "list", "data": data, "model": str(body.get("model", "voyage-fake")),
                          "usage": {"total_tokens": tokens}})


__all__ = ["EMBED_PATH", "FakeVoyageServer"]
