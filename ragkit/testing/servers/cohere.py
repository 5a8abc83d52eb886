"""A loopback server speaking the Cohere v2 wire format: chat, embed and rerank.

``POST /v2/chat`` answers as JSON or, for ``"stream": true``, as SSE events message-start,
content-start/delta/end, tool-plan-delta, tool-call-start/delta/end and message-end (with
finish_reason and usage). ``POST /v2/embed`` returns hashed-word vectors for each requested
``embedding_types`` entry (float, int8, uint8) with ``meta.billed_units.input_tokens``; the
``input_type`` of every request is kept in ``server.requests``. ``POST /v2/rerank`` scores
documents by the share of query words they contain.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragkit.testing.servers.base import (
    SSE,
    EmbeddingServer,
    HTTPAnswer,
    JSONReply,
    RecordedRequest,
    Reply,
    TextReply,
    ToolCallReply,
    chunk_text,
    content_text,
    count_tokens,
    function_calls,
    hashed_vector,
    messages_tokens,
    overlap_score,
    reply_tokens,
    typed_event,
    word_chunks,
)

CHAT_PATH = "/v2/chat"
EMBED_PATH = "/v2/embed"
RERANK_PATH = "/v2/rerank"

_FINISH = {"stop": "COMPLETE", "length": "MAX_TOKENS"}
INPUT_TYPES = frozenset({"search_document", "search_query", "classification", "clustering", "image"})


class FakeCohereServer(EmbeddingServer):
    """``url`` is the bare host:port, as ``ClientV2(base_url=...)`` expects."""

    chat_path = CHAT_PATH
    embed_path = EMBED_PATH
    rerank_path = RERANK_PATH

    def error_body(self, status: int, message: str) -> Any:
        return {"id": "err", "message": message}

    def route(self, request: RecordedRequest, reply: Reply | None) -> HTTPAnswer:
        body = request.body or {}
        if request.path == CHAT_PATH:
            return self._chat(body, reply)
        if request.path == EMBED_PATH:
            return self._embed(body)
        if request.path == RERANK_PATH:
            return self._rerank(body)
        return JSONReply(self.error_body(404, f"unknown path {request.path}"), 404)

    # ------------------------------------------------------------ chat
    def _chat(self, body: dict[str, Any], reply: Reply | None) -> HTTPAnswer:
        reply, number = self.chat_turn(body, reply)
        cid = f"chat-{number}"
        prompt = messages_tokens(body.get("messages", []))
        message, finish, output = _message(reply, number)
        usage = {
            "billed_units": {"input_tokens": prompt, "output_tokens": output},
            "tokens": {"input_tokens": prompt + 7, "output_tokens": output},
        }
        if body.get("stream"):
            return SSE(_stream(cid, reply, message, finish, usage))
        return JSONReply({"id": cid, "finish_reason": finish, "message": message, "usage": usage})

    # ------------------------------------------------------------ embed
    def _embed(self, body: dict[str, Any]) -> HTTPAnswer:
        input_type = body.get("input_type")
        if input_type not in INPUT_TYPES:
            msg = f"invalid request: input_type must be one of {sorted(INPUT_TYPES)}, got {input_type!r}"
            return JSONReply(self.error_body(400, msg), 400)
        texts = _texts(body)
        dimension = int(body.get("output_dimension") or self.dimension)
        vectors = [hashed_vector(t, dimension) for t in texts]
        embeddings: dict[str, Any] = {}
        for kind in body.get("embedding_types") or ["float"]:
            if kind == "float":
                embeddings["float"] = [v.tolist() for v in vectors]
            elif kind in ("int8", "uint8"):
                offset = 0 if kind == "int8" else 128
                embeddings[kind] = [
                    (np.clip(np.round(v * 127), -128, 127) + offset).astype(int).tolist() for v in vectors
                ]
            else:
                return JSONReply(
                    self.error_body(400, f"embedding type {kind!r} is not supported by the fake"), 400
                )
        tokens = sum(count_tokens(t) for t in texts)
        return JSONReply(
            {
                "id": "embed-1",
                "response_type": "embeddings_by_type",
                "embeddings": embeddings,
                "texts": texts,
                "meta": {"api_version": {"version": "2"}, "billed_units": {"input_tokens": tokens}},
            }
        )

    # ------------------------------------------------------------ rerank
    def _rerank(self, body: dict[str, Any]) -> HTTPAnswer:
        query = str(body.get("query", ""))
        documents = [d if isinstance(d, str) else content_text([d]) for d in body.get("documents", [])]
        scored = sorted(
            ((overlap_score(query, d), i) for i, d in enumerate(documents)), key=lambda t: (-t[0], t[1])
        )
        top_n = body.get("top_n") or len(scored)
        results = [{"index": i, "relevance_score": s} for s, i in scored[: int(top_n)]]
        return JSONReply(
            {
                "id": "rerank-1",
                "results": results,
                "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}},
            }
        )


def _texts(body: dict[str, Any]) -> list[str]:
    if body.get("texts"):
        return [str(t) for t in body["texts"]]
    return [content_text(item.get("content")) for item in body.get("inputs") or []]


def _message(reply: TextReply | ToolCallReply, n: int) -> tuple[dict[str, Any], str, int]:
    if isinstance(reply, TextReply):
        message = {"role": "assistant", "content": [{"type": "text", "text": reply.text}]}
        return message, _FINISH.get(reply.finish, "COMPLETE"), reply_tokens(reply)
    message = {"role": "assistant", "tool_plan": reply.text, "tool_calls": function_calls(reply, n)}
    return message, "TOOL_CALL", reply_tokens(reply)


def _stream(
    cid: str, reply: TextReply | ToolCallReply, message: dict[str, Any], finish: str, usage: dict[str, Any]
) -> list[tuple[str | None, Any]]:
    start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    events = [typed_event("message-start", id=cid, delta={"message": start})]
    if isinstance(reply, TextReply):
        events.append(
            typed_event("content-start", index=0, delta={"message": {"content": {"type": "text", "text": ""}}})
        )
        for piece in word_chunks(reply.text):
            events.append(typed_event("content-delta", index=0, delta={"message": {"content": {"text": piece}}}))
        events.append(typed_event("content-end", index=0))
    else:
        for piece in word_chunks(reply.text) if reply.text else []:
            events.append(typed_event("tool-plan-delta", delta={"message": {"tool_plan": piece}}))
        for i, call in enumerate(message["tool_calls"]):
            head = {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            events.append(typed_event("tool-call-start", index=i, delta={"message": {"tool_calls": head}}))
            for piece in chunk_text(call["function"]["arguments"]):
                delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
                events.append(typed_event("tool-call-delta", index=i, delta=delta))
            events.append(typed_event("tool-call-end", index=i))
    events.append(typed_event("message-end", id=cid, delta={"finish_reason": finish, "usage": usage}))
    return events


__all__ = ["CHAT_PATH", "EMBED_PATH", "INPUT_TYPES", "RERANK_PATH", "FakeCohereServer"]
