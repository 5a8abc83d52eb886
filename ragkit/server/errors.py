"""Every error the server returns, in OpenAI's envelope: ``{"error": {message, type, param, code}}``.

``ApiError`` is raised by the routes; the handlers here also turn FastAPI's validation errors
(400 naming the field, as OpenAI answers them), unknown paths (404), a method a path does not
have (405 with ``Allow``), ragkit's own errors (an index being written: 503; bad configuration or
input: 400), a full disk (507, naming what could not be written) and anything unexpected (500,
logged, never a traceback in the response) into the envelope. Messages made from exceptions never
show server paths (an absolute path is cut to its last part) nor the model provider's URL (it
reads "the model provider's endpoint"); the full message is logged.

Unexpected exceptions are answered by ``ErrorMiddleware``, inside Starlette's outermost error
layer: that layer re-raises after answering, and uvicorn then closes the connection, so a client
reusing it (a keep-alive pool) would see its next request reset.
"""

from __future__ import annotations

import errno
import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from ragkit.errors import (
    AgentError,
    ConfigError,
    IndexLockedError,
    MissingDependencyError,
    ProviderError,
    RagkitError,
)

log = logging.getLogger(__name__)

_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 405: "invalid_request_error", 409: "conflict_error",
          413: "invalid_request_error", 421: "invalid_request_error", 422: "invalid_request_error",
          429: "rate_limit_error", 503: "service_unavailable", 507: "server_error"}
#: an absolute POSIX path of two parts or more, or a Windows one (not inside a URL)
_PATH = re.compile(r"(?<![\w:/.~-])(?:/[^\s/'\"(),;]+){2,}/?|\b[A-Za-z]:\\[^\s'\"(),;]+")
#: an http(s) URL (a provider's endpoint in its error messages)
_URL = re.compile(r"\bhttps?://[^\s'\"<>)]*[^\s'\"<>).,:;]", re.IGNORECASE)
_SQLITE_FULL = 13
_DISK_FULL_WORDS = ("no space left on device", "database or disk is full", "disk is full", "disk quota exceeded")


class ErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorBody(BaseModel):
    """OpenAI's error envelope, the body of every error response."""

    error: ErrorDetail


_WHY = {400: "Bad input or an invalid field (error.param names it; the message says the fix)",
        401: "Missing, invalid or revoked API key",
        403: "Refused cross-site request (Origin, or a non-JSON POST without X-Ragkit-Client)",
        404: "No such route or id (another API key's ids too)", 409: "Conflict (a name taken, a session ended)",
        413: "Body or upload too large", 421: "Host name not allowed (DNS rebinding protection; --allowed-host)",
        429: "The session is busy with another turn",
        500: "Unexpected server error (logged)", 502: "The model provider failed",
        503: "Not ready yet, or the index is busy", 507: "The server's disk is full"}
#: the errors any route can answer (the guard, auth, validation, limits, the disk)
COMMON_ERRORS = (400, 401, 403, 404, 413, 421, 500, 503, 507)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for these error statuses, each with the envelope's schema."""
    return {status: {"model": ErrorBody, "description": _WHY.get(status, "Error")} for status in statuses}


