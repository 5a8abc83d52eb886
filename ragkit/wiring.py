"""What the pipeline wires into a component itself, declared once.

A component's constructor takes two kinds of arguments: *options*, written in the pipeline YAML
(``chunk_size``, ``fusion``), and *wired* arguments that ragkit supplies when it builds the
component from the index (the embedder's token counter, the vector dimension, the store's
directory, the retrievers a hybrid fuses). This module says which are which, for every reader:

- :mod:`ragkit.config` refuses a wired argument written in the YAML and leaves it out of the
  allowed options it lists (``keyword_options``);
- :mod:`ragkit.option_values` puts ``PLACEHOLDERS`` in their place for a dry build;
- :mod:`ragkit.index.components` builds exactly these (``WIRED["retriever"]``), and a wrapper
  retriever's ``base`` from its nested spec (``DEFAULT_BASE`` when none is given);
- ``retriever_needs`` says what a retriever spec needs of the index (dense vectors, the BM25
  index), so whether an index keeps a BM25 index is decided in one place.

It sits with the values and vocabulary at the bottom of the layers: it imports only the registry.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

from ragkit.errors import ConfigError

#: per component kind, the constructor arguments ragkit passes itself (never options in the YAML)
WIRED: Mapping[str, frozenset[str]] = {
    "splitter": frozenset({"length_function"}),  # the embedder's token counter (unit: tokens)
    "store": frozenset({"dimension", "path"}),  # from the embedder and the index directory
    # the index's parts; a wrapper's ``base`` retriever is built from its nested spec
    "retriever": frozenset({"embedder", "store", "index", "dense", "lexical"}),
}
#: per pipeline section, the keys the pipeline consumes itself (not constructor arguments)
#: (``min_score``: hits scoring below it are dropped, whatever the retriever; ``check_min_score``)
PIPELINE_KEYS: Mapping[str, frozenset[str]] = {"retriever": frozenset({"top_k", "min_score"})}
#: stand-ins for wired arguments when a component is built dry (to run its own checks)
PLACEHOLDERS: Mapping[str, Any] = {"length_function": len}
#: the base of a wrapper retriever (rerank, mmr) whose spec names none
DEFAULT_BASE: Mapping[str, Any] = {"type": "dense"}


def wired(kind: str) -> frozenset[str]:
    """The constructor arguments ragkit supplies to a component of ``kind``."""
    return WIRED.get(kind, frozenset())


def retriever_needs(conf: Mapping[str, Any]) -> frozenset[str]:
    """What the retriever spec ``conf`` (``{type: ..., base: {...}}``) needs of the index:
    ``"dense"`` (embedder and store) and/or ``"lexical"`` (the BM25 index), from the ``needs`` its
    class declares; a wrapper needs what its base needs."""
    from ragkit.registry import retrievers

    cls = retrievers.get(str(conf.get("type")))
    needs = set(getattr(cls, "needs", frozenset()))
    if "base" in inspect.signature(cls).parameters:
        base = conf.get("base")
        needs |= retriever_needs(base if isinstance(base, Mapping) else DEFAULT_BASE)
    return frozenset(needs)


#: what a ``min_score`` must be
MIN_SCORE_RULE = "must be a finite number, the lowest score a hit may have (e.g. 0.3 for dense cosine similarity)"


def check_min_score(value: Any, key: str = "min_score") -> float | None:
    """A score threshold as given (``None``: none), or a ``ConfigError`` naming ``key``: it must be a
    finite number, in the units of the retriever's score (cosine similarity for dense, ...)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{key} {MIN_SCORE_RULE} (got {value!r})")
    return float(value)


_F = Callable[..., None]


def keyword_options(kind: str, name: str) -> Callable[[_F], _F]:
    """Mark a component ``__init__`` whose options are keyword-only arguments (the convention).

    The pipeline check (``ragkit.config.check_options``) validates them from the signature before
    anything runs; a direct call with an unknown option gets the same clear ``ConfigError`` (not a
    ``TypeError``): ``unknown option 'x' for the faiss store; allowed: index, build, search``."""

    def deco(init: _F) -> _F:
        params = inspect.signature(init).parameters
        known = [n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]
        allowed = ", ".join(n for n in known if n not in wired(kind)) or "none"

        @functools.wraps(init)
        def checked(self: object, *args: Any, **kwargs: Any) -> None:
            unknown = [k for k in kwargs if k not in known]
            if unknown:
                raise ConfigError(f"unknown option {unknown[0]!r} for the {name} {kind}; allowed: {allowed}")
            init(self, *args, **kwargs)

        return checked

    return deco


__all__ = ["DEFAULT_BASE", "MIN_SCORE_RULE", "PIPELINE_KEYS", "PLACEHOLDERS", "WIRED", "check_min_score", "keyword_options",
           "retriever_needs", "wired"]
