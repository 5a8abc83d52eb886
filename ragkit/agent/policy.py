"""``ToolPolicy``: which tool calls run (allow), need a human's approval (review), or never run (deny).

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
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError

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


__all__ = ["ApprovalDecision", "ApprovalRequest", "DECISIONS", "PolicyDecision", "ToolPolicy", "as_approval", "preview"]
