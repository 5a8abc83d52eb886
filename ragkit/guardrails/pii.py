"""``PIIRedactor``: finds personal data offline and replaces it with a typed placeholder.

Kinds: ``email``, ``card`` (13-19 digits passing the Luhn checksum), ``iban`` (country code,
check digits, passing ISO 13616 mod 97), ``national_id`` (US SSN, UK National Insurance number),
``ip`` (IPv4 and IPv6, validated by :mod:`ipaddress`) and ``phone`` (an optional ``+`` country
code and 9-15 digits in groups, dates excluded). Numbers that fail their checksum are left alone, so order
numbers and dates are not redacted. Replacements are ``[EMAIL]``, ``[CARD]``, ``[IBAN]``,
``[NATIONAL_ID]``, ``[IP]``, ``[PHONE]``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ragkit.errors import ConfigError
from ragkit.guardrails.base import Guardrail, GuardrailResult


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits (card numbers)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def iban_valid(text: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to 10..35, mod 97 == 1."""
    s = re.sub(r"\s", "", text).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", s):
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _ip_valid(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _ssn_valid(text: str) -> bool:
    area, group, serial = text.split("-")
    return area not in ("000", "666") and not area.startswith("9") and group != "00" and serial != "0000"


_DIGIT = re.compile(r"\d")


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


# (kind, pattern, validator); order matters: earlier kinds are replaced before later ones look
_DETECTORS: list[tuple[str, re.Pattern[str], Callable[[str], bool]]] = [
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"), lambda s: True),
    ("iban", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b"), iban_valid),
    ("card", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])"), lambda s: luhn_valid(_digits(s))),
    ("national_id", re.compile(r"\b\d{3}-\d{2}-\d{4}\b"), _ssn_valid),
    ("national_id", re.compile(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"), lambda s: True),
    ("ip", re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"), _ip_valid),
    ("ip", re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"), lambda s: s.count(":") >= 2 and _ip_valid(s)),
    ("phone", re.compile(r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w])"),
     lambda s: 9 <= len(_digits(s)) <= 15 and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s)),
    ("phone", re.compile(r"(?<![\w+])\+\d{8,15}\b"), lambda s: True),
]
KINDS = tuple(dict.fromkeys(kind for kind, _, _ in _DETECTORS))


class PIIRedactor(Guardrail):
    """``PIIRedactor(kinds=("email", "card"), action="rewrite")``; default: every kind, rewrite."""

    name = "pii"

    def __init__(self, *, kinds: Iterable[str] | None = None, action: str = "rewrite") -> None:
        super().__init__(action=action)
        chosen = tuple(kinds) if kinds is not None else KINDS
        unknown = sorted(set(chosen) - set(KINDS))
        if unknown:
            raise ConfigError(f"PIIRedactor: unknown kind(s) {unknown}; known: {', '.join(KINDS)}")
        self.kinds = chosen

    def _scan(self, text: str) -> tuple[str, list[str]]:
        found: list[str] = []
        has_at, has_digit = "@" in text, _DIGIT.search(text) is not None
        for kind, pattern, valid in _DETECTORS:
            if kind not in self.kinds or (kind == "email" and not has_at) or (kind != "email" and not has_digit):
                continue  # every kind but email needs a digit; email needs an "@"

            def replace(m: re.Match[str], kind: str = kind, valid: Callable[[str], bool] = valid) -> str:
                if not valid(m.group(0)):
                    return m.group(0)
                found.append(kind)
                return f"[{kind.upper()}]"

            text = pattern.sub(replace, text)
        return text, found

    def findings(self, text: str, context: Mapping[str, Any]) -> list[str]:
        return self._scan(text)[1]

    def redact(self, text: str, context: Mapping[str, Any]) -> str:
        return self._scan(text)[0]

    def check(self, text: str, context: Mapping[str, Any] | None = None) -> GuardrailResult:
        """One scan for both the findings and the redacted text."""
        redacted, found = self._scan(text)
        return self.result(text, found, lambda: redacted)


__all__ = ["KINDS", "PIIRedactor", "iban_valid", "luhn_valid"]
