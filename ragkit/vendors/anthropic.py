"""The Anthropic vendor (``anthropic`` SDK): ``ANTHROPIC_API_KEY``, clients, errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragkit.retry import ErrorInfo
from ragkit.vendors.base import Vendor


@dataclass(frozen=True)
class AnthropicVendor(Vendor):
    def _construct(self, asynchronous: bool, kwargs: dict[str, Any]) -> Any:
        import anthropic

        return (anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic)(**kwargs)

    def _classify_sdk(self, exc: BaseException, timeout: float | None, endpoint: str) -> ErrorInfo | None:
        import anthropic

        if isinstance(exc, anthropic.APITimeoutError):
            return self.timed_out(timeout)
        if isinstance(exc, anthropic.APIConnectionError):
            return self.unreachable(exc, endpoint)
        if isinstance(exc, anthropic.APIStatusError):
            return self.http_status(exc.status_code, exc.body, exc.message, exc.response.headers)
        if isinstance(exc, anthropic.APIError):
            return ErrorInfo(False, None, exc.message)
        return None


ANTHROPIC = AnthropicVendor(name="anthropic", key_vars=("ANTHROPIC_API_KEY",), sdk_module="anthropic",
                            extra="anthropic", host="api.anthropic.com", default_model="claude-3-5-haiku-latest",
                            url_vars=("ANTHROPIC_BASE_URL",))

__all__ = ["ANTHROPIC", "AnthropicVendor"]
