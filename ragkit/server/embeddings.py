"""``POST /v1/embeddings``: the index's own embedding model, for clients that embed with it (a
LangChain ``OpenAIEmbeddings`` or an ``openai`` SDK beside the chat model share the index's vectors).

``model`` may be left out, or name the served model or the index's embedding model id; ``input``
is a string or a list of strings (token arrays are refused: the server cannot know the client's
tokenizer); ``encoding_format`` is ``float`` or ``base64`` (the SDK's default; ``null``: float); ``dimensions``
must be the model's own. ``usage`` counts the tokens the model saw (``cost`` beside them: 0 for a
local model, None with the model named in ``unpriced`` when it has no known price).
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any, Literal

import numpy as np
from fastapi import APIRouter, Request
from pydantic import ConfigDict

from ragkit.server.errors import ApiError
from ragkit.server.params import WireModel

router = APIRouter()
MAX_INPUTS = 2048  # OpenAI's limit per request
TOKENS_HINT = ("send text, not token ids (LangChain's OpenAIEmbeddings: pass check_embedding_ctx_length=False; "
               "the server counts tokens with the index's own tokenizer)")


class EmbeddingRequest(WireModel):
    model_config = ConfigDict(extra="allow")
    input: str | list[Any]
    model: str | None = None
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = None
    user: str | None = None


def _texts(value: str | list[Any]) -> list[str]:
    texts = [value] if isinstance(value, str) else value
    if not texts:
        raise ApiError(400, "input is empty: send a string or a list of strings", param="input",
                       code="invalid_input")
    if len(texts) > MAX_INPUTS:
        raise ApiError(400, f"input has {len(texts)} items; at most {MAX_INPUTS} per request", param="input",
                       code="invalid_input")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ApiError(400, f"input[{i}] is not a string: {TOKENS_HINT}", param="input", code="invalid_input")
        if not text.strip():
            raise ApiError(400, f"input[{i}] is empty; every input must contain text", param="input",
                           code="invalid_input")
    return texts


@router.post("/v1/embeddings")
async def embeddings(body: EmbeddingRequest, request: Request) -> dict[str, Any]:
    state = request.app.state.ragkit
    texts = _texts(body.input)
    model_id, dimension = await asyncio.to_thread(state.library.embedder_names)
    served = state.settings.served_model
    if body.model is not None and body.model not in (served, model_id):
        raise ApiError(404, f"the embedding model '{body.model}' does not exist here; this server embeds with "
                       f"the index's model '{model_id}' (name it, or '{served}', or leave 'model' out)",
                       param="model", code="model_not_found")
    if body.dimensions is not None and body.dimensions != dimension:
        raise ApiError(400, f"dimensions={body.dimensions} is not supported: the index's model '{model_id}' "
                       f"returns {dimension} dimensions; leave 'dimensions' out or set it to {dimension}",
                       param="dimensions", code="unsupported_parameter")
    vectors, tokens, cost = await asyncio.to_thread(state.library.embed, texts)
    data = [{"object": "embedding", "index": i, "embedding": _encode(v, body.encoding_format)}
            for i, v in enumerate(vectors)]
    return {"object": "list", "data": data, "model": model_id,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens,
                      # None (never a silent 0) when the model has no known price: "unpriced" names it
                      "cost": None if cost is None else round(cost, 10), "unpriced": [model_id] if cost is None else []}}


def _encode(vector: np.ndarray, encoding: str) -> Any:
    row = np.asarray(vector, dtype=np.float32)
    return base64.b64encode(row.tobytes()).decode("ascii") if encoding == "base64" else row.tolist()
