"""What every request to ``ragkit serve`` and ``ragkit mcp --transport http`` passes first, in one
ASGI middleware, so no route (one added later too) can escape it:

- **Host allow-list (DNS rebinding).** A page on ``attacker.example`` whose name is rebound to
  127.0.0.1 reaches a loopback server with ``Host: attacker.example``; only the loopback names, the
  bind address and the names given with ``--allowed-host`` are answered, anything else gets 421.
  With a wildcard bind (0.0.0.0, ::) any IP literal is accepted too (a rebinding page always has
  a name; an address cannot be rebound).
- **Cross-site writes (CSRF).** A browser sends a form or ``text/plain`` POST to any site without
  asking first. A state-changing request is refused (403) when its ``Origin`` (or ``Referer``) is
  neither the served origin nor a ``--cors-origin``, and a POST must be JSON or carry a header no
  form can set without a CORS preflight (``Authorization`` or ``X-Ragkit-Client``); the preflight
  then fails for every origin not configured with ``--cors-origin``.

Both answer in OpenAI's error envelope and name the fix.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ragkit.server.errors import ApiError

log = logging.getLogger(__name__)
CLIENT_HEADER = "x-ragkit-client"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
#: headers that force a CORS preflight, so a cross-site form can never send them
PREFLIGHTED = (b"authorization", CLIENT_HEADER.encode())


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def split_host(value: str) -> str:
    """The host name of a ``Host`` header value (``[::1]:8000`` -> ``::1``), lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") > 1:  # a bare IPv6 address
        return value
    return value.partition(":")[0].rstrip(".")


@dataclass(frozen=True)
class HostRule:
    """Which ``Host`` names a server answers to."""

    names: frozenset[str]
    patterns: tuple[str, ...] = ()  # "*.example.org"
    any_ip: bool = False
    anything: bool = False

    @classmethod
    def build(cls, bind: str, extra: Iterable[str] = ()) -> HostRule:
        names = {*LOOPBACK_NAMES}
        bind = split_host(bind) if bind not in WILDCARD_BINDS else bind
        any_ip = bind in WILDCARD_BINDS
        if any_ip:
            names.update({socket.gethostname().lower(), socket.getfqdn().lower()})
        else:
            names.add(bind)
        patterns = []
        anything = False
        for raw in extra:
            name = split_host(raw)
            if name == "*":
                anything = True
            elif name.startswith("*."):
                patterns.append(name[1:])  # ".example.org"
            elif name:
                names.add(name)
        return cls(frozenset(names), tuple(patterns), any_ip, anything)

    def allows(self, host: str) -> bool:
        if self.anything:
            return True
        name = split_host(host)
        if name in self.names or name.endswith(".localhost"):  # *.localhost is loopback by definition
            return True
        if any(name.endswith(p) for p in self.patterns):
            return True
        return self.any_ip and _is_ip(name)


def _origin_of(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    return scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80)


@dataclass(frozen=True)
class Guard:
    hosts: HostRule
    cors_origins: tuple[str, ...] = ()

    def origin_allowed(self, origin: str, scheme: str, host: str) -> bool:
        if "*" in self.cors_origins:
            return True
        seen = _origin_of(origin)
        if seen is None:  # "null" (a sandboxed frame, a file:// page) or garbage
            return False
        served = _origin_of(f"{scheme}://{host}")
        return seen == served or any(seen == _origin_of(o) for o in self.cors_origins)

    def check(self, method: str, scheme: str, headers: dict[bytes, bytes]) -> ApiError | None:
        """The error for a request that must not be served, or ``None``."""
        host = headers.get(b"host", b"").decode("latin-1")
        if host and not self.hosts.allows(host):
            shown = split_host(host)[:100]
            return ApiError(421, f"this server does not answer to the host name '{shown}' (DNS rebinding "
                            f"protection); if that name is yours, start the server with --allowed-host {shown}",
                            code="host_not_allowed", type="invalid_request_error")
        if method in SAFE_METHODS:
            return None
        origin = headers.get(b"origin", b"").decode("latin-1") or headers.get(b"referer", b"").decode("latin-1")
        if origin and not self.origin_allowed(origin, scheme, host):
            return ApiError(403, f"cross-site request refused: a page on {_origin_name(origin)} may not change "
                            "anything here; allow that origin with --cors-origin", code="cross_origin_refused")
        if method == "POST" and not _json(headers) and not any(h in headers for h in PREFLIGHTED):
            ctype = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip() or "none"
            return ApiError(403, f"a POST with content type '{ctype[:80]}' must carry the header "
                            "'X-Ragkit-Client: 1' (or an 'Authorization' header): a web page on another site "
                            "cannot send that without asking first (cross-site request protection); or send "
                            "JSON (Content-Type: application/json)", code="csrf_header_missing",
                            param=CLIENT_HEADER)
        return None


def _origin_name(origin: str) -> str:
    seen = _origin_of(origin)
    return f"{seen[0]}://{seen[1]}" if seen else "an opaque origin"


def _json(headers: dict[bytes, bytes]) -> bool:
    ctype = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
    return ctype == "application/json" or (ctype.startswith("application/") and ctype.endswith("+json"))


class GuardMiddleware:
    """The ASGI middleware: every HTTP request goes through ``Guard.check``."""

    def __init__(self, app: Any, *, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            error = self.guard.check(scope["method"], scope.get("scheme", "http"), dict(scope.get("headers") or []))
            if error is not None:
                log.warning("refused %s %s (%s): %s", scope["method"], scope.get("path", "")[:200], error.code,
                            error.message)
                response = error.response()
                return await response(scope, receive, send)
        elif scope["type"] == "websocket":
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            if host and not self.guard.hosts.allows(host):
                return await send({"type": "websocket.close", "code": 1008})
        return await self.app(scope, receive, send)


def build_guard(bind: str, allowed_hosts: Sequence[str], cors_origins: Sequence[str]) -> Guard:
    return Guard(HostRule.build(bind, allowed_hosts), tuple(cors_origins))


__all__ = ["CLIENT_HEADER", "Guard", "GuardMiddleware", "HostRule", "build_guard", "split_host"]
