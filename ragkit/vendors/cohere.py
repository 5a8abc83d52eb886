"""The Cohere vendor (``cohere`` SDK, v2 clients): ``CO_API_KEY`` (the SDK's own variable) or
``COHERE_API_KEY``; clients for chat, embed and rerank; errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragkit.retry import ErrorInfo
from ragkit.vendors.base import Vendor


@dataclass(frozen=True)
class CohereVendor(Vendor):
    def _construct(self, asynchronous: bool, kwargs: dict[str, Any]) -> Any:
        import cohere

        return (cohere.AsyncClientV2 if asynchronous else cohere.ClientV2)(**kwargs)

    def _classify_sdk(self, exc: BaseException, timeout: float | None, endpoint: str) -> ErrorInfo | None:
        from cohere.core.api_error import ApiError

        if isinstance(exc, ApiError) and exc.status_code is not None:
            return self.http_status(exc.status_code, exc.body, str(exc.body), exc.headers)
        return self.classify_httpx(exc, timeout, endpoint)


COHERE = CohereVendor(name="cohere", key_vars=("CO_API_KEY", "COHERE_API_KEY"), sdk_module="cohere",
                      extra="cohere", host="api.cohere.com", default_model="command-r-plus-08-2024",
                      url_vars=("CO_API_URL",))

__all__ = ["COHERE", "CohereVendor"]
