"""Schema inference from hints/defaults/docstrings for each supported type, and validation text."""

from __future__ import annotations

import dataclasses
import enum
from typing import Literal, Optional

import pytest
from pydantic import BaseModel

from ragkit.errors import ToolError
from ragkit.tools import Injected, Tool, ToolArgumentError, parse_docstring, tool


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Retriever:
    pass


class Opaque:
    pass


class Filter(BaseModel):
    source: str
    page: int | None = None


def schema_of(annotation: object, default: object = None, *, required: bool = True) -> dict:
    def f(value):  # type: ignore[no-untyped-def]
        return value

    f.__annotations__ = {"value": annotation}
    if not required:
        f.__defaults__ = (default,)
    t = Tool(f)
    return t.parameters["properties"]["value"]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (dict, {"type": "object", "additionalProperties": True}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Literal["fast", "slow"], {"type": "string", "enum": ["fast", "slow"]}),
        (Color, {"type": "string", "enum": ["red", "blue"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
    ],
)
def test_schema_for_each_supported_type(annotation: object, expected: dict) -> None:
    assert schema_of(annotation) == expected


def test_optional_is_nullable_and_not_required() -> None:
    @tool
    def f(q: str, tag: Optional[str] = None) -> str:  # noqa: UP045 - Optional is what we test
        return q

    assert f.parameters["properties"]["tag"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert f.parameters["required"] == ["q"]


def test_dataclass_and_pydantic_parameters_are_inlined_objects() -> None:
    @tool
    def f(point: Point, filt: Filter) -> str:
        return ""

    props = f.parameters["properties"]
    assert props["point"]["type"] == "object"
    assert props["point"]["properties"]["x"] == {"type": "integer"}
    assert props["point"]["required"] == ["x"]
    assert props["filt"]["properties"]["source"] == {"type": "string"}
    assert "$ref" not in str(f.parameters) and "$defs" not in f.parameters
    assert "title" not in f.parameters

    args = f.validate({"point": {"x": 1}, "filt": {"source": "a.md", "page": 2}})
    assert args["point"] == Point(1, 0)
    assert isinstance(args["filt"], Filter) and args["filt"].page == 2


def test_defaults_descriptions_and_required_from_signature_and_docstring() -> None:
    @tool
    def search(query: str, top_k: int = 5) -> str:
        """Search the knowledge base.

        Longer explanation that is part of the description.

        Args:
            query: What to look for,
                in plain words.
            top_k (int): How many passages to return.

        Returns:
            The passages.
        """
        return query

    spec = search.to_spec()
    assert spec.name == "search"
    assert spec.description == "Search the knowledge base. Longer explanation that is part of the description."
    props = spec.parameters["properties"]
    assert props["query"] == {"type": "string", "description": "What to look for, in plain words."}
    assert props["top_k"] == {"type": "integer", "default": 5, "description": "How many passages to return."}
    assert spec.parameters["required"] == ["query"]
    assert spec.parameters["additionalProperties"] is False


def test_parse_docstring_without_sections() -> None:
    assert parse_docstring("Just a summary.") == ("Just a summary.", {})
    assert parse_docstring(None) == ("", {})


def test_name_and_description_overrides_and_odd_parameter_names() -> None:
    @tool(name="lookup", description="Look it up.")
    def f(json: str, copy: int = 1) -> str:  # names that shadow BaseModel attributes
        return json * copy

    assert f.name == "lookup" and f.description == "Look it up."
    assert set(f.parameters["properties"]) == {"json", "copy"}
    assert f.validate({"json": "ab", "copy": 2}) == {"json": "ab", "copy": 2}


def test_injected_parameters_are_hidden_from_the_schema() -> None:
    @tool(inject=["user_id"])
    def f(query: str, retriever: Injected[Retriever], user_id: str) -> str:
        return query

    assert list(f.parameters["properties"]) == ["query"]
    assert f.injected == {"retriever", "user_id"}


def test_inject_of_unknown_parameter_is_an_error() -> None:
    def f(query: str) -> str:
        return query

    with pytest.raises(ToolError, match="inject names \\['nope'\\] are not parameters"):
        tool(inject=["nope"])(f)


def test_injected_type_may_be_unimportable() -> None:
    def f(query: str, retriever: Injected[NotImported]) -> str:  # type: ignore[name-defined]  # noqa: F821
        return query

    assert list(Tool(f).parameters["properties"]) == ["query"]


def test_unresolvable_visible_type_names_the_parameter() -> None:
    def f(query: NotImported) -> str:  # type: ignore[name-defined]  # noqa: F821
        return ""

    with pytest.raises(ToolError, match="parameter 'query'"):
        Tool(f)


def test_unschemable_type_names_the_fix() -> None:
    def f(thing: Opaque) -> str:
        return ""

    with pytest.raises(ToolError, match="Injected"):
        Tool(f)


def test_validation_error_names_param_expected_type_and_got() -> None:
    @tool
    def f(query: str, top_k: int = 5, mode: Literal["a", "b"] = "a") -> str:
        return query

    with pytest.raises(ToolArgumentError) as info:
        f.validate({"top_k": "five", "mode": "c", "extra": 1})
    text = str(info.value)
    assert "argument 'query' is required" in text
    assert "argument 'top_k': expected integer, got str 'five'" in text
    assert "argument 'mode': expected one of 'a', 'b', got str 'c'" in text
    assert "unexpected argument 'extra'; allowed arguments: query, top_k, mode" in text


def test_lax_coercion_of_numeric_strings() -> None:
    @tool
    def f(top_k: int) -> int:
        return top_k

    assert f.validate({"top_k": "3"}) == {"top_k": 3}


def test_bad_tool_name_is_rejected() -> None:
    with pytest.raises(ToolError, match="must be 1-64 letters"):
        Tool(lambda x: x, name="has space")
