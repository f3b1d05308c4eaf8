"""Tests for `assay.formats.ids.scenario_key`: the join key between runs and ground truth."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import scenario_key
from assay.formats._common import InexactId, id_text


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
        (10**30, "1" + "0" * 30),  # ints keep every digit
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
        1e20,  # a float past 2**53: its digits may not be those written
        2.0**53,
        InexactId("1.2345678901234568e+29"),
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


def test_an_id_past_64_bits_keeps_its_digits_or_is_refused() -> None:
    # Regression: run_id 123456789012345678901234567890, read by orjson as a float, became
    # "1.2345678901234568e+29" and joined any other id that rounds to the same float.
    import orjson

    digits = b"123456789012345678901234567890"
    big, neighbour = orjson.loads(b"[" + digits + b", " + digits[:-1] + b"1]")
    assert isinstance(id_text(big), InexactId) and isinstance(id_text(neighbour), InexactId)
    assert scenario_key(id_text(big)) is None
    assert id_text(10**30) == "1" + "0" * 30 and id_text(2**63) == str(2**63)
    assert id_text(2.0**53 - 1) == "9007199254740991.0"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_id_is_exact_or_refused(number: float) -> None:
    text = id_text(number)
    assert text is not None
    if abs(number) >= 2**53:
        assert isinstance(text, InexactId) and scenario_key(text) is None
    else:
        assert not isinstance(text, InexactId) and float(text) == number
