"""`combine_scores(parts, weights)`: per-criterion weights set the combined value, never the
verdict; without weights nothing changes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.results import PARTIALLY_SCORED, Score, ScoreStatus, combine_scores
from assay.scorers import _runs

A = Score.scored("tool_name_match", 1.0, passed=True)
B = Score.scored("trajectory", 0.5, passed=False, rationale="order differs")
C = Score.scored("response_match", 0.0, passed=True)


def test_the_value_is_the_weighted_mean_and_the_weights_are_recorded() -> None:
    combined = combine_scores([A, B, C], weights={"tool_name_match": 2, "trajectory": 1})
    # response_match is not named: it weighs 1.0.
    assert combined.value == pytest.approx((2 * 1.0 + 1 * 0.5 + 1 * 0.0) / 4)
    assert combined.passed is False  # trajectory failed, whatever the weights
    assert combined.details["weights"] == {
        "tool_name_match": 2.0, "trajectory": 1.0, "response_match": 1.0
    }  # fmt: skip


def test_a_part_of_weight_zero_adds_nothing_but_still_fails_the_verdict() -> None:
    combined = combine_scores([A, B], weights={"trajectory": 0})
    assert combined.value == 1.0 and combined.passed is False
    assert combined.rationale == "trajectory: order differs"


def test_every_scored_part_weighing_zero_keeps_the_verdict_with_the_plain_mean() -> None:
    combined = combine_scores([A, C], weights={"tool_name_match": 0, "response_match": 0.0})
    assert (combined.status, combined.value, combined.passed) == (ScoreStatus.SCORED, 0.5, True)
    assert "plain mean" in combined.details["weights_note"]


def test_without_weights_nothing_changes() -> None:
    parts = [A, B, C]
    plain = combine_scores(parts)
    assert plain.value == pytest.approx(0.5) and "weights" not in plain.details
    assert combine_scores(parts, weights=None).details == plain.details
    assert combine_scores(parts, weights={}).value == plain.value  # all weigh 1.0


def test_weights_apply_only_to_a_scored_verdict() -> None:
    not_applicable = _runs.not_applicable("node_order", "case expects no node order")
    combined = combine_scores([A, not_applicable], weights={"node_order": 5})
    assert combined.value == 1.0 and combined.details["weights"]["node_order"] == 5.0
    judge_down = Score.unscored("llm_judge", "judge call failed", {"reason": "timeout"})
    partial = combine_scores([A, judge_down], weights={"llm_judge": 3})
    assert partial.details["reason"] == PARTIALLY_SCORED and partial.value is None
    assert partial.details["weights"] == {"tool_name_match": 1.0, "llm_judge": 3.0}


@pytest.mark.parametrize("weight", [-1, -0.001, math.nan, math.inf, True, "2"])
def test_a_negative_or_non_finite_weight_is_refused(weight: object) -> None:
    with pytest.raises(ValueError, match="weight of 'trajectory'"):
        combine_scores([A, B], weights={"trajectory": weight})  # type: ignore[dict-item]


_NAMES = ["a", "b", "c", "d"]
parts = st.lists(
    st.builds(
        lambda name, value, passed: Score.scored(name, value, passed=passed),
        st.sampled_from(_NAMES),
        st.floats(0.0, 1.0),
        st.booleans(),
    ),
    min_size=1,
    max_size=6,
)
weight_maps = st.dictionaries(st.sampled_from(_NAMES), st.floats(0.0, 100.0), max_size=4)


@given(parts, weight_maps)
def test_weights_move_the_value_between_the_parts_and_never_the_verdict(
    scores: list[Score], weights: dict[str, float]
) -> None:
    weighted = combine_scores(scores, weights=weights)
    plain = combine_scores(scores)
    assert weighted.status is plain.status and weighted.passed is plain.passed
    values = [score.value for score in scores if score.value is not None]
    assert weighted.value is not None
    assert min(values) - 1e-9 <= weighted.value <= max(values) + 1e-9
    if all(weights.get(score.scorer, 1.0) == 1.0 for score in scores):
        assert weighted.value == pytest.approx(plain.value)


def test_tiny_weights_do_not_underflow_to_nothing() -> None:
    combined = combine_scores([B], weights={"trajectory": 5e-324})
    assert combined.value == 0.5
    both = combine_scores([A, B], weights={"tool_name_match": 5e-324, "trajectory": 5e-324})
    assert both.value == pytest.approx(0.75)
