"""The FastAPI application: ``create_app(settings)``; ``app_from_env()`` is uvicorn's factory.

One ``ServerState`` per worker process holds the state database (sessions, traces, jobs, keys),
the index adapter (``Library``), the agent adapter (``Engine``) and the ingest ``JobRunner``.
Routes live in one small module per area; errors use OpenAI's envelope everywhere (errors.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from ragkit.server import chat, completions, embeddings, errors, ingest, openai_compat, sessions, traces
from ragkit.server.auth import AuthMiddleware, BodyLimitMiddleware
from ragkit.server.engine import Engine
from ragkit.server.guard import CLIENT_HEADER, GuardMiddleware, build_guard
from ragkit.server.headers import PAGE_POLICY, SecurityHeadersMiddleware
from ragkit.server.jobs import JobRunner
from ragkit.server.library import Library
from ragkit.server.ownership import OwnedSessions, check_request
from ragkit.server.records import Records
from ragkit.server.settings import ServerSettings
from ragkit.sessions.db import Database
from ragkit.sessions.sql import SQLSessionStore

log = logging.getLogger(__name__)
STATIC = resources.files("ragkit.server") / "static"


@dataclass
class ServerState:
    settings: ServerSettings
    db: Database
    sessions: Any  # an OwnedSessions over the SQLSessionStore
    records: Records
    library: Library
    engine: Engine
    jobs: JobRunner
    ready: bool = False
    warmup_error: str | None = None
    background: list[Any] = field(default_factory=list)

    @classmethod
    def open(cls, settings: ServerSettings) -> ServerState:
        db = Database.open(settings.state_url)
        library = Library(settings.index_dir, pipeline=settings.pipeline, uploads_dir=settings.uploads_dir)
        library.ensure_index()
        records = Records(db)
        sessions = OwnedSessions(SQLSessionStore(db))  # a session made during a request is its key's
        engine = Engine(library, provider=settings.provider, model=settings.model, base_url=settings.base_url,
                        provider_options=settings.provider_options, sessions=sessions,
                        session_wait=settings.session_lock_wait, session_lease=settings.turn_lease,
                        citations=settings.citations, tools=settings.built_tools())
        return cls(settings, db, sessions, records, library, engine, JobRunner(records, library))

    def close(self) -> None:
        self.jobs.stop()
        self.library.close()
        self.db.close()


def create_app(settings: ServerSettings) -> FastAPI:
    holder: dict[str, ServerState] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # turns hop to threads for the database and the search tool: more than the default few
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(64, thread_name_prefix="ragkit-io"))
        state = await asyncio.to_thread(ServerState.open, settings)
        holder["state"] = app.state.ragkit = state
        state.jobs.start()
        state.background.append(asyncio.create_task(_warm_up(state)))
        try:
            yield
        finally:
            state.close()

    # check_request runs before every route (those added later too): ownership of the ids a
    # request names, valid Unicode in its JSON
    app = FastAPI(title="ragkit", lifespan=lifespan, docs_url="/docs", redoc_url=None,
                  dependencies=[Depends(check_request)], responses=errors.error_responses(*errors.COMMON_ERRORS))
    errors.install(app)
    app.add_middleware(BodyLimitMiddleware, max_body=settings.max_body_bytes, max_upload=settings.max_upload_bytes)
    app.add_middleware(AuthMiddleware, records=lambda: holder["state"].records if "state" in holder else None)
    app.add_middleware(errors.ErrorMiddleware)  # what the routes and the key check let out, in the envelope
    if settings.cors_origins:  # closed unless origins are configured; never credentials
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=False,
                           allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Idempotency-Key", CLIENT_HEADER])
    # the Host allow-list and the cross-site checks see every request first
    app.add_middleware(GuardMiddleware, guard=build_guard(settings.host, settings.allowed_hosts, settings.cors_origins))
    app.add_middleware(SecurityHeadersMiddleware)  # around everything: the guard's answers carry them too
    for module in (openai_compat, completions, embeddings, chat, sessions, traces, ingest):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"),
                            headers={"Cache-Control": "no-cache", "Content-Security-Policy": PAGE_POLICY})

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(str(STATIC / "favicon.ico"), media_type="image/x-icon",
                            headers={"Cache-Control": "public, max-age=86400"})

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz(request: Request) -> JSONResponse:
        state: ServerState = request.app.state.ragkit
        if state.ready:
            return JSONResponse({"status": "ready", "model": settings.served_model})
        return errors.ApiError(503, state.warmup_error or "warming up: opening the index and loading the "
                               "embedding model", code="not_ready").response()

    return app


async def _warm_up(state: ServerState) -> None:
    try:
        await asyncio.to_thread(state.engine.warm_up)
        state.ready = True
    except Exception as exc:  # noqa: BLE001 - reported by /readyz
        log.exception("warm-up failed")
        state.warmup_error = f"warm-up failed: {exc}"


def app_from_env() -> FastAPI:
    """uvicorn's factory in every worker process: the settings come from ``RAGKIT_SERVE_SETTINGS``."""
    return create_app(ServerSettings.from_env())
