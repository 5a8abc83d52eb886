"""The Anthropic vendor (``anthropic`` SDK): key variable, clients, errors."""

from __future__ import annotations

from ragkit.vendors.base import StainlessVendor

ANTHROPIC = StainlessVendor(
    name="anthropic", key_vars=("ANTHROPIC_API_KEY",), sdk_module="anthropic", extra="anthropic",
    host="api.anthropic.com", default_model="claude-3-5-haiku-latest", url_vars=("ANTHROPIC_BASE_URL",),
    client_class="Anthropic", async_client_class="AsyncAnthropic",
)

__all__ = ["ANTHROPIC"]
