"""``ragkit mcp``: the knowledge base as an MCP server (the ``mcp`` SDK), over stdio or
streamable HTTP, so agents in other tools can use it.

Tools: ``search_knowledge_base(query, top_k, source)`` returns passages with source, page,
span and score; ``ask(question, top_k)`` returns the agent's answer with its citations and
usage. Resources: every indexed document as ``ragkit://documents/<source>``, its text as the
pipeline's loader extracted it (a PDF page by page, a DOCX's paragraphs; ``text/plain``); the list
is read afresh on every request, so documents an ingest job adds appear without a restart.
A tool's bad input or failure reaches the client as the message the HTTP server would answer
(``ragkit.server.errors.from_exception``: no server paths, no upstream URLs).

The server reuses the HTTP server's adapters (``ragkit.server.library``, ``ragkit.server.engine``)
and, over HTTP, its request checks, in the same order as ``ragkit serve``: the guard
(``ragkit.server.guard``: Host allow-list, ``--allowed-host``, cross-site checks), the API keys of
the index's state database (``ragkit.server.auth``: once a key exists every request needs
``Authorization: Bearer <key>``, checked on every request so a revoked key is refused at once),
the body size limit, and per-key visibility (``ragkit.server.ownership.hidden_uploads``: another
key's uploaded documents are neither listed, read, found nor cited; an admin key sees all). Over
stdio the caller is the local user, who sees everything, as on a server without keys.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, unquote

from pydantic import Field

from ragkit.index.layout import IndexLayout
from ragkit.server.auth import AuthMiddleware, BodyLimitMiddleware, principal
from ragkit.server.engine import Answer, Engine, TurnOptions
from ragkit.server.errors import from_exception
from ragkit.server.guard import GuardMiddleware, build_guard
from ragkit.server.headers import SecurityHeadersMiddleware
from ragkit.server.library import Library, hidden_sources
from ragkit.server.ownership import hidden_uploads

log = logging.getLogger(__name__)
RESOURCE_PREFIX = "ragkit://documents/"
INSTRUCTIONS = ("Search the user's indexed documents with search_knowledge_base, or ask a question with ask "
                "(an answer citing sources as [n]). Documents are resources under ragkit://documents/.")
MAX_MESSAGE_BYTES = 1_000_000  # one MCP message (a tool call's arguments): `ragkit serve`'s body limit


class RagkitMCP:
    def __init__(self, *, index: str | Path, pipeline: str | None = None, provider: str = "local",
                 model: str | None = None) -> None:
        from mcp.server.mcpserver import MCPServer

        index_dir = Path(index).absolute()
        self.library = Library(index_dir, pipeline=pipeline, uploads_dir=IndexLayout(index_dir).uploads)
        self.library.ensure_index()
        self.engine = Engine(self.library, provider=provider, model=model)
        self.records: Any = None  # the state database's records (keys, uploads' owners), over HTTP
        self.server = _server_class(MCPServer)(self, name="ragkit", instructions=INSTRUCTIONS,
                                               middleware=[self._visibility])
        self.server.tool()(self.search_knowledge_base)
        self.server.tool()(self.ask)

    async def _visibility(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Every message is served as its HTTP request's key sees the index (another key's
        uploads hidden from listings, reads and searches), exactly as ``ragkit serve`` does."""
        import anyio

        request = getattr(ctx, "request", None)
        hidden: frozenset[str] = frozenset()
        if self.records is not None and request is not None and hasattr(request, "scope"):
            hidden = await anyio.to_thread.run_sync(hidden_uploads, self.records, principal(request))
        token = hidden_sources.set(hidden)
        try:
            return await call_next(ctx)
        finally:
            hidden_sources.reset(token)

    def resources(self) -> list[dict[str, str]]:
        """The indexed documents the caller may see as resources (uri, name, description), as the
        index holds them now."""
        hidden = hidden_sources.get()
        return [{"uri": RESOURCE_PREFIX + quote(doc["source"], safe="/"), "name": doc["source"],
                 "description": f"indexed document ({doc['chunks']} chunks)"}
                for doc in self.library.indexed() if doc["source"] not in hidden]

    def read(self, uri: str) -> str:
        """The extracted text of the document behind ``uri`` (another key's upload: as missing)."""
        from mcp.server.mcpserver.exceptions import ResourceError

        source = unquote(uri.removeprefix(RESOURCE_PREFIX))
        if source in hidden_sources.get():
            raise ResourceError(f"no indexed document '{source}'")
        try:
            return self.library.document_text(source)
        except Exception as exc:  # noqa: BLE001 - the message the HTTP server would answer
            raise ResourceError(from_exception(exc).message) from None

    async def search_knowledge_base(self, query: str, top_k: int = 5, source: str | None = None) -> dict[str, Any]:
        """Search the knowledge base (the user's documents) for passages relevant to a query.

        Args:
            query: What to look for, in natural language.
            top_k: How many passages to return, 1 to 20.
            source: Optional glob limiting the search to matching source paths, e.g. "*.pdf".
        """
        import anyio

        flt = {"source": {"$glob": source}} if source else None
        hits = await _tool(anyio.to_thread.run_sync(
            lambda: self.library.search(query, k=max(1, min(int(top_k), 20)), filter=flt, kind=None)))
        return {"passages": [{"n": n, **h} for n, h in enumerate(hits, 1)]}

    async def ask(self, question: str,
                  top_k: Annotated[int | None, Field(ge=1, le=50)] = None) -> dict[str, Any]:
        """Answer a question from the knowledge base, citing the passages used as [n].

        Args:
            question: The question, in natural language.
            top_k: Passages per search, 1 to 50 (default: the index's setting).
        """
        from mcp.server.mcpserver.exceptions import ToolError

        if not question.strip():
            raise ToolError("the question is empty: ask something about the documents")
        answer = await _tool(self._answer(question, top_k))
        return {"answer": answer.content, "citations": answer.citations, "usage": answer.usage}

    async def _answer(self, question: str, top_k: int | None) -> Answer:
        answer: Answer | None = None
        async for piece in self.engine.stream([{"role": "user", "content": question}], TurnOptions(top_k=top_k)):
            if isinstance(piece, Answer):
                answer = piece
        assert answer is not None
        return answer

    def http_app(self, *, host: str, allowed_hosts: list[str], state_url: str) -> Any:
        """The streamable-HTTP ASGI app behind ``ragkit serve``'s checks (see the module's doc)."""
        from mcp.server.transport_security import TransportSecuritySettings

        from ragkit.server.records import Records
        from ragkit.sessions.db import Database

        self.records = records = Records(Database.open(state_url))
        # the SDK's own Host check off: ragkit's guard (the rule `ragkit serve` applies) runs instead
        app = self.server.streamable_http_app(
            host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        app = BodyLimitMiddleware(app, max_body=MAX_MESSAGE_BYTES, max_upload=MAX_MESSAGE_BYTES)
        app = AuthMiddleware(app, records=lambda: records)
        app = GuardMiddleware(app, guard=build_guard(host, allowed_hosts, []))
        return SecurityHeadersMiddleware(app)

    def serve(self, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8001,
              allowed_hosts: list[str] | None = None, state_url: str | None = None) -> None:
        if transport == "stdio":
            self.server.run("stdio")
            return
        import uvicorn

        from ragkit.server.settings import ServerSettings

        url = state_url or ServerSettings(index=str(self.library.index_dir)).state_url
        app = self.http_app(host=host, allowed_hosts=allowed_hosts or [], state_url=url)
        log.info("MCP over streamable HTTP at http://%s:%d/mcp", host, port)
        uvicorn.run(app, host=host, port=port, log_level="warning")


async def _tool(work: Awaitable[Any]) -> Any:
    """``work``'s result; its failure as the message the HTTP server would answer (a bad glob, an
    empty query, an unreachable model: said, not a bare "Error executing tool")."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return await work
    except ToolError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes the tool's error message
        raise ToolError(from_exception(exc).message) from None


def _server_class(base: type) -> type:
    """The SDK's server whose resources are ragkit's documents, listed afresh on every request."""

    class RagkitServer(base):  # type: ignore[misc, valid-type]
        def __init__(self, owner: RagkitMCP, **kw: Any) -> None:
            super().__init__(**kw)
            self._ragkit = owner

        async def list_resources(self) -> list[Any]:
            import anyio
            from mcp_types import Resource

            found = await anyio.to_thread.run_sync(self._ragkit.resources)
            return [Resource(mime_type="text/plain", **r) for r in found]

        async def read_resource(self, uri: Any, context: Any = None) -> Any:
            if not str(uri).startswith(RESOURCE_PREFIX):
                return await super().read_resource(uri, context)
            import anyio
            from mcp.server.lowlevel.helper_types import ReadResourceContents

            text = await anyio.to_thread.run_sync(self._ragkit.read, str(uri))
            return [ReadResourceContents(content=text, mime_type="text/plain")]

    return RagkitServer


def build_server(**kw: Any) -> RagkitMCP:
    return RagkitMCP(**kw)


__all__ = ["RagkitMCP", "build_server"]
