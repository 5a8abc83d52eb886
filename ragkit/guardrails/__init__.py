"""Guardrails: offline checks on what enters and leaves an agent run (block, rewrite, warn).

    from ragkit.guardrails import GuardrailSet, PIIRedactor, PromptInjection
    guards = GuardrailSet(input=[PromptInjection(action="block"), PIIRedactor()])
    Agent(provider, config=AgentConfig(guardrails=guards))
"""

from __future__ import annotations

from ragkit.guardrails.base import ACTIONS, STAGES, Guardrail, GuardrailResult, GuardrailSet, Screened
from ragkit.guardrails.defaults import default_guardrails
from ragkit.guardrails.injection import PromptInjection
from ragkit.guardrails.pii import PIIRedactor, iban_valid, luhn_valid
from ragkit.guardrails.rules import MaxLength, TopicDenyList

__all__ = [
    "ACTIONS",
    "STAGES",
    "Guardrail",
    "GuardrailResult",
    "GuardrailSet",
    "MaxLength",
    "PIIRedactor",
    "PromptInjection",
    "Screened",
    "TopicDenyList",
    "default_guardrails",
    "iban_valid",
    "luhn_valid",
]
