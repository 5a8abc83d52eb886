"""A saved run's user context and agents: to JSON data and back (``RunState.to_json``/``from_json``).

A dataclass context keeps its class name and fields; loading rebuilds it with the type the caller
names (``context_type=``, or the runner's) — never a type imported by the name written in the
file. ``check_agents`` makes sure every agent a state names exists in the registry that resumes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from ragkit.errors import AgentError


def dump_context(context: Any) -> Any:
    """The user context as JSON data: a dataclass keeps its class name to be rebuilt on load."""
    if dataclasses.is_dataclass(context) and not isinstance(context, type):
        return {"dataclass": type(context).__qualname__, "data": dataclasses.asdict(context)}
    return {"value": context}


def plain_context(raw: Any) -> Any:
    """A loaded context: plain JSON data as is; a dataclass stays in its saved form until
    ``load_context`` rebuilds it with its type."""
    return raw["value"] if isinstance(raw, dict) and set(raw) == {"value"} else raw


def load_context(raw: Any, context_type: type | None) -> Any:
    if not (isinstance(raw, dict) and set(raw) == {"dataclass", "data"}):
        return raw  # plain data, or already a live context
    if context_type is None:
        raise AgentError(f"the saved run's context is a {raw['dataclass']} dataclass; pass context_type= "
                         "to RunState.from_json (or AgentRunner(context_type=...)) to rebuild it")
    if context_type.__qualname__ != raw["dataclass"]:
        raise AgentError(f"the saved run's context is a {raw['dataclass']}, not a {context_type.__qualname__}")
    return context_type(**raw["data"])


def registry_of(agents: Any) -> tuple[set[str], type | None]:
    """Agent names and context type of ``agents``: an ``AgentRunner``, or definitions or names."""
    if hasattr(agents, "agents") and hasattr(agents, "context_type"):  # an AgentRunner
        return set(agents.agents), agents.context_type
    items: Iterable[Any] = agents or ()
    return {a if isinstance(a, str) else a.name for a in items}, None


def check_agents(named: Iterable[str | None], agents: Any) -> type | None:
    """Raise when the state names an agent the registry lacks; returns the registry's context type."""
    names, context_type = registry_of(agents)
    if names:
        unknown = sorted({n for n in named if n is not None} - names)
        if unknown:
            raise AgentError(f"the saved run names agents {unknown} that the registry lacks ({sorted(names)}); "
                             "load it with the runner that made it")
    return context_type


__all__ = ["check_agents", "dump_context", "load_context", "plain_context", "registry_of"]
