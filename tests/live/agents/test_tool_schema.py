"""Plain Python functions as tools: parameter schemas from type hints and docstrings, and the
check of a model's arguments against them (properties: a value of the hinted type passes, a
value of another JSON type is refused with the parameter named)."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.live.agents._tool_schema import ArgumentsError, function_tool
from assay.live.capture import tool


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


def everything(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    names: list[str],
    scores: dict[str, float],
    maybe: Optional[int] = None,  # noqa: UP045 (the spelling is what is tested)
    either: int | str = 0,
    mode: Literal["fast", "slow"] = "fast",
    colour: Colour = Colour.RED,
    pair: tuple[int, str] = (0, ""),
    many: tuple[int, ...] = (),
    note: Annotated[str, "A note for the record."] = "",
    anything: Any = None,
    bare=None,  # type: ignore[no-untyped-def]
) -> None:
    """Take one of everything.

    More text that is not the description.

    Args:
        text: Some text,
            over two lines.
        count (int): How many.

    Returns:
        Nothing.
    """


def test_every_supported_hint_has_its_schema() -> None:
    spec = function_tool(everything)
    assert spec.description == "Take one of everything."
    assert spec.parameters["required"] == ["text", "count", "ratio", "flag", "names", "scores"]
    assert spec.parameters["additionalProperties"] is False
    assert spec.parameters["properties"] == {
        "text": {"type": "string", "description": "Some text, over two lines."},
        "count": {"type": "integer", "description": "How many."},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "names": {"type": "array", "items": {"type": "string"}},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "mode": {"enum": ["fast", "slow"], "type": "string"},
        "colour": {"enum": ["red", "blue"], "type": "string"},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
        "many": {"type": "array", "items": {"type": "integer"}},
        "note": {"type": "string", "description": "A note for the record."},
        "anything": {},
        "bare": {},
    }


def test_a_decorated_tool_keeps_its_name_and_runs_undecorated() -> None:
    @tool(name="lookup_order")
    def find(order_id: str) -> str:
        """Find an order."""
        return order_id

    spec = function_tool(find)
    assert spec.name == "lookup_order"
    assert spec.function is find.__wrapped__  # type: ignore[attr-defined]


def test_kwargs_accept_more_arguments() -> None:
    def loose(a: int, **rest: Any) -> None:
        """Loose."""

    spec = function_tool(loose)
    assert "additionalProperties" not in spec.parameters
    assert spec.check({"a": 1, "b": 2}) == {"a": 1, "b": 2}


def test_names_a_model_cannot_call_are_refused() -> None:
    with pytest.raises(TypeError, match="is not 1 to 64 letters"):
        function_tool(lambda: None)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"text": "a", "count": True, "ratio": 1, "flag": True, "names": [], "scores": {}},
         "count: expected a whole number, got boolean"),
        ({"text": "a", "count": 1, "ratio": 1, "flag": 1, "names": [], "scores": {}},
         "flag: expected true or false, got number"),
        ({"text": "a", "count": 1, "ratio": 1, "flag": True, "names": ["x", 2], "scores": {}},
         "names[1]: expected a string, got number"),
        ({"text": "a", "count": 1, "ratio": 1, "flag": True, "names": [], "scores": {"k": "v"}},
         "scores.k: expected a number, got string"),
        ({"text": "a", "count": 1, "ratio": 1, "flag": True, "names": [], "scores": {},
          "maybe": "x"}, "maybe: expected a whole number, got string and maybe: expected null"),
        ({"text": "a", "count": 1, "ratio": 1, "flag": True, "names": [], "scores": {},
          "pair": [1]}, "pair: expected 2 items, got 1"),
        ([1, 2], "arguments are array, not a JSON object"),
    ],
)
def test_arguments_that_do_not_fit_are_refused_with_the_place(args: Any, problem: str) -> None:
    with pytest.raises(ArgumentsError) as raised:
        function_tool(everything).check(args)
    assert str(raised.value).startswith(problem)


def test_no_arguments_for_a_tool_without_parameters() -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    assert function_tool(ping).check(None) == {}
    assert function_tool(ping).check({}) == {}


_KINDS = {
    str: st.text(max_size=5),
    int: st.integers(),
    float: st.floats(allow_nan=False) | st.integers(),
    bool: st.booleans(),
    list: st.lists(st.integers(), max_size=3),
    dict: st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
}
_JSON_TYPE = {str: "string", int: "number", float: "number", bool: "boolean", list: "array",
              dict: "object"}


@given(data=st.data(), hint=st.sampled_from(list(_KINDS)), other=st.sampled_from(list(_KINDS)))
def test_values_of_the_hinted_type_pass_and_others_are_refused(
    data: st.DataObject, hint: type, other: type
) -> None:
    def one(value):  # type: ignore[no-untyped-def]
        """One value."""

    one.__annotations__ = {"value": hint}
    spec = function_tool(one)
    good = data.draw(_KINDS[hint])
    assert spec.check({"value": good}) == {"value": good}
    bad = data.draw(_KINDS[other])
    fits = (
        other is hint
        or (hint is float and other is int)
        or (hint is float and other is float)
        or (hint is int and type(bad) is int)
    )
    if fits:
        spec.check({"value": bad})
    else:
        with pytest.raises(ArgumentsError, match=f"^value: expected .*, got {_JSON_TYPE[other]}"):
            spec.check({"value": bad})
