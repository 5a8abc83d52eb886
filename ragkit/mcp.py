"""``ragkit mcp``: the knowledge base as an MCP server (the ``mcp`` SDK), over stdio or
streamable HTTP, so agents in other tools can use it.

Tools: ``search_knowledge_base(query, top_k, source)`` returns passages with source, page,
span and score; ``ask(question, top_k)`` returns the agent's answer with its citations and
usage. Resources: every indexed document as ``ragkit://documents/<source>``, its text as the
pipeline's loader extracted it (a PDF page by page, a DOCX's paragraphs; ``text/plain``); the list
is read afresh on every request, so documents an ingest job adds appear without a restart.
The server reuses the HTTP server's adapters (``ragkit.server.library``, ``ragkit.server.engine``);
over HTTP it passes the HTTP server's guard (``ragkit.server.guard``: the same Host allow-list,
``--allowed-host``, and cross-site checks).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from ragkit.errors import RagkitError
from ragkit.index.layout import IndexLayout
from ragkit.server.engine import Answer, Engine, TurnOptions
from ragkit.server.errors import without_paths
from ragkit.server.guard import GuardMiddleware, build_guard
from ragkit.server.library import Library

log = logging.getLogger(__name__)
RESOURCE_PREFIX = "ragkit://documents/"
INSTRUCTIONS = ("Search the user's indexed documents with search_knowledge_base, or ask a question with ask "
                "(an answer citing sources as [n]). Documents are resources under ragkit://documents/.")


class RagkitMCP:
    def __init__(self, *, index: str | Path, pipeline: str | None = None, provider: str = "local",
                 model: str | None = None) -> None:
        from mcp.server.mcpserver import MCPServer

        index_dir = Path(index).absolute()
        self.library = Library(index_dir, pipeline=pipeline, uploads_dir=IndexLayout(index_dir).uploads)
        self.library.ensure_index()
        self.engine = Engine(self.library, provider=provider, model=model)
        self.server = _server_class(MCPServer)(self, name="ragkit", instructions=INSTRUCTIONS)
        self.server.tool()(self.search_knowledge_base)
        self.server.tool()(self.ask)

    def resources(self) -> list[dict[str, str]]:
        """The indexed documents as resources (uri, name, description), as the index holds them now."""
        return [{"uri": RESOURCE_PREFIX + quote(doc["source"], safe="/"), "name": doc["source"],
                 "description": f"indexed document ({doc['chunks']} chunks)"} for doc in self.library.indexed()]

    def read(self, uri: str) -> str:
        """The extracted text of the document behind ``uri``."""
        from mcp.server.mcpserver.exceptions import ResourceError

        try:
            return self.library.document_text(unquote(uri.removeprefix(RESOURCE_PREFIX)))
        except RagkitError as exc:
            raise ResourceError(without_paths(str(exc))) from None

    async def search_knowledge_base(self, query: str, top_k: int = 5, source: str | None = None) -> dict[str, Any]:
        """Search the knowledge base (the user's documents) for passages relevant to a query.

        Args:
            query: What to look for, in natural language.
            top_k: How many passages to return, 1 to 20.
            source: Optional glob limiting the search to matching source paths, e.g. "*.pdf".
        """
        import anyio

        flt = {"source": {"$glob": source}} if source else None
        hits = await anyio.to_thread.run_sync(
            lambda: self.library.search(query, k=max(1, min(int(top_k), 20)), filter=flt, kind=None))
        return {"passages": [{"n": n, **h} for n, h in enumerate(hits, 1)]}

    async def ask(self, question: str, top_k: int | None = None) -> dict[str, Any]:
        """Answer a question from the knowledge base, citing the passages used as [n].

        Args:
            question: The question, in natural language.
            top_k: Passages per search (default: the index's setting).
        """
        answer: Answer | None = None
        async for piece in self.engine.stream([{"role": "user", "content": question}], TurnOptions(top_k=top_k)):
            if isinstance(piece, Answer):
                answer = piece
        assert answer is not None
        return {"answer": answer.content, "citations": answer.citations, "usage": answer.usage}

    def serve(self, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8001,
              allowed_hosts: list[str] | None = None) -> None:
        if transport == "stdio":
            self.server.run("stdio")
            return
        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings

        # the SDK's own Host check off: ragkit's guard (the rule `ragkit serve` applies) runs instead
        app = self.server.streamable_http_app(
            host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        guarded = GuardMiddleware(app, guard=build_guard(host, allowed_hosts or [], []))
        log.info("MCP over streamable HTTP at http://%s:%d/mcp", host, port)
        uvicorn.run(guarded, host=host, port=port, log_level="warning")


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
