"""``Vendor``: what ragkit knows about one remote API (keys, clients, errors, prices).

A vendor module subclasses ``Vendor`` and fills in ``_construct`` (the SDK client) and
``_classify_sdk`` (the SDK's exceptions); this base resolves keys from the environment with an
error that names the variable to set, turns an unreachable server into a fast failure with a
hint (no minutes of retries against a server that is not running), and looks up prices.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any

from ragkit.errors import MissingDependencyError, RagkitError
from ragkit.retry import ErrorInfo, info_for_status


@dataclass(frozen=True)
class Vendor:
    """One vendor, or a preset of one (an endpoint with its own default URL and key variable).

    ``key_vars``: the environment variables holding the API key, the first is named in errors;
    ``requires_key``: False for local servers (``placeholder_key`` is sent instead);
    ``host``: named in connection errors when no ``base_url`` is given;
    ``connect_hint``: the fix suggested when the server cannot be reached;
    ``url_vars``: environment variables the SDK reads a base URL from by itself.
    """

    name: str
    key_vars: tuple[str, ...]
    sdk_module: str
    extra: str
    host: str
    base_url: str | None = None
    requires_key: bool = True
    placeholder_key: str = "unused"
    default_model: str = ""
    connect_hint: str = ""
    url_vars: tuple[str, ...] = ()  # variables the SDK itself reads a base URL from

    # ------------------------------------------------------------ SDK and key
    def require_sdk(self, what: str) -> None:
        """Raise ``MissingDependencyError`` (with the pip command) when the SDK is not installed."""
        if importlib.util.find_spec(self.sdk_module) is None:
            raise MissingDependencyError(self.sdk_module, self.extra, what)

    def api_key(self, given: str | None, *, what: str, error_cls: type[RagkitError], hint: str = "") -> str:
        """``given``, else the first set variable of ``key_vars``, else the placeholder of a
        keyless endpoint; otherwise ``error_cls`` naming the variable to export."""
        if given:
            return given
        for var in self.key_vars:
            value = os.environ.get(var)
            if value:
                return value
        if not self.requires_key:
            return self.placeholder_key
        var = self.key_vars[0]
        others = f" (or {', '.join(self.key_vars[1:])})" if len(self.key_vars) > 1 else ""
        raise error_cls(
            f"no API key for {what}: set the environment variable {var}{others}, e.g. `export {var}=...` "
            f"(in Python or a pipeline YAML, api_key: ... also works){hint}"
        )

    def env_summary(self) -> str:
        return " / ".join(self.key_vars)

    # ------------------------------------------------------------ clients
    def client(self, *, api_key: str, base_url: str | None, timeout: float, asynchronous: bool = False,
               **extra: Any) -> Any:
        """A new SDK client with the SDK's own retries off (:mod:`ragkit.retry` is the one mechanism)."""
        kwargs: dict[str, Any] = {"api_key": api_key, "timeout": timeout, "max_retries": 0, **extra}
        url = base_url or self.base_url
        if url:
            kwargs["base_url"] = url
        return self._construct(asynchronous, kwargs)

    def _construct(self, asynchronous: bool, kwargs: dict[str, Any]) -> Any:
        raise NotImplementedError

    # ------------------------------------------------------------ errors
    def classify(self, exc: BaseException, *, timeout: float | None = None,
                 endpoint: str | None = None) -> ErrorInfo | None:
        """Map an SDK or transport exception to ``ErrorInfo``; None for anything else."""
        return self._classify_sdk(exc, timeout, endpoint or self.base_url or self.host)

    def _classify_sdk(self, exc: BaseException, timeout: float | None, endpoint: str) -> ErrorInfo | None:
        raise NotImplementedError

    def timed_out(self, timeout: float | None) -> ErrorInfo:
        after = f" after {timeout:g}s" if timeout else ""
        return ErrorInfo(True, None, f"request timed out{after}")

    def unreachable(self, exc: BaseException, endpoint: str) -> ErrorInfo:
        """A connection error. Refused (nothing listens there) is not retried: waiting will not
        start the server; the hint says what to do. Other drops are retried."""
        message = f"cannot connect to {endpoint}: {exc.__cause__ or exc}"
        root = _root_cause(exc)
        if isinstance(root, ConnectionRefusedError) or "connection refused" in str(root).lower():
            hint = self.connect_hint or (
                f"check that the server at {endpoint} is running, or pass --base-url (base_url=) with its address"
            )
            return ErrorInfo(False, None, message, hint=hint)
        return ErrorInfo(True, None, message)

    @staticmethod
    def http_status(status: int, body: Any, fallback: str, headers: Any) -> ErrorInfo:
        """ErrorInfo from an HTTP error, with the server's own message dug out of the usual bodies."""
        return info_for_status(status, server_message(body) or fallback, dict(headers or {}))

    # ------------------------------------------------------------ prices
    def model_info(self, model: str) -> Any:
        """The model registry entry (prices, context window) for ``model``, or None."""
        from ragkit import pricing

        return pricing.model_info(model)


def _root_cause(exc: BaseException) -> BaseException | None:
    seen: set[int] = set()
    cause: BaseException | None = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ConnectionRefusedError):
            return cause
        nxt = cause.__cause__ or cause.__context__
        if nxt is None:
            return cause
        cause = nxt
    return cause


def server_message(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if body.get("message"):
            return str(body["message"])
    if isinstance(body, str):
        return body
    return ""


__all__ = ["Vendor", "server_message"]
