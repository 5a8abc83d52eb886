"""The agent's value types, shared by the loop and its guard, observe and multi-agent parts
(this module imports no other module of ``ragkit.agent``):

- the tool policy and its decisions (``ToolPolicy``, ``PolicyDecision``, ``ApprovalRequest``,
  ``ApprovalDecision``);
- the usage limits of a run (``UsageLimits``, enforced by :mod:`ragkit.agent.guard.budget`);
- the approval entries and the execution log of gated tool calls (``ExecutionLog``; the mechanism
  is told in :mod:`ragkit.agent.guard.approval`);
- a coherence check's contract and result (``CoherenceChecker``, ``CoherenceResult``; the checkers are in
  :mod:`ragkit.agent.guard.coherence`);
- a saved run's user context and agents, to JSON data and back (``RunState.to_json``/``from_json``).

**Tool policy.** ``ToolPolicy``: which tool calls run (allow), need a human's approval (review), or
never run (deny).

    policy = ToolPolicy(allow=["search_*"], review=["send_*"], deny=["delete_*"],
                        deny_when=[{"tool": "*", "arg": "path", "pattern": r"^/etc/"}])

A call is checked in this order: ``deny_when`` (a regular expression searched in the string form of
one argument; ``arg: "*"`` means any argument) → ``deny`` → ``review`` → ``allow`` (tool-name
globs) → the default, ``review``. The decision is a ``PolicyDecision(decision, reason, rule)``.

Review asks the agent's approval handler (``AgentConfig(approval_handler=...)``) with an
``ApprovalRequest``: the tool name, the **final** arguments (after guardrail rewrites) and a short
preview. The handler returns True/False, an ``ApprovalDecision`` or None; None, an exception or
running past ``approval_timeout`` means denied (fail closed). A denial goes back to the model as
the call's tool result. Without a handler the run pauses (``stop_reason="paused"``) with the
calls in ``result.pending_approvals`` and ``result.state.pending_approvals``; mark each
``decision`` ("approved"/"rejected") there and resume the state.

A policy is declarable in YAML — the keys above at the top level or under ``policy:``::

    policy:
      allow: [search_knowledge_base]
      review: ["send_*"]
      deny: ["delete_*"]
      deny_when:
        - {tool: "*", arg: path, pattern: "^/etc/"}

**Saved context.** A dataclass context keeps its class name and fields; loading rebuilds it with
the type the caller names (``context_type=``, or the runner's) — never a type imported by the name
written in the file. ``check_agents`` makes sure every agent a state names exists in the registry
that resumes it.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ragkit.errors import AgentError, ConfigError
from ragkit.messages import ToolCall, ToolSpec, Usage
from ragkit.tools.tool import ToolResult

DECISIONS = ("allow", "review", "deny")


@dataclass(frozen=True)
class PolicyDecision:
    decision: str  # allow | review | deny
    reason: str = ""
    rule: str = ""  # which rule decided, e.g. "deny:delete_*" or "default"


@dataclass(frozen=True)
class DenyWhen:
    tool: str
    arg: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approval handler sees: the final arguments of the call, and a one-line preview."""

    tool: str
    arguments: dict[str, Any]
    preview: str
    call_id: str = ""
    reason: str = ""
    run_id: str = ""


@dataclass(frozen=True)
class ApprovalDecision:
    approved: bool
    reason: str = ""


