"""A provider that tries several providers in order and answers with the first that works.

Each inner provider does its own retries first; when one still fails with a ``ProviderError``,
the failure is logged and the next is tried. ``last_used`` records which one answered and
``last_errors`` what went wrong with the ones before it. A stream falls back only until its first
event: text already shown cannot be taken back, so a failure after that propagates.

From YAML, inner providers are registry specs: ``{type: openai, model: gpt-4o-mini}``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from ragkit.errors import ProviderError
from ragkit.providers.base import BaseProvider, Message, Provider, Response, StreamEvent, ToolSpec
from ragkit.registry import providers as provider_registry

log = logging.getLogger(__name__)


def _build(spec: Provider | Mapping[str, Any], position: int) -> Provider:
    if isinstance(spec, Mapping):
        options = dict(spec)
        kind = options.pop("type", None)
        if not isinstance(kind, str):
            raise ProviderError(
                f"fallback provider #{position + 1} needs a 'type' naming a provider (got {spec!r}); "
                f"e.g. {{type: openai, model: gpt-4o-mini}}"
            )
        return provider_registry.get(kind)(**options)  # type: ignore[no-any-return]
    if not callable(getattr(spec, "complete", None)):
        raise ProviderError(
            f"fallback provider #{position + 1} is not a provider (got {type(spec).__name__}); "
            "pass provider objects or {type: ..., ...} specs"
        )
    return spec


def describe(provider: Provider) -> str:
    model = getattr(provider, "model", "")
    return f"{getattr(provider, 'name', type(provider).__name__)}({model})" if model else str(provider.name)


@provider_registry.register("fallback")
class FallbackProvider(BaseProvider):
    """``FallbackProvider(providers=[primary, backup])``: the first that answers wins."""

    name = "fallback"

    def __init__(self, *, providers: Sequence[Provider | Mapping[str, Any]]) -> None:
        if not providers:
            raise ProviderError(
                "fallback needs at least one provider (got an empty list); pass providers=[...]"
            )
        self.providers: list[Provider] = [_build(spec, i) for i, spec in enumerate(providers)]
        self.last_used: Provider | None = None
        self.last_errors: list[tuple[str, ProviderError]] = []

    @property
    def model(self) -> str:  # type: ignore[override]
        chosen = self.last_used or self.providers[0]
        return str(getattr(chosen, "model", ""))

    def __repr__(self) -> str:
        return f"FallbackProvider([{', '.join(describe(p) for p in self.providers)}])"

    # ------------------------------------------------------------ bookkeeping
    def _start(self) -> None:
        self.last_errors = []

    def _failed(self, provider: Provider, exc: ProviderError, index: int) -> None:
        self.last_errors.append((describe(provider), exc))
        nxt = f"; trying {describe(self.providers[index + 1])}" if index + 1 < len(self.providers) else ""
        log.warning("provider %s failed: %s%s", describe(provider), exc, nxt)

    def _succeeded(self, provider: Provider) -> None:
        self.last_used = provider
        if self.last_errors:
            log.info("answered by %s after %d failed provider(s)", describe(provider), len(self.last_errors))

    def _all_failed(self) -> ProviderError:
        details = "; ".join(f"{name}: {exc}" for name, exc in self.last_errors)
        return ProviderError(
            f"all {len(self.providers)} providers of the fallback failed ({details}); "
            "check their endpoints and API keys"
        )

    # ------------------------------------------------------------ the four calls
    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        self._start()
        for index, provider in enumerate(self.providers):
            try:
                response = provider.complete(messages, tools, **params)
            except ProviderError as exc:
                self._failed(provider, exc, index)
                continue
            self._succeeded(provider)
            return response
        raise self._all_failed()

    async def acomplete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        self._start()
        for index, provider in enumerate(self.providers):
            try:
                response = await provider.acomplete(messages, tools, **params)
            except ProviderError as exc:
                self._failed(provider, exc, index)
                continue
            self._succeeded(provider)
            return response
        raise self._all_failed()

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        self._start()
        for index, provider in enumerate(self.providers):
            events = iter(provider.stream(messages, tools, **params))
            try:
                first = next(events, None)
            except ProviderError as exc:
                self._failed(provider, exc, index)
                continue
            self._succeeded(provider)
            if first is not None:
                yield first
            yield from events
            return
        raise self._all_failed()

    async def astream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> AsyncIterator[StreamEvent]:
        self._start()
        for index, provider in enumerate(self.providers):
            events = provider.astream(messages, tools, **params).__aiter__()
            try:
                first = await anext(events, None)
            except ProviderError as exc:
                self._failed(provider, exc, index)
                continue
            self._succeeded(provider)
            if first is not None:
                yield first
            async for event in events:
                yield event
            return
        raise self._all_failed()


__all__ = ["FallbackProvider"]
