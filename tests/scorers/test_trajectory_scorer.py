"""The `trajectory` scorer: expectations from the scenario, options from it or the scorer."""

from __future__ import annotations

from typing import Any

import pytest

from assay import Case, ScoreStatus, Step, ToolCall, Trajectory, create_scorer


def run(*steps: list[ToolCall]) -> Trajectory:
    return Trajectory(steps=[Step(i, tool_calls=list(calls)) for i, calls in enumerate(steps)])


REFUND = run(
    [ToolCall("lookup_order", {"id": 7})],
    [ToolCall("check_refund_policy", {})],
    [ToolCall("process_refund", {"id": 7, "amount": 20})],
)


def test_expected_trajectory_is_checked_strictly_by_default() -> None:
    case = Case(
        id="1", expected_trajectory=["lookup_order", "check_refund_policy", "process_refund"]
    )
    score = create_scorer("trajectory")(case, REFUND)
    assert (score.status, score.passed, score.value) == (ScoreStatus.SCORED, True, 1.0)
    assert score.rationale == "all 3 calls matched, in order (strict)"
    assert score.details["expectation"] == "expected_trajectory"
    assert len(score.details["matched"]) == 3


def test_arguments_given_in_the_expectation_must_match() -> None:
    case = Case(
        id="1",
        expected_trajectory=[
            {"name": "lookup_order", "args": {"id": 7}},
            "check_refund_policy",
            {"name": "process_refund", "args": {"id": 8}},
        ],
    )
    score = create_scorer("trajectory")(case, REFUND)
    assert not score.passed
    assert "process_refund: argument 'id': expected 8, got 7" in score.rationale
    assert score.details["missing"] == [{"step": 2, "call": "process_refund {'id': 8}"}]


def test_expected_tools_alone_need_each_tool_called_in_any_order() -> None:
    case = Case(id="1", expected_tools=["process_refund", "lookup_order"])
    score = create_scorer("trajectory")(case, REFUND)
    assert score.passed and score.details["expectation"] == "expected_tools"
    missing = create_scorer("trajectory")(Case(id="1", expected_tools=["escalate"]), REFUND)
    assert not missing.passed and missing.value == 0.0


def test_the_scenario_mode_wins_over_the_scorer_default() -> None:
    expected = ["lookup_order", "process_refund"]
    strict = create_scorer("trajectory")(Case(id="1", expected_trajectory=expected), REFUND)
    assert not strict.passed
    in_order = Case(id="1", expected_trajectory=expected, trajectory_mode="IN_ORDER")
    assert create_scorer("trajectory")(in_order, REFUND).passed
    assert create_scorer("trajectory", mode="subsequence")(
        Case(id="1", expected_trajectory=expected), REFUND
    ).passed


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"trajectory_mode": "loose"}, "unknown trajectory mode"),
        ({"trajectory_args": "partial"}, "unknown argument mode"),
        ({"trajectory_overrides": {"f": "nope"}}, "unknown argument mode 'nope'"),
        ({"trajectory_problem": "expected_tools must be a list"}, "unusable trajectory"),
    ],
)
def test_bad_scenario_options_are_errors_on_that_run(fields: dict[str, Any], why: str) -> None:
    case = Case(id="1", expected_trajectory=["a"], **fields)
    score = create_scorer("trajectory")(case, REFUND)
    assert score.status is ScoreStatus.ERROR
    assert why in score.rationale
    assert score.value is None and score.passed is None


def test_an_expectation_in_no_trajectory_shape_is_an_error() -> None:
    score = create_scorer("trajectory")(Case(id="1", expected_trajectory=[3, None]), REFUND)
    assert score.status is ScoreStatus.ERROR
    assert score.rationale.startswith("expected_trajectory is not a trajectory")


def test_a_scenario_without_expectations_is_not_scored() -> None:
    score = create_scorer("trajectory")(Case(id="1", expected_answer="4"), REFUND)
    assert score.status is ScoreStatus.UNSCORED
    assert score.details == {"reason": "not_applicable"}


def test_bad_scorer_options_fail_when_the_scorer_is_built() -> None:
    with pytest.raises(ValueError, match="unknown trajectory mode"):
        create_scorer("trajectory", mode="sideways")