class ToolPolicy:
    def __init__(self, *, allow: Iterable[str] = (), review: Iterable[str] = (), deny: Iterable[str] = (),
                 deny_when: Iterable[Mapping[str, str]] = (), default: str = "review") -> None:
        self.allow, self.review, self.deny = list(allow), list(review), list(deny)
        if default not in DECISIONS:
            raise ConfigError(f"policy default must be one of {', '.join(DECISIONS)} (got {default!r})")
        self.default = default
        self.deny_when: list[DenyWhen] = []
        for i, rule in enumerate(deny_when):
            missing = {"tool", "pattern"} - set(rule)
            if missing:
                raise ConfigError(f"policy.deny_when[{i}]: missing {sorted(missing)}; write "
                                  "{tool: GLOB, arg: NAME or '*', pattern: REGEX}")
            try:
                pattern = re.compile(str(rule["pattern"]))
            except re.error as exc:
                raise ConfigError(f"policy.deny_when[{i}].pattern: invalid regular expression "
                                  f"{rule['pattern']!r} ({exc})") from None
            self.deny_when.append(DenyWhen(str(rule["tool"]), str(rule.get("arg", "*")), pattern))

    def __repr__(self) -> str:
        return (f"ToolPolicy(allow={self.allow}, review={self.review}, deny={self.deny}, "
                f"deny_when={len(self.deny_when)} rule(s), default={self.default!r})")

    def decide(self, tool: str, arguments: Mapping[str, Any]) -> PolicyDecision:
        for rule in self.deny_when:
            if not fnmatch.fnmatchcase(tool, rule.tool):
                continue
            for name, value in arguments.items():
                if (rule.arg == "*" or rule.arg == name) and rule.pattern.search(_text(value)):
                    return PolicyDecision("deny", f"argument '{name}' matches the forbidden pattern "
                                                  f"{rule.pattern.pattern!r}", f"deny_when:{rule.tool}:{name}")
        for decision, globs in (("deny", self.deny), ("review", self.review), ("allow", self.allow)):
            glob = next((g for g in globs if fnmatch.fnmatchcase(tool, g)), None)
            if glob is not None:
                return PolicyDecision(decision, f"tool '{tool}' matches {decision} rule '{glob}'", f"{decision}:{glob}")
        return PolicyDecision(self.default, f"tool '{tool}' matches no rule (default: {self.default})", "default")

    # --- YAML ------------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, origin: str = "<dict>") -> ToolPolicy:
        if "policy" in data and isinstance(data["policy"], Mapping):
            data = data["policy"]
        elif "agent" in data and isinstance(data["agent"], Mapping) and "policy" in data["agent"]:
            data = data["agent"]["policy"]
        allowed = {"allow", "review", "deny", "deny_when", "default"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ConfigError(f"{origin}: unknown policy key(s) {unknown}; allowed: {', '.join(sorted(allowed))}")
        for key in ("allow", "review", "deny", "deny_when"):
            if not isinstance(data.get(key, []), list):
                raise ConfigError(f"{origin}: policy.{key} must be a list (got {type(data[key]).__name__})")
        return cls(allow=data.get("allow", []), review=data.get("review", []), deny=data.get("deny", []),
                   deny_when=data.get("deny_when", []), default=data.get("default", "review"))

    @classmethod
    def from_yaml(cls, path: str | Path) -> ToolPolicy:
        from ragkit.config import read_yaml_mapping

        p = Path(path)
        data = read_yaml_mapping(p, kind="policy", keys="allow:, review:, deny:, deny_when:")
        return cls.from_dict(data, origin=str(p))


def preview(tool: str, arguments: Mapping[str, Any], limit: int = 200) -> str:
    """``send_email(to='[EMAIL]', subject='Hi')``, cut to ``limit`` characters."""
    text = f"{tool}(" + ", ".join(f"{k}={v!r}" for k, v in arguments.items()) + ")"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def as_approval(answer: Any) -> ApprovalDecision:
    """A handler's answer as a decision: True/False, an ``ApprovalDecision``, or anything else = denied."""
    if isinstance(answer, ApprovalDecision):
        return answer
    if answer is True:
        return ApprovalDecision(True, "approved")
    if answer is None:
        return ApprovalDecision(False, "the approval handler returned nothing (denied: fail closed)")
    return ApprovalDecision(False, "the approval handler denied the call")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


# --- usage limits ----------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class UsageLimits:
    """Each limit is None (no limit) or a maximum for the whole run:

    - ``requests``: provider requests (cache hits are free); ``tool_calls``: tool runs (denied or
      refused calls do not count); ``per_tool_calls``: ``{tool name: maximum}``;
    - ``input_tokens`` / ``output_tokens`` / ``total_tokens``: LLM tokens (total = input + output);
    - ``cost_usd``: the run's total cost (LLM and embeddings), priced from the model registry
      (``ragkit/models.yaml``); a model without a price is refused rather than counted as free;
    - ``warn_cost_usd``: a warning (an event, the run goes on) once the cost reaches it;
    - ``final_turn``: when a tool limit stops the run, one last model turn without tools first.
    """

    requests: int | None = None
    tool_calls: int | None = None
    per_tool_calls: Mapping[str, int] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None
    warn_cost_usd: float | None = None
    final_turn: bool = False  # after a tool limit, one last turn without tools

    def __post_init__(self) -> None:
        for name in ("requests", "tool_calls", "input_tokens", "output_tokens", "total_tokens", "cost_usd",
                     "warn_cost_usd"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ConfigError(f"UsageLimits.{name} must be >= 0 or None (got {value})")
        for tool, n in self.per_tool_calls.items():
            if n < 0:
                raise ConfigError(f"UsageLimits.per_tool_calls[{tool!r}] must be >= 0 (got {n})")


# --- approvals and the execution log ---------------------------------------------------------

class ExecutionLog(Protocol):
    """Durable records of executed tool calls (``SessionStore`` backends implement it)."""

    def claim_tool_call(self, session_id: str, call_id: str, data: dict[str, Any]) -> dict[str, Any] | None: ...

    def finish_tool_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None: ...


def decide(pending: Sequence[dict[str, Any]], call_id: str, decision: str, message: str = "") -> dict[str, Any]:
    for entry in pending:
        if entry["call_id"] == call_id:
            if entry.get("decision") is not None:
                raise AgentError(f"tool call {call_id!r} was already {entry['decision']}; each call is decided once")
            entry["decision"], entry["message"] = decision, message
            return entry
    known = ", ".join(e["call_id"] for e in pending) or "(none)"
    raise AgentError(f"no approval is waiting for tool call {call_id!r}; pending calls: {known}")


# ``run`` below is an ``agent.state.Run`` (not imported: state imports this module)

def _entry(run: Any, call_id: str) -> dict[str, Any] | None:
    return next((e for e in run.state.pending_approvals if e["call_id"] == call_id), None)


def precheck(run: Any, call: ToolCall) -> ToolResult | None:
    """Rejected calls answer with the rejection; approved calls already executed replay their result."""
    entry = _entry(run, call.id)
    if entry is None:
        return None
    if entry.get("decision") == "rejected":
        reason = entry.get("message") or "no reason given"
        return ToolResult(call.name, f"rejected: a reviewer declined this call ({reason})", is_error=True,
                          error_kind="rejected")
    log, session = run.execution_log, run.state.session_id
    if log is None or session is None:
        return None
    record = log.claim_tool_call(session, call.id, {"tool": call.name, "arguments": dict(call.arguments)})
    if record is None:  # claimed now: the tool runs
        return None
    result = record.get("result")
    if result is None:
        return ToolResult(call.name, (
            f"error: tool '{call.name}' was interrupted in an earlier attempt of this run and may or may not "
            "have taken effect; it is not run again"), is_error=True, error_kind="interrupted")
    return ToolResult(call.name, result["content"], is_error=result.get("is_error", False),
                      error_kind=result.get("error_kind"))


def record(run: Any, runs: Sequence[Any]) -> None:
    """After a turn's calls ran: complete the execution records of the approved ones (before
    anything else is written) and drop the turn's entries from ``pending_approvals``."""
    pending = run.state.pending_approvals
    ids = {done.call.id for done in runs}
    if not pending or not ids & {e["call_id"] for e in pending}:
        return
    log, session = run.execution_log, run.state.session_id
    approved = {e["call_id"] for e in pending if e.get("decision") == "approved"}
    for done in runs:
        if done.call.id in approved and log is not None and session is not None:
            log.finish_tool_call(session, done.call.id, {
                "content": done.result.content, "is_error": done.result.is_error,
                "error_kind": done.result.error_kind})
    pending[:] = [e for e in pending if e["call_id"] not in ids]


# --- coherence -------------------------------------------------------------------------------

@dataclass(frozen=True)
class CoherenceResult:
    coherent: bool
    explanation: str = ""
    usage: Usage = field(default_factory=Usage)
    model: str = ""  # the model whose tokens ``usage`` counts (LLM checkers)



@runtime_checkable
class CoherenceChecker(Protocol):
    def check(self, user_message: str, tool_name: str, tool_args: Mapping[str, Any],
              tools: Sequence[ToolSpec]) -> CoherenceResult: ...


# --- saved context and agents ----------------------------------------------------------------

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


__all__ = [
    "ApprovalDecision", "ApprovalRequest", "CoherenceChecker", "CoherenceResult", "DECISIONS", "ExecutionLog", "PolicyDecision",
    "ToolPolicy", "UsageLimits", "as_approval", "check_agents", "decide", "dump_context", "load_context",
    "plain_context", "precheck", "preview", "record", "registry_of",
]
