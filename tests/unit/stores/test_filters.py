"""The filter language: normalization, operator checks and the reference ``matches``."""

from __future__ import annotations

import pytest

from ragkit.errors import StoreError
from ragkit.stores.filters import ALL_OPS, check_supported, matches, normalize

ROW = {"source": "docs/guide.md", "page": 3, "title": "Guide", "headings": ["A", "B"]}


def test_plain_values_become_eq() -> None:
    assert normalize({"source": "a.md", "page": {"$gte": 2}}) == {
        "source": {"$eq": "a.md"}, "page": {"$gte": 2},
    }
    assert normalize(None) == {} and normalize({}) == {}


@pytest.mark.parametrize(
    ("flt", "needle"),
    [
        ({"page": {"$near": 3}}, "unknown filter operator '\\$near' on field 'page'"),
        ({"source": {"$in": "a.md"}}, "'\\$in' on field 'source' needs a list"),
        (["source"], "must be a mapping"),
    ],
)
def test_malformed_filters_raise(flt: object, needle: str) -> None:
    with pytest.raises(StoreError, match=needle):
        normalize(flt)  # type: ignore[arg-type]


def test_check_supported_names_the_operator_and_what_is_supported() -> None:
    with pytest.raises(StoreError, match="does not support the filter operator '\\$glob'.*supports: \\$eq, \\$in"):
        check_supported({"source": {"$glob": "*.md"}}, {"$eq", "$in"}, "toy")
    assert check_supported({"source": "a"}, ALL_OPS, "toy") == {"source": {"$eq": "a"}}


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"source": "docs/guide.md"}, True),
        ({"source": "other.md"}, False),
        ({"source": {"$in": ["x.md", "docs/guide.md"]}}, True),
        ({"source": {"$in": []}}, False),
        ({"page": {"$gte": 3, "$lt": 4}}, True),
        ({"page": {"$gt": 3}}, False),
        ({"page": {"$lte": 2}}, False),
        ({"source": {"$glob": "docs/*.md"}}, True),
        ({"source": {"$glob": "*.txt"}}, False),
        ({"source": "docs/guide.md", "page": 4}, False),  # AND across fields
        ({"missing": "x"}, False),
        ({"missing": {"$lt": 10}}, False),
        ({"title": {"$gt": 3}}, False),  # str vs int: no match rather than TypeError
        ({"headings": ["A", "B"]}, True),
    ],
)
def test_matches(flt: dict, expected: bool) -> None:
    assert matches(ROW, normalize(flt)) is expected
