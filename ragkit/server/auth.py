"""Request guards, as plain ASGI middleware: API keys and body size limits.

- Keys: once any key exists (``ragkit serve keys create``), every route except the health
  checks and the static web page needs ``Authorization: Bearer <key>``; keys are compared by
  their SHA-256 hash and never logged, and checked against the database on every request, so a
  revoked key is refused at once by every worker. The request's ``Principal`` (the key, or the
  local user of a keyless server) is put in ``scope["state"]`` for the routes (``principal()``).
  Without keys the server only binds loopback (see ``ragkit serve``).
- Size: a body larger than the limit (uploads to ``/documents`` have their own, larger limit)
  is refused with 413, by its ``Content-Length`` or, when it lies or is absent, while reading.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from ragkit.server.errors import ApiError, StartTracker

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]],
                   Awaitable[None]]
PUBLIC = ("/healthz", "/readyz", "/favicon.ico")
KEYS_CACHE_SECONDS = 2.0
PRINCIPAL = "ragkit.principal"


def principal(request: Any) -> Any:
    """The ``Principal`` of a request (the local user when the middleware did not run)."""
    from ragkit.server.records import LOCAL

    return request.scope.get("state", {}).get(PRINCIPAL, LOCAL)


async def _send_error(send: Any, error: ApiError) -> None:
    response = error.response()
    await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> dict[str, Any]:  # pragma: no cover - JSONResponse never reads
    return {"type": "http.disconnect"}


def _public(path: str) -> bool:
    return path == "/" or path.startswith("/static/") or path in PUBLIC


class AuthMiddleware:
    def __init__(self, app: ASGIApp, *, records: Callable[[], Any]) -> None:
        self.app, self.records = app, records
        self._keys: tuple[float, bool] = (0.0, False)

    def _keys_exist(self, records: Any) -> bool:
        checked, exist = self._keys
        if exist or time.monotonic() - checked > KEYS_CACHE_SECONDS:
            exist = records.has_keys()
            self._keys = (time.monotonic(), exist)
        return exist

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS" or _public(scope["path"]):
            return await self.app(scope, receive, send)
        records = self.records()
        if records is not None and self._keys_exist(records):
            headers = dict(scope.get("headers") or [])
            raw = headers.get(b"authorization", b"").decode("latin-1")
            scheme, _, key = raw.partition(" ")
            if scheme.lower() != "bearer" or not key.strip():
                return await _send_error(send, ApiError(
                    401, "missing API key: send it as 'Authorization: Bearer <key>' (create one with "
                    "`ragkit serve keys create`)", code="missing_api_key"))
            import anyio

            who = await anyio.to_thread.run_sync(records.principal, key.strip())
            if who is None:
                return await _send_error(send, ApiError(401, "invalid or revoked API key", code="invalid_api_key"))
            scope.setdefault("state", {})[PRINCIPAL] = who
        return await self.app(scope, receive, send)


class _TooLarge(BaseException):
    """Raised from ``receive``; a BaseException so that no body parser turns it into a 400."""


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, *, max_body: int, max_upload: int) -> None:
        self.app, self.max_body, self.max_upload = app, max_body, max_upload

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        upload = scope["path"] == "/documents" and scope["method"] == "POST"
        limit = self.max_upload if upload else self.max_body
        error = ApiError(413, f"request body too large: the limit is {limit:,} bytes"
                         + (" per upload" if upload else ""), code="request_too_large")
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            return await _send_error(send, error)
        seen = 0

        async def counting_receive() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        tracked = StartTracker(send)
        try:
            await self.app(scope, counting_receive, tracked)
        except _TooLarge:
            if not tracked.started:
                await _send_error(send, error)
