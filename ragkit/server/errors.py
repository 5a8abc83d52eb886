"""Every error the server returns, in OpenAI's envelope: ``{"error": {message, type, param, code}}``.

``ApiError`` is raised by the routes; the handlers here also turn FastAPI's validation errors
(422, naming the field), unknown paths (404), ragkit's own errors (an index being written: 503;
bad configuration or input: 400) and anything unexpected (500, logged, never a traceback in the
response) into the envelope.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
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
          413: "invalid_request_error", 422: "invalid_request_error", 429: "rate_limit_error",
          503: "service_unavailable"}


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


def from_exception(exc: BaseException) -> ApiError:
    """The ``ApiError`` for any exception (what a stream sends when a turn fails)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, IndexLockedError):
        return ApiError(503, f"the index is busy being written; retry shortly ({exc})", code="index_busy",
                        headers={"Retry-After": "2"})
    if isinstance(exc, (ConfigError, MissingDependencyError)):
        param = getattr(exc, "param", None)  # a request parameter (ragkit.providers.params.ParamError)
        return ApiError(400, str(exc), code="unsupported_parameter" if param else "invalid_request", param=param)
    if isinstance(exc, (ProviderError, AgentError)):
        log.warning("the model call failed: %s", exc)
        return ApiError(502, str(exc), code="upstream_error", type="api_error")
    if isinstance(exc, RagkitError):
        log.warning("request failed: %s", exc)
        return ApiError(500, str(exc), code=type(exc).__name__)
    log.exception("unexpected error while serving a request")
    return ApiError(500, "internal server error (see the server log)", code="internal_error")


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
        return ApiError(422, f"invalid field '{name}': {first.get('msg', 'invalid value')}", param=name,
                        code="invalid_field").response()

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = f"no route {request.method} {request.url.path}" if exc.status_code == 404 else str(exc.detail)
        return ApiError(exc.status_code, message, code="not_found" if exc.status_code == 404 else None).response()

    @app.exception_handler(RagkitError)
    async def ragkit_error(request: Request, exc: RagkitError) -> JSONResponse:
        return from_exception(exc).response()

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        return from_exception(exc).response()
