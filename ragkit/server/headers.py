"""The security headers every response carries, as one ASGI middleware (the outermost, so the
guard's, the key check's and the size limit's own answers carry them too):

- ``X-Content-Type-Options: nosniff`` on every response: a browser never guesses a type
  (an uploaded text read back is never run as a script or a page);
- ``X-Frame-Options: DENY`` and ``Content-Security-Policy: frame-ancestors 'none'`` on every
  response: no page may frame this server (clickjacking: a hidden frame of the chat page under
  another site's buttons). The chat page's own policy (``PAGE_POLICY``, set by its route) also
  keeps it to its own scripts, styles and forms.

Used by ``ragkit serve`` and by ``ragkit mcp --transport http``.
"""

from __future__ import annotations

from typing import Any

#: the chat page's policy: its own files only, never framed, no plugins, no foreign form targets
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
               "form-action 'self'; frame-ancestors 'none'")
#: every response's (a route's own Content-Security-Policy, the page's, is kept)
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
)


class SecurityHeadersMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


__all__ = ["PAGE_POLICY", "SECURITY_HEADERS", "SecurityHeadersMiddleware"]