class ApiError(Exception):
    def __init__(self, status: int, message: str, *, code: str | None = None, param: str | None = None,
                 type: str | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param
        self.type = type or _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def without_paths(message: str) -> str:
    """``message`` with every absolute path cut to its last part (``/srv/idx/catalog.duckdb`` ->
    ``catalog.duckdb``): errors tell clients what went wrong, never where the server keeps things."""
    return _PATH.sub(lambda m: re.split(r"[/\\]", m.group(0).rstrip("/\\"))[-1] or "/", message)


def without_urls(message: str) -> str:
    """``message`` with every http(s) URL replaced by "the model provider's endpoint": the
    server's upstream addresses are its own business (the log keeps them)."""
    return _URL.sub("the model provider's endpoint", message)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen and len(seen) < 10:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return seen


def disk_full(exc: BaseException) -> str | None:
    """What could not be written when ``exc`` (or what caused it) is a full disk, else ``None``."""
    for e in _chain(exc):
        text = str(e).lower()
        code = getattr(e, "sqlite_errorcode", None)
        if code == _SQLITE_FULL or (type(e).__module__ == "sqlite3" and "disk is full" in text):
            return "the session and trace database (state.db)"
        if getattr(e, "sqlstate", None) == "53100":  # PostgreSQL disk_full
            return "the session and trace database (PostgreSQL)"
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            return "the server's disk"
        if any(w in text for w in _DISK_FULL_WORDS):
            return "the index" if "duckdb" in type(e).__module__ else "the server's disk"
    return None


def from_exception(exc: BaseException) -> ApiError:
    """The ``ApiError`` for any exception (what a stream sends when a turn fails)."""
    if isinstance(exc, ApiError):
        return exc
    full = disk_full(exc)
    if full is not None:
        log.error("a request failed: the disk is full (%s): %s", full, exc)
        return ApiError(507, f"the disk is full: {full} could not be written, so this request was not stored; "
                        "free some space on the server and retry", code="insufficient_storage", type="server_error")
    if isinstance(exc, IndexLockedError):
        return ApiError(503, "the index is busy being written (an ingest job or a `ragkit index` run); retry "
                        "shortly", code="index_busy", headers={"Retry-After": "2"})
    if isinstance(exc, (ConfigError, MissingDependencyError)):
        param = getattr(exc, "param", None)  # a request parameter (ragkit.providers.params.ParamError)
        return ApiError(400, without_paths(str(exc)), code="unsupported_parameter" if param else "invalid_request",
                        param=param)
    if isinstance(exc, UnicodeError):
        return ApiError(400, "the request holds text that is not valid Unicode (an unpaired surrogate?); send "
                        "valid UTF-8", code="invalid_text")
    if isinstance(exc, (ProviderError, AgentError)):
        log.warning("the model call failed: %s", exc)
        return ApiError(502, without_urls(without_paths(str(exc))), code="upstream_error", type="api_error")
    if isinstance(exc, RagkitError):
        log.warning("request failed: %s", exc)
        return ApiError(500, without_urls(without_paths(str(exc))), code=type(exc).__name__)
    log.exception("unexpected error while serving a request")
    return ApiError(500, "internal server error (see the server log)", code="internal_error")


def routes(app: Any) -> list[tuple[str, set[str], Any]]:
    """Every route of ``app`` as ``(path, methods, route)``, routers included by ``include_router``
    too (newer FastAPI keeps them as included routers), mounts with no methods."""
    out: list[tuple[str, set[str], Any]] = []
    for route in getattr(app, "routes", []):
        contexts = getattr(route, "effective_route_contexts", None)
        for r in (contexts() if contexts is not None else [route]):
            out.append((getattr(r, "path", ""), set(getattr(r, "methods", None) or ()), r))
    return out


def allowed_methods(app: Any, scope: dict[str, Any]) -> list[str]:
    """The methods some route of ``app`` serves at the request's path (for ``Allow``)."""
    methods: set[str] = set()
    for _, served, route in routes(app):
        regex = getattr(route, "path_regex", None)
        if regex is not None and regex.match(scope.get("path", "")):
            methods.update(served or {"GET", "HEAD"})  # a mount (the static files) answers GET and HEAD
    return sorted(methods)


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": ("body",), "msg": "invalid request"}
        name = _field(tuple(first.get("loc", ())))
        return ApiError(400, f"invalid field '{name}': {first.get('msg', 'invalid value')}", param=name,
                        code="invalid_field").response()

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 405:
            allow = allowed_methods(request.app, request.scope)
            return ApiError(405, f"{request.method} is not allowed on {request.url.path[:200]}; use "
                            f"{', '.join(allow) or 'another path'}", code="method_not_allowed",
                            headers={"Allow": ", ".join(allow)}).response()
        message = f"no route {request.method} {request.url.path[:200]}" if exc.status_code == 404 else str(exc.detail)
        return ApiError(exc.status_code, message, code="not_found" if exc.status_code == 404 else None,
                        headers=dict(exc.headers or {})).response()

    @app.exception_handler(RagkitError)
    async def ragkit_error(request: Request, exc: RagkitError) -> JSONResponse:
        return from_exception(exc).response()

    app.openapi = _without_422(app)  # type: ignore[method-assign]


class StartTracker:
    """An ASGI ``send`` that notes whether the response has started: after its first message an
    error can no longer be answered with a response of its own."""

    def __init__(self, send: Any) -> None:
        self.send = send
        self.started = False

    async def __call__(self, message: dict[str, Any]) -> None:
        self.started = self.started or message["type"] == "http.response.start"
        await self.send(message)


class ErrorMiddleware:
    """Any exception a route lets out, answered in the envelope (``from_exception``) with the
    connection kept open; one raised after the response started is re-raised (uvicorn then closes
    the connection: the client sees the answer was cut)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        tracked = StartTracker(send)
        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            if tracked.started:
                raise
            await from_exception(exc).response()(scope, receive, send)


def _without_422(app: FastAPI) -> Any:
    """``app.openapi`` without FastAPI's automatic 422 responses (validation errors are 400s in
    the envelope, documented on every route) nor their schemas."""
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = plain()
            for ops in spec.get("paths", {}).values():
                for op in ops.values():
                    if isinstance(op, dict):
                        op.get("responses", {}).pop("422", None)
            schemas = spec.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
            app.openapi_schema = spec
        return app.openapi_schema

    return openapi
