"""Runs in LlamaIndex's own virtualenv (see llamaindex.txt): ``OpenAILike`` with its defaults
against a ragkit server; prints one JSON object with what came back."""

from __future__ import annotations

import json
import sys

from llama_index.core.llms import ChatMessage
from llama_index.llms.openai_like import OpenAILike


def main(base_url: str, question: str) -> None:
    llm = OpenAILike(model="ragkit", api_base=base_url, api_key="no-key-configured")
    completed = llm.complete(question)
    streamed = "".join(piece.delta or "" for piece in llm.stream_complete(question))
    chat = llm.chat([ChatMessage(role="user", content=question)])
    print(json.dumps({"is_chat_model": llm.metadata.is_chat_model, "complete": completed.text,
                      "stream": streamed, "chat": chat.message.content,
                      "raw_citations": completed.raw.model_dump()["choices"][0].get("citations")}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
