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
from typing import Any, TypeVar

from ragkit.errors import ProviderError
from ragkit.messages import Message, Response, StreamEvent, ToolSpec
from ragkit.providers.base import BaseProvider, Provider
from ragkit.registry import providers as provider_registry

log = logging.getLogger(__name__)
T = TypeVar("T")


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

    @property
    def native_response_format(self) -> bool:
        """Structured output is native only when every provider it may fall back to enforces it."""
        return all(getattr(p, "native_response_format", False) for p in self.providers)

    @property
    def unsupported_params(self) -> dict[str, str]:
        """What any of its providers cannot honour (the request may reach any of them)."""
        out: dict[str, str] = {}
        for p in self.providers:
            out.update(getattr(p, "unsupported_params", None) or {})
        return out

    # ------------------------------------------------------------ the decisions (no I/O)
    def _candidates(self) -> Iterator[_Try]:
        """One ``_Try`` per provider in order; raises the summary error when all have failed."""
        self.last_errors = []
        for index, provider in enumerate(self.providers):
            attempt = _Try(self, provider, index)
            yield attempt
            if not attempt.failed:
                return
        details = "; ".join(f"{name}: {exc}" for name, exc in self.last_errors)
        raise ProviderError(
            f"all {len(self.providers)} providers of the fallback failed ({details}); "
            "check their endpoints and API keys"
        )

    def _failed(self, provider: Provider, exc: ProviderError, index: int) -> None:
        self.last_errors.append((describe(provider), exc))
        nxt = f"; trying {describe(self.providers[index + 1])}" if index + 1 < len(self.providers) else ""
        log.warning("provider %s failed: %s%s", describe(provider), exc, nxt)

    def _succeeded(self, provider: Provider) -> None:
        self.last_used = provider
        if self.last_errors:
            log.info("answered by %s after %d failed provider(s)", describe(provider), len(self.last_errors))

    # ------------------------------------------------------------ the four calls (thin drivers)
    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        for attempt in self._candidates():
            with attempt:
                return attempt.won(attempt.provider.complete(messages, tools, **params))
        raise AssertionError("unreachable")  # pragma: no cover - _candidates raises at the end

    async def acomplete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Response:
        for attempt in self._candidates():
            with attempt:
                return attempt.won(await attempt.provider.acomplete(messages, tools, **params))
        raise AssertionError("unreachable")  # pragma: no cover

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> Iterator[StreamEvent]:
        """Falls back only until the first event: text already shown cannot be taken back."""
        for attempt in self._candidates():
            events = iter(attempt.provider.stream(messages, tools, **params))
            with attempt:
                first = attempt.won(next(events, None))
        if first is not None:
            yield first
        yield from events

    async def astream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, **params: Any
    ) -> AsyncIterator[StreamEvent]:
        for attempt in self._candidates():
            events = attempt.provider.astream(messages, tools, **params).__aiter__()
            with attempt:
                first = attempt.won(await anext(events, None))
        if first is not None:
            yield first
        async for event in events:
            yield event


class _Try:
    """One provider's turn: swallows and records its ProviderError; ``won`` marks success."""

    def __init__(self, owner: FallbackProvider, provider: Provider, index: int) -> None:
        self.owner, self.provider, self.index, self.failed = owner, provider, index, False

    def won(self, value: T) -> T:
        self.owner._succeeded(self.provider)
        return value

    def __enter__(self) -> _Try:
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        if isinstance(exc, ProviderError):
            self.failed = True
            self.owner._failed(self.provider, exc, self.index)
            return True
        return False


__all__ = ["FallbackProvider"]
