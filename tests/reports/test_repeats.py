"""pass@k, pass^k, the 95% interval and the flaky cases of repeated runs, against figures
worked out by hand, and their properties."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.reports.repeats import (
    RepeatRecord,
    case_repeats,
    mean_ci95,
    pass_at_k,
    pass_hat_k,
    summarize_repeats,
    t_quantile_975,
)


def test_pass_at_k_and_pass_hat_k_by_hand() -> None:
    # n=5, c=2: pass@1 = 2/5; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10; pass@3 = 1 - 1/10;
    # pass@4 = 1 - 0/5. pass^2 = C(2,2)/C(5,2) = 1/10; pass^3 = 0.
    assert [pass_at_k(5, 2, k) for k in range(1, 6)] == [0.4, 0.7, 0.9, 1.0, 1.0]
    assert [pass_hat_k(5, 2, k) for k in range(1, 6)] == [0.4, 0.1, 0.0, 0.0, 0.0]
    # n=4, c=3: pass@2 = 1 - 0 = 1; pass^2 = C(3,2)/C(4,2) = 3/6; pass^3 = 1/4.
    assert pass_at_k(4, 3, 2) == 1.0
    assert (pass_hat_k(4, 3, 2), pass_hat_k(4, 3, 3), pass_hat_k(4, 3, 4)) == (0.5, 0.25, 0.0)
    # n=10, c=1: pass@3 = 1 - C(9,3)/C(10,3) = 1 - 84/120.
    assert pass_at_k(10, 1, 3) == pytest.approx(0.3)


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)])
def test_counts_out_of_range_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="need n >= 1"):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError, match="need n >= 1"):
        pass_hat_k(n, c, k)


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_k_rises_and_pass_hat_k_falls_with_k(nc: tuple[int, int]) -> None:
    n, c = nc
    at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    hat = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    assert at[0] == hat[0] == pytest.approx(c / n)
    assert all(0.0 <= value <= 1.0 for value in at + hat)
    assert all(a <= b for a, b in itertools.pairwise(at))
    assert all(a >= b for a, b in itertools.pairwise(hat))
    assert all(h <= a for h, a in zip(hat, at, strict=True))  # all passed => one passed
    assert at[-1] == (1.0 if c else 0.0)
    assert hat[-1] == (1.0 if c == n else 0.0)


def test_t_quantiles_match_the_tables() -> None:
    # Student's t, 0.975 quantile (standard tables, to 6 places).
    table = {1: 12.706205, 2: 4.302653, 3: 3.182446, 5: 2.570582, 10: 2.228139,
             30: 2.042272, 120: 1.979930, 1000: 1.962339, 10**6: 1.959966}  # fmt: skip
    for df, expected in table.items():
        assert t_quantile_975(df) == pytest.approx(expected, abs=2e-6), df
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile_975(0)


def test_mean_and_its_interval_by_hand() -> None:
    # 0.5, 0.7, 0.9: mean 0.7, sd 0.2, se 0.2/sqrt(3); t(2) = 4.302653.
    mean, ci = mean_ci95([0.9, 0.5, 0.7])
    half = 4.302653 * 0.2 / math.sqrt(3)
    assert mean == pytest.approx(0.7)
    assert ci is not None
    assert ci[0] == pytest.approx(max(0.0, 0.7 - half), abs=1e-6)
    assert ci[1] == 1.0  # 0.7 + 0.497 is cut to what a score can be
    assert mean_ci95([0.25, 0.25]) == (0.25, [0.25, 0.25])
    assert mean_ci95([0.3]) == (0.3, None)
    assert mean_ci95([]) == (None, None)


def _records(
    case: str, verdicts: str, values: list[float | None] | None = None
) -> list[RepeatRecord]:
    """One record per character: P passed, F failed, E not scored."""
    out = []
    for k, verdict in enumerate(verdicts, start=1):
        passed = {"P": True, "F": False, "E": None}[verdict]
        value = values[k - 1] if values else (None if passed is None else float(passed))
        out.append(RepeatRecord(case, k, passed, value))
    return out


def test_one_case_by_hand() -> None:
    case = case_repeats("c1", _records("c1", "PFPFE", [1.0, 0.2, 0.8, 0.0, None]))
    assert case == {
        "scenario_id": "c1",
        "n": 5,
        "passed": 2,
        "not_scored": 1,  # the error did not pass, and is counted apart
        "pass_at_k": {"1": 0.4, "2": 0.7, "3": 0.9, "4": 1.0, "5": 1.0},
        "pass_hat_k": {"1": 0.4, "2": 0.1, "3": 0.0, "4": 0.0, "5": 0.0},
        "mean_score": 0.5,  # of the four values; the error's is left out
        "ci95": case["ci95"],
        "flaky": True,
    }
    # sd of 1, .2, .8, 0 = 0.476095; t(3) = 3.182446.
    half = 3.182446 * 0.476095 / 2
    assert case["ci95"] == pytest.approx([0.0, min(1.0, 0.5 + half)], abs=1e-5)


def _r(value: float) -> float:
    return round(value, 6)


def test_section_over_cases_by_hand() -> None:
    records = _records("a", "PPP") + _records("b", "PFF") + _records("c", "EEF")
    section = summarize_repeats(records)
    assert section is not None
    assert (section["n"], section["n_max"], section["runs"], section["not_scored"]) == (3, 3, 9, 2)
    # Cases: a c=3, b c=1, c c=0. pass@1 = (1 + 1/3 + 0)/3; pass@2 = (1 + 2/3 + 0)/3;
    # pass^2 = (1 + 0 + 0)/3.
    assert section["pass_at_k"] == {"1": _r(4 / 9), "2": _r(5 / 9), "3": _r(2 / 3)}
    assert section["pass_hat_k"] == {"1": _r(4 / 9), "2": _r(1 / 3), "3": _r(1 / 3)}
    assert section["flaky"] == ["b"]  # c never passed: not flaky; a always did
    assert [case["scenario_id"] for case in section["cases"]] == ["a", "b", "c"]
    # Case means 1, 1/3, 0 (c's one value): mean 4/9 with a t(2) interval.
    assert section["mean_score"] == pytest.approx(4 / 9, abs=1e-6)
    assert section["ci95"] is not None
    assert section["duplicates"] == []


def test_cases_with_different_counts_are_averaged_up_to_the_smallest() -> None:
    # An interrupted run: b ran twice, a four times.
    section = summarize_repeats(_records("a", "PFPF") + _records("b", "PP"))
    assert section is not None
    assert (section["n"], section["n_max"]) == (2, 4)
    assert list(section["pass_at_k"]) == ["1", "2"]
    # a: pass@2 = 1 - C(2,2)/C(4,2) = 5/6; b: 1.
    assert section["pass_at_k"]["2"] == round((5 / 6 + 1) / 2, 6)
    assert list(section["cases"][0]["pass_at_k"]) == ["1", "2", "3", "4"]


def test_no_records_no_section() -> None:
    assert summarize_repeats([]) is None


def test_a_repetition_recorded_twice_is_counted_once_whatever_the_order() -> None:
    records = [*_records("a", "PF"), RepeatRecord("a", 2, True, 1.0)]
    first = summarize_repeats(records)
    second = summarize_repeats(list(reversed(records)))
    assert first == second
    assert first is not None
    assert first["duplicates"] == [["a", 2]]
    assert first["cases"][0]["n"] == 2


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "d"]),
            st.integers(1, 6),
            st.sampled_from([True, False, None]),
            st.floats(0.0, 1.0),
        ),
        max_size=30,
    ),
    st.randoms(use_true_random=False),
)
def test_the_section_does_not_depend_on_the_order_of_the_records(
    raw: list[tuple[str, int, bool | None, float]], shuffler: random.Random
) -> None:
    records = [
        RepeatRecord(case, k, passed, None if passed is None else value)
        for case, k, passed, value in raw
    ]
    shuffled = list(records)
    shuffler.shuffle(shuffled)
    section = summarize_repeats(records)
    assert section == summarize_repeats(shuffled)
    if section is None:
        return
    for figure in ("pass_at_k", "pass_hat_k"):
        assert all(0.0 <= value <= 1.0 for value in section[figure].values())
    assert section["pass_at_k"]["1"] == section["pass_hat_k"]["1"]
    if section["ci95"] is not None:
        low, high = section["ci95"]
        assert 0.0 <= low <= section["mean_score"] <= high <= 1.0
