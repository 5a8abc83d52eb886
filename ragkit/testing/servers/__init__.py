"""Loopback HTTP servers that speak the OpenAI, Anthropic, Cohere and Voyage wire protocols.

Used by ragkit's tests (and usable by yours) to drive the real SDK clients without a network::

    from ragkit.testing.servers import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        server.enqueue_error(429, "slow down", retry_after="1")
        server.enqueue_text("Paris.")
        provider = OpenAIProvider(model="gpt-4o-mini", api_key="test", base_url=server.url)
        ...
        assert server.requests[-1].headers["authorization"] == "Bearer test"

Importing this package imports no SDK.
"""

from __future__ import annotations

from ragkit.testing.servers.anthropic import FakeAnthropicServer
from ragkit.testing.servers.base import (
    IMAGE_TOKENS,
    SSE,
    Disconnect,
    ErrorReply,
    FakeServer,
    Hang,
    JSONReply,
    RecordedRequest,
    Reply,
    TextReply,
    ToolCall,
    ToolCallReply,
    count_tokens,
    free_port,
    hashed_vector,
    overlap_score,
)
from ragkit.testing.servers.cohere import FakeCohereServer
from ragkit.testing.servers.openai import FakeOpenAIServer
from ragkit.testing.servers.voyage import FakeVoyageServer

__all__ = [
    "IMAGE_TOKENS",
    "SSE",
    "Disconnect",
    "ErrorReply",
    "FakeAnthropicServer",
    "FakeCohereServer",
    "FakeOpenAIServer",
    "FakeServer",
    "FakeVoyageServer",
    "Hang",
    "JSONReply",
    "RecordedRequest",
    "Reply",
    "TextReply",
    "ToolCall",
    "ToolCallReply",
    "count_tokens",
    "hashed_vector",
    "overlap_score",
    "free_port",
]
