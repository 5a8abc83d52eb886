"""The Voyage AI vendor: ``VOYAGE_API_KEY``; its REST embeddings API (``POST {base}/embeddings``)
spoken over ``httpx`` (no SDK: the API is one JSON endpoint); errors.

Voyage answers ``{"data": [{"embedding": [...], "index": i}], "usage": {"total_tokens": n}}``
and reports a failure as ``{"detail": "..."}`` with its HTTP status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragkit.retry import ErrorInfo
from ragkit.vendors.base import Vendor

DEFAULT_URL = "https://api.voyageai.com/v1"


class VoyageHTTPError(Exception):
    """A response with an error status: the status, the decoded body and the headers."""

    def __init__(self, status: int, body: Any, headers: Any) -> None:
        super().__init__(f"HTTP {status}")
        self.status, self.body, self.headers = status, body, headers


class VoyageClient:
    """The embeddings endpoint of one base URL, with one key (a pooled ``httpx.Client``)."""

    def __init__(self, *, api_key: str, base_url: str, timeout: float, max_retries: int = 0) -> None:
        import httpx

        self.url = base_url.rstrip("/") + "/embeddings"
        self._http = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"})

    def embed(self, **body: Any) -> dict[str, Any]:
        """One request; the decoded answer, or ``VoyageHTTPError`` for an error status."""
        resp = self._http.post(self.url, json={k: v for k, v in body.items() if v is not None})
        try:
            data = resp.json()
        except ValueError:
            data = resp.text
        if resp.status_code >= 400:
            raise VoyageHTTPError(resp.status_code, data, resp.headers)
        return data if isinstance(data, dict) else {}

    def close(self) -> None:
        self._http.close()


@dataclass(frozen=True)
class VoyageVendor(Vendor):
    def _construct(self, asynchronous: bool, kwargs: dict[str, Any]) -> Any:
        if asynchronous:
            raise NotImplementedError("the voyage vendor has no async client")
        return VoyageClient(**kwargs)

    def _classify_sdk(self, exc: BaseException, timeout: float | None, endpoint: str) -> ErrorInfo | None:
        if isinstance(exc, VoyageHTTPError):
            return self.http_status(exc.status, exc.body, str(exc.body), exc.headers)
        return self.classify_httpx(exc, timeout, endpoint)


VOYAGE = VoyageVendor(name="voyage", key_vars=("VOYAGE_API_KEY",), sdk_module="httpx", extra="voyage",
                      host="api.voyageai.com", base_url=DEFAULT_URL, default_model="voyage-3.5")

__all__ = ["DEFAULT_URL", "VOYAGE", "VoyageClient", "VoyageHTTPError", "VoyageVendor"]
