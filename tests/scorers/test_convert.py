"""Option values from command-line text (`-S NAME.OPTION=VALUE`), by the declared type."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.scorers._convert import OptionValueError, check, from_text
from assay.scorers.compose import PartSpec

TYPES: list[Any] = [
    str,
    int,
    float,
    bool,
    Path,
    int | None,
    str | None,
    Literal["content", "position"],
    Literal["content", "position"] | None,
    list[str],
    Iterable[str],
    Sequence[str],
    tuple[str, ...],
    list[int],
    Mapping[str, Any],
    Mapping[str, Iterable[str]] | None,
    Sequence[PartSpec],
    dict[str, float],
    Any,
]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("hello, world", str, "hello, world"),
        ("", str, ""),
        ("12", int, 12),
        (" -3 ", int, -3),
        ("0.7", float, 0.7),
        ("1e-3", float, 0.001),
        ("true", bool, True),
        ("No", bool, False),
        ("1", bool, True),
        ("0", bool, False),
        ("position", Literal["content", "position"], "position"),
        ("null", Literal["content", "position"] | None, None),
        ("null", int | None, None),
        ("5", int | None, 5),
        ("a,b , c", list[str], ["a", "b", "c"]),
        ("", list[str], []),
        ('["a,b", "c"]', list[str], ["a,b", "c"]),
        ("x,y", tuple[str, ...], ("x", "y")),
        ("1,2", list[int], [1, 2]),
        ("search", Iterable[str], ["search"]),
        ('{"a": ["b", "c"]}', Mapping[str, Iterable[str]] | None, {"a": ["b", "c"]}),
        ('{"m": 1}', dict[str, float], {"m": 1.0}),
        ("reports/x", Path, Path("reports/x")),
        ("0.7", Any, 0.7),
        ('{"k": [1, null]}', Any, {"k": [1, None]}),
        (
            '["response_contains", {"scorer": "max_turns", "weight": 2}]',
            Sequence[PartSpec],
            ["response_contains", {"scorer": "max_turns", "weight": 2}],
        ),
        ('[["max_turns", {"limit": 3}]]', Sequence[PartSpec], [("max_turns", {"limit": 3})]),
    ],
)
def test_text_converts_to_the_declared_type(text: str, kind: Any, expected: Any) -> None:
    value = from_text(text, kind)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("many", int, "expected a whole number; got 'many'"),
        ("1.5", int, "expected a whole number"),
        ("fast", float, "expected a number; got 'fast'"),
        ("nan", float, "expected a finite number"),
        ("inf", float, "expected a finite number"),
        ("maybe", bool, "expected true or false"),
        ("sideways", Literal["content", "position"], "one of 'content', 'position'"),
        ("null", int, "expected a whole number"),  # null is None only where None is allowed
        ('{"a": 1}', Mapping[str, Iterable[str]], "at a: expected Iterable[str], got a number"),
        ("{not json", Mapping[str, Any], "expected Mapping[str, Any] as JSON"),
        ("[1, 2", list[str], "expected list[str] as JSON"),
        ('["a", 2]', list[str], "at 1: expected str, got a number"),
        ("a,b", list[int], "expected a whole number; got 'a'"),
        ("plain words", Any, "expected a JSON value (a string in double quotes)"),
        ("", Path, "expected a path"),
        ("[1]", dict[str, float], "expected dict[str, float], got an array"),
    ],
)
def test_text_that_does_not_fit_says_what_was_expected(
    text: str, kind: Any, message: str
) -> None:
    with pytest.raises(OptionValueError, match=_escaped(message)):
        from_text(text, kind)


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


def test_a_function_or_an_object_cannot_be_given_as_text() -> None:
    from collections.abc import Callable

    with pytest.raises(OptionValueError, match="function"):
        from_text("print", Callable[[], Any] | None)

    class Budget:
        pass

    with pytest.raises(OptionValueError, match="Budget cannot be given on the command line"):
        from_text("{}", Budget)


def test_json_nested_too_deep_is_refused_before_it_is_walked() -> None:
    with pytest.raises(OptionValueError, match="nested"):
        from_text("[" * 100 + "]" * 100, Any)


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_whole_numbers_round_trip(number: int) -> None:
    assert from_text(str(number), int) == number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_finite_numbers_round_trip(number: float) -> None:
    assert from_text(repr(number), float) == number


@given(st.booleans(), st.sampled_from([str.lower, str.upper, str.title]))
def test_booleans_round_trip_in_any_case(value: bool, case: Any) -> None:
    assert from_text(case(str(value)), bool) is value


@given(st.lists(st.text(min_size=1).filter(lambda s: "," not in s and s.strip() == s and s)))
def test_plain_strings_round_trip_comma_separated(items: list[str]) -> None:
    text = ",".join(items)
    if text.lstrip().startswith("["):  # read as JSON, as documented
        return
    assert from_text(text, list[str]) == items


@given(st.lists(st.text()))
def test_any_strings_round_trip_as_a_json_array(items: list[str]) -> None:
    assert from_text(json.dumps(items), list[str]) == items


@given(st.dictionaries(st.text(), st.lists(st.text(), max_size=3), max_size=5))
def test_mappings_round_trip_as_json(mapping: dict[str, list[str]]) -> None:
    assert from_text(json.dumps(mapping), Mapping[str, Iterable[str]] | None) == mapping


@given(st.text(), st.sampled_from(TYPES))
def test_any_text_converts_or_says_why_and_nothing_else(text: str, kind: Any) -> None:
    try:
        from_text(text, kind)
    except OptionValueError as exc:
        assert str(exc)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(_JSON, st.sampled_from(TYPES))
def test_any_json_value_is_checked_or_refused_with_a_reason(value: Any, kind: Any) -> None:
    try:
        check(value, kind)
    except OptionValueError as exc:
        assert str(exc)
