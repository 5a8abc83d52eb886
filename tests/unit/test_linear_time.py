"""The linear-time check fails a quadratic reader and passes a linear one, on any machine."""

from __future__ import annotations

import re

import pytest

from tests.unit.linear_time import assert_linear


def test_a_quadratic_reader_fails_the_check() -> None:
    """Each start of an unclosed run of ``a`` scans to its end: the textbook quadratic pattern."""
    with pytest.raises(AssertionError, match="longer than linear reading"):
        assert_linear(lambda text: re.findall(r"a*b", text), lambda k: "a" * k, 20_000)


def test_a_linear_reader_passes_it() -> None:
    assert_linear(lambda text: re.findall(r"a+b", text.replace("a", "ab")), lambda k: "a" * k, 400_000)
