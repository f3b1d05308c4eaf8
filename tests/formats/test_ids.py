"""Tests for `assay.formats.ids.scenario_key`: the join key between runs and ground truth."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import scenario_key


@pytest.mark.parametrize(
    "value",
    [
        "scenario_11",
        "Scenario-11",
        "SCENARIO_11",
        "11",
        11,
        11.0,
        "11.0",
        " 11 ",
        "011",
        "scenario_011",
        " scenario_ 11 ",
        "11.",
        "+11",
        "scenario_scenario_11",
    ],
)
def test_spellings_of_eleven_share_one_key(value: object) -> None:
    assert scenario_key(value) == "11"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("scenario_pump_a", "pump_a"),
        ("Scenario-Pump_A", "Pump_A"),  # text keeps its case: only the prefix is matched loosely
        ("  chiller 6 ", "chiller 6"),
        ("scenario", "scenario"),  # no separator, so not a prefix
        ("1e3", "1e3"),  # exponent forms are text, not numbers
        (11.5, "11.5"),
        ("11.50", "11.5"),
        ("011.500", "11.5"),
        (0, "0"),
        ("000", "0"),
        ("-0", "0"),
        (-3, "-3"),
        ("-03", "-3"),
        (1e20, "100000000000000000000"),
        ("9" * 5000, "9" * 5000),  # longer than int() accepts; still exact
    ],
)
def test_keys(value: object, expected: str) -> None:
    assert scenario_key(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "   ",
        "scenario_",
        "scenario- ",
        True,
        False,
        math.nan,
        math.inf,
        -math.inf,
        [11],
        {"id": 11},
        b"11",
    ],
)
def test_unusable_ids_give_none(value: object) -> None:
    assert scenario_key(value) is None


_ids = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.from_regex(r"\s*(?i:scenario[_-])?\s*[+-]?[0-9]{0,6}(\.[0-9]{0,4})?\s*", fullmatch=True),
    st.lists(st.integers(), max_size=2),
    st.binary(max_size=4),
)


@given(_ids)
def test_never_raises_and_is_idempotent(value: object) -> None:
    key = scenario_key(value)
    if key is not None:
        assert isinstance(key, str)
        assert key
        assert scenario_key(key) == key


@given(st.integers())
def test_ints_and_their_text_agree(number: int) -> None:
    assert scenario_key(number) == scenario_key(str(number)) == scenario_key(f"scenario_{number}")


# Within this range repr() never uses an exponent; exponent text is deliberately not read as a
# number, so outside it the two spellings need not agree.
@given(st.floats(min_value=-1e15, max_value=1e15).filter(lambda x: x == 0 or abs(x) >= 1e-4))
def test_floats_and_their_text_agree(number: float) -> None:
    assert scenario_key(number) == scenario_key(repr(number))
