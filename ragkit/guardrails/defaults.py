"""``default_guardrails()``: the offline set ``ragkit ask --guardrails`` and ``agent: {guardrails: true}`` use."""

from __future__ import annotations

from ragkit.guardrails.base import GuardrailSet
from ragkit.guardrails.injection import PromptInjection
from ragkit.guardrails.pii import PIIRedactor
from ragkit.guardrails.rules import MaxLength


def default_guardrails(*, max_chars: int = 20_000) -> GuardrailSet:
    """Redact personal data everywhere, block prompt injection in the user's message, neutralise
    it in tool results and retrieved passages, cap the input length."""
    return GuardrailSet(
        input=[MaxLength(max_chars), PromptInjection(action="block"), PIIRedactor()],
        output=[PIIRedactor()],
        tool_arguments=[PIIRedactor()],
        tool_results=[PromptInjection(action="rewrite"), PIIRedactor()],
    )


__all__ = ["default_guardrails"]
