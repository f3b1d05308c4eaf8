"""Input limits: sizes as users write them, as reasons show them, and the limits in force."""

from __future__ import annotations

import asyncio
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from assay.limits import (
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    InputLimits,
    format_size,
    input_limits,
    is_out_of_memory,
    parse_size,
    using_input_limits,
)

_FACTORS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}


def test_the_defaults_are_documented_figures() -> None:
    assert (MAX_FILE_BYTES, MAX_LINE_BYTES) == (256 * 2**20, 64 * 2**20)
    assert input_limits() == InputLimits(MAX_FILE_BYTES, MAX_LINE_BYTES)
    assert (format_size(MAX_FILE_BYTES), format_size(MAX_LINE_BYTES)) == ("256 MB", "64 MB")


@given(
    st.integers(min_value=1, max_value=10**6),
    st.sampled_from(sorted(_FACTORS)),
    st.sampled_from(["", "b", "B", "iB", "ib"]),
    st.booleans(),
)
def test_a_size_is_a_number_of_units_of_1024(
    number: int, unit: str, suffix: str, lower: bool
) -> None:
    written = f"{number}{unit.lower() if lower else unit}{suffix if unit else ''}"
    assert parse_size(written) == number * _FACTORS[unit]
    assert parse_size(f" {number} {unit} ") == number * _FACTORS[unit]


@pytest.mark.parametrize("text", ["", "M", "-1M", "1.5G", "0", "0K", "12T", "1 2", "2GBx", "ten"])
def test_what_is_not_a_positive_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


@given(st.integers(min_value=1, max_value=2**40))
@example(14_592)
def test_a_shown_size_reads_back_to_within_a_tenth_of_its_unit(size: int) -> None:
    shown = format_size(size)
    number, unit = shown.split(" ")
    factor = {"bytes": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30}[unit]
    # Exact arithmetic: one decimal is off by at most half a tenth, which a float product can
    # overshoot by its rounding (14.2 KB is 51.2 bytes from 14,592, and 14.2 * 1024 is not).
    assert abs(Fraction(number.replace(",", "")) * factor - size) <= Fraction(factor, 20)
    if size % factor == 0:
        assert number.replace(",", "") == str(size // factor)  # whole units are shown whole
    else:  # never as if it were whole units: "2.0 KB; the limit is 2 KB" would say nothing
        assert not number.endswith(".0")


def test_limits_hold_inside_the_block_only() -> None:
    with using_input_limits(InputLimits(max_file_bytes=10, max_line_bytes=5)) as limits:
        assert input_limits() is limits
        with using_input_limits(InputLimits(max_file_bytes=20)):
            assert input_limits().max_file_bytes == 20
        assert input_limits() is limits
    assert input_limits() == InputLimits()


def test_limits_are_per_task() -> None:
    # Two evaluations at once in one process each read with their own limits.
    seen: dict[str, int] = {}

    async def one(name: str, size: int) -> None:
        with using_input_limits(InputLimits(max_file_bytes=size)):
            await asyncio.sleep(0)
            seen[name] = input_limits().max_file_bytes

    async def both() -> None:
        await asyncio.gather(one("a", 100), one("b", 200))

    asyncio.run(both())
    assert seen == {"a": 100, "b": 200}


def test_out_of_memory_is_a_memory_error_or_what_orjson_raises_for_one() -> None:
    try:
        try:
            raise MemoryError
        except MemoryError as cause:
            raise SystemError("<built-in function loads> returned a result") from cause
    except SystemError as error:
        from_orjson = error
    assert is_out_of_memory(MemoryError())
    assert is_out_of_memory(from_orjson)
    assert not is_out_of_memory(SystemError("something else"))
    assert not is_out_of_memory(ValueError())
