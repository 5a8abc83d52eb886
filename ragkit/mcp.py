"""``ragkit mcp``: the knowledge base as an MCP server (the ``mcp`` SDK), over stdio or
streamable HTTP, so agents in other tools can use it.

Tools: ``search_knowledge_base(query, top_k, source)`` returns passages with source, page,
span and score; ``ask(question, top_k)`` returns the agent's answer with its citations and
usage. Resources: every indexed document as ``ragkit://documents/<source>`` (its text).
The server reuses the HTTP server's adapters (``ragkit.server.library``, ``ragkit.server.engine``).
"""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ragkit.server.engine import Answer, Engine, TurnOptions
from ragkit.server.library import Library
from ragkit.server.settings import UPLOADS_DIR

log = logging.getLogger(__name__)
RESOURCE_PREFIX = "ragkit://documents/"
INSTRUCTIONS = ("Search the user's indexed documents with search_knowledge_base, or ask a question with ask "
                "(an answer citing sources as [n]). Documents are resources under ragkit://documents/.")


class RagkitMCP:
    def __init__(self, *, index: str | Path, pipeline: str | None = None, provider: str = "local",
                 model: str | None = None) -> None:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.resources import FunctionResource

        index_dir = Path(index).absolute()
        self.library = Library(index_dir, pipeline=pipeline, uploads_dir=index_dir / UPLOADS_DIR)
        self.library.ensure_index()
        self.engine = Engine(self.library, provider=provider, model=model)
        self.server = MCPServer(name="ragkit", instructions=INSTRUCTIONS)
        self.server.tool()(self.search_knowledge_base)
        self.server.tool()(self.ask)
        for doc in self.library.documents():
            if doc["status"] != "indexed":
                continue
            self.server.add_resource(FunctionResource(
                uri=RESOURCE_PREFIX + quote(doc["source"], safe="/"), name=doc["source"], mime_type="text/plain",
                description=f"indexed document ({doc['chunks']} chunks)",
                fn=partial(self.library.document_text, doc["source"]),
            ))

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

    def serve(self, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8001) -> None:
        if transport == "stdio":
            self.server.run("stdio")
        else:
            log.info("MCP over streamable HTTP at http://%s:%d/mcp", host, port)
            self.server.run("streamable-http", host=host, port=port)


def build_server(**kw: Any) -> RagkitMCP:
    return RagkitMCP(**kw)


__all__ = ["RagkitMCP", "build_server"]
