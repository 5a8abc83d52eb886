"""``PromptInjection``: a rule set that recognises instructions aimed at the model.

It runs over the user's message (``input``) and over text the model did not write but will read:
retrieved passages and tool results (``tool_results``). Rules are regular expressions with a
name; ``extra_rules`` adds your own. With ``action="rewrite"`` each matching sentence is replaced
by ``[removed: possible prompt injection]``, so a passage stays usable while the instruction in
it is gone; ``block`` stops the run; ``warn`` only records it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragkit.guardrails.base import Guardrail

_I = re.IGNORECASE | re.DOTALL
RULES: dict[str, str] = {
    "ignore_instructions": r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|any|your|the|these|system)\b[^.\n]{0,30}?\b(?:instructions?|prompts?|rules|directions|guidelines|context)\b",
    "reveal_system_prompt": r"\b(?:reveal|print|show|repeat|output|leak|tell me)\b[^.\n]{0,30}\b(?:system prompt|hidden (?:prompt|instructions)|your (?:instructions|system prompt|rules))\b",
    "role_override": r"\byou are now (?:an? |the |in |my |free|unrestricted|unfiltered)|\bfrom now on,? you (?:are|will|must)\b|\b(?:developer|god|jailbreak) mode\b|\bact as (?:an? )?(?:unrestricted|unfiltered|jailbroken)\b|(?-i:\bDAN\b)",
    "fake_role_tag": r"<\|im_start\|>|<\|system\|>|\[/?INST\]|</?system>|^\s*(?:system|assistant)\s*:",
    "tool_instruction": r"\b(?:call|invoke|execute|run|use|trigger)\s+(?:the\s+)?`?[a-z]+_[a-z_]+`?(?:\s*\(|\s+(?:tool|function)\b|\s+(?:now|immediately|with)\b)",
}
_REMOVED = "[removed: possible prompt injection]"


class PromptInjection(Guardrail):
    """``PromptInjection(action="block")``; ``rules`` picks a subset by name, ``extra_rules`` adds."""

    name = "prompt_injection"

    def __init__(self, *, action: str = "block", rules: list[str] | None = None,
                 extra_rules: Mapping[str, str] | None = None) -> None:
        super().__init__(action=action)
        chosen = {k: v for k, v in RULES.items() if rules is None or k in rules}
        chosen.update(extra_rules or {})
        self.rules = {name: re.compile(pattern, _I | re.MULTILINE) for name, pattern in chosen.items()}

    def findings(self, text: str, context: Mapping[str, Any]) -> list[str]:
        return [name for name, rule in self.rules.items() if rule.search(text)]

    def redact(self, text: str, context: Mapping[str, Any]) -> str:
        sentences = re.split(r"(?<=[.!?\n])", text)
        return "".join(
            re.match(r"\s*", s).group(0) + _REMOVED if any(r.search(s) for r in self.rules.values()) else s  # type: ignore[union-attr]
            for s in sentences
        )


__all__ = ["RULES", "PromptInjection"]
