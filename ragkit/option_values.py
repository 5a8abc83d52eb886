"""Check the *values* of a pipeline's component options before anything runs.

:func:`ragkit.config.check_components` checks option names against each component's signature;
this module checks what the options are set to, so ``pipeline validate`` and ``index`` reject
``retriever: {type: hybrid, weight: 1.7, fusion: minmx}`` or ``chunk_overlap: 200`` with
``chunk_size: 100`` up front instead of after an expensive build. Three checks, all derived from
the component itself (nothing here repeats a component's rules):

1. *type*: each value against the constructor parameter's annotation (``weight: float``,
   ``unit: Literal["tokens", "chars"]``), via pydantic in lax mode;
2. *choices*: a string option ``x`` whose module exposes a tuple ``XS`` of allowed names
   (``FUSIONS`` beside the hybrid retriever, ``UNITS`` beside the splitters) must be one of them,
   with a did-you-mean;
3. *a dry build* for components whose constructors are cheap and side-effect free (splitters,
   retrievers): the constructor runs with placeholders for what the pipeline wires in at run time
   (the embedder's token counter, the dense and lexical retrievers), so its own range and
   cross-field checks (``0 <= weight <= 1``, ``chunk_overlap < chunk_size``) run now.

Every error names the file, the key path, the value and the fix.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from ragkit.errors import ConfigError
from ragkit.registry import did_you_mean
from ragkit.wiring import PLACEHOLDERS

log = logging.getLogger(__name__)

#: sections whose components are built in a dry run with placeholders for the run-time wiring
DRY_BUILD_SECTIONS = frozenset({"splitter", "retriever"})


def check_option_values(
    cls: type, opts: Mapping[str, Any], *, section: str, name: str, origin: str, dry_build: bool = False
) -> None:
    """Raise one :class:`ConfigError` listing every option value ``cls`` would reject."""
    params = _parameters(cls)
    errors: dict[str, str] = {}
    for key, value in opts.items():
        where = f"{section}.{key}"
        try:
            if key in params:
                _check_type(params[key], value, where=where, name=name)
            _check_choice(cls, key, value, where=where, name=name)
        except ConfigError as exc:
            errors[key] = str(exc)
    if dry_build and params:
        valid = {k: v for k, v in opts.items() if k not in errors}
        problem = _dry_build(cls, params, valid, section=section, name=name)
        if problem:
            errors[""] = problem
    if errors:
        lines = list(errors.values())
        head = f"{origin}: invalid {section} options"
        raise ConfigError(f"{origin}: {lines[0]}" if len(lines) == 1 else head + ":\n  " + "\n  ".join(lines))


def _parameters(cls: type) -> dict[str, inspect.Parameter]:
    try:
        sig = inspect.signature(cls, eval_str=True)
    except Exception:  # unresolvable annotations or no signature: fall back to names only
        try:
            sig = inspect.signature(cls)
        except (TypeError, ValueError):
            return {}
    return dict(sig.parameters)


def _check_type(param: inspect.Parameter, value: Any, *, where: str, name: str) -> None:
    ann = param.annotation
    if ann is inspect.Parameter.empty or isinstance(ann, str):
        return
    adapter = _adapter(ann)
    if adapter is None:
        return
    from pydantic import ValidationError

    try:
        adapter.validate_python(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        expected = err.get("ctx", {}).get("expected")
        if expected and isinstance(value, str):
            raise _choice_error(where, param.name, value, name, re.findall(r"'([^']*)'", str(expected))) from None
        raise ConfigError(f"{where}: {value!r} is not valid for '{name}': {err['msg'].lower()}") from None


@functools.lru_cache(maxsize=256)
def _adapter(annotation: Any) -> Any:
    from pydantic import TypeAdapter

    try:
        return TypeAdapter(annotation)
    except Exception:  # classes pydantic cannot describe (protocols, handles): not a YAML option
        return None


def _check_choice(cls: type, key: str, value: Any, *, where: str, name: str) -> None:
    if not isinstance(value, str):
        return
    module = sys.modules.get(cls.__module__)
    choices = getattr(module, f"{key.upper()}S", None)
    if not isinstance(choices, (tuple, list, frozenset, set)) or not all(isinstance(c, str) for c in choices):
        return
    if value not in choices:
        raise _choice_error(where, key, value, name, choices)


def _choice_error(where: str, key: str, value: str, name: str, choices: Iterable[str]) -> ConfigError:
    """``unknown fusion 'minmx' for 'hybrid'; did you mean 'minmax'? (allowed: minmax, rrf, zscore)``"""
    options = sorted(choices)
    hint = did_you_mean(value, options)
    allowed = "" if hint.startswith("; allowed") else f" (allowed: {', '.join(options)})"
    return ConfigError(f"{where}: unknown {key} {value!r} for '{name}'{hint}{allowed}")


def _dry_build(
    cls: type, params: Mapping[str, inspect.Parameter], opts: Mapping[str, Any], *, section: str, name: str
) -> str | None:
    """Build ``cls`` with placeholders for the run-time wiring; the constructor's complaint, if any."""
    runtime = {
        key: PLACEHOLDERS.get(key)
        for key, p in params.items()
        if key not in opts
        and (key in PLACEHOLDERS or (p.kind is p.KEYWORD_ONLY and p.default is p.empty))
    }
    try:
        cls(**opts, **runtime)
    except (ConfigError, ValueError) as exc:
        key = _key_named_in(str(exc), opts)
        where = f"{section}.{key}" if key else section
        got = f" (got {key}={opts[key]!r})" if key and repr(opts[key]) not in str(exc) else ""
        return f"{where}: {exc}{got}"
    except Exception as exc:  # a placeholder the constructor could not use: its checks run at build time
        log.debug("dry build of %s '%s' skipped: %s", section, name, exc)
    return None


def _key_named_in(message: str, opts: Mapping[str, Any]) -> str | None:
    """The option the message names first (``chunk_overlap must be < chunk_size`` -> chunk_overlap)."""
    found = [(m.start(), key) for key in opts if (m := re.search(rf"\b{re.escape(key)}\b", message))]
    return min(found)[1] if found else None


__all__ = ["DRY_BUILD_SECTIONS", "check_option_values"]
