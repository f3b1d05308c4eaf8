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


# --- turn by turn ----------------------------------------------------------------------------


def turned(*turns: list[ToolCall]) -> Trajectory:
    """A run recorded turn by turn, one step per call (a step without calls for a quiet turn)."""
    steps: list[Step] = []
    for turn, calls in enumerate(turns):
        for call in calls or [None]:
            steps.append(Step(len(steps), tool_calls=[call] if call else [], turn=turn))
    return Trajectory(steps=steps)


SWAPPED = turned([ToolCall("get_time"), ToolCall("get_weather")], [ToolCall("book")])
ADK_CASE = Case(
    id="1",
    expected_trajectory=["get_weather", "get_time", "book"],
    expected_turns=[["get_weather", "get_time"], ["book"]],
    trajectory_mode="EXACT",
    trajectory_args="exact",
    trajectory_threshold=1.0,
)


def test_adk_match_types_check_turn_by_turn_when_both_sides_have_turns() -> None:
    score = create_scorer("trajectory")(ADK_CASE, SWAPPED)
    assert (score.status, score.passed, score.value) == (ScoreStatus.SCORED, False, 0.5)
    assert score.details["expectation"] == "expected_turns"
    assert score.details["by_turn"] is True
    assert [turn["passed"] for turn in score.details["turns"]] == [False, True]
    assert score.rationale.startswith("turn 0: ")
    assert "1 of 2 turns matched (EXACT, turn by turn)" in score.rationale


def test_the_case_threshold_decides_a_turn_by_turn_verdict() -> None:
    case = Case(**{**_fields(ADK_CASE), "trajectory_threshold": 0.5})
    score = create_scorer("trajectory")(case, SWAPPED)
    assert (score.passed, score.value) == (True, 0.5)


def test_assay_modes_stay_flat_even_with_turns() -> None:
    case = Case(**{**_fields(ADK_CASE), "trajectory_mode": "unordered"})
    score = create_scorer("trajectory")(case, SWAPPED)
    assert score.passed and "by_turn" not in score.details
    strict = create_scorer("trajectory")(
        Case(**{**_fields(ADK_CASE), "trajectory_mode": "strict"}), SWAPPED
    )
    assert not strict.passed and strict.details["mode"] == "strict"


def test_a_run_without_turns_is_checked_flat_with_the_match_type_as_alias() -> None:
    flat_run = run([ToolCall("get_weather")], [ToolCall("get_time")], [ToolCall("book")])
    score = create_scorer("trajectory")(ADK_CASE, flat_run)
    assert score.passed and score.details["mode"] == "strict"
    assert score.details["by_turn"] is False
    assert score.details["flat_because"] == "the run records no turns"
    # Expected turns alone: all their calls in order.
    only_turns = Case(**{**_fields(ADK_CASE), "expected_trajectory": None})
    score = create_scorer("trajectory")(only_turns, flat_run)
    assert score.passed and score.details["expectation"] == "expected_turns"


def test_a_flat_check_passes_at_the_case_threshold() -> None:
    case = Case(
        id="1",
        expected_trajectory=["lookup_order", "check_refund_policy", "refund", "notify"],
        trajectory_mode="superset",
        trajectory_threshold=0.5,
    )
    score = create_scorer("trajectory")(case, REFUND)
    assert (score.passed, score.value) == (True, 0.5)
    assert score.rationale.endswith("(score 0.5 >= threshold 0.5)")
    assert score.details["threshold"] == 0.5


def test_bad_turn_options_are_errors_on_that_run() -> None:
    case = Case(**{**_fields(ADK_CASE), "trajectory_args": "loose"})
    score = create_scorer("trajectory")(case, SWAPPED)
    assert score.status is ScoreStatus.ERROR and "unknown argument mode" in score.rationale
    bad_turns = Case(**{**_fields(ADK_CASE), "expected_turns": [[3]]})
    score = create_scorer("trajectory")(bad_turns, SWAPPED)
    assert score.status is ScoreStatus.ERROR
    assert score.rationale.startswith("expected_turns is not a list of turns")


def _fields(case: Case) -> dict[str, Any]:
    return {name: getattr(case, name) for name in Case.__dataclass_fields__}


# --- "this case must call no tools": an explicitly empty expectation under EXACT / strict ----

QUIET = Trajectory(answer="Hello!", steps=[Step(0, text="Hello!")])
EMPTY = [{"expected_trajectory": []}, {"expected_tools": []}]


@pytest.mark.parametrize("expectation", EMPTY)
@pytest.mark.parametrize("where", ["case", "scorer"])
@pytest.mark.parametrize("mode", ["strict", "EXACT", "exact", " Exact "])
def test_an_empty_expectation_under_exact_means_no_tool_calls(
    expectation: dict[str, Any], where: str, mode: str
) -> None:
    if where == "case":
        case = Case(id="1", trajectory_mode=mode, **expectation)
        scorer = create_scorer("trajectory")
    else:
        case, scorer = Case(id="1", **expectation), create_scorer("trajectory", mode=mode)
    called = scorer(case, REFUND)
    assert (called.status, called.passed, called.value) == (ScoreStatus.SCORED, False, 0.0)
    assert called.rationale.startswith("expected no tool calls (strict), the run made 3: ")
    assert called.details["expected_calls"] == 0 and called.details["actual_calls"] == 3
    quiet = scorer(case, QUIET)
    assert (quiet.status, quiet.passed, quiet.value) == (ScoreStatus.SCORED, True, 1.0)
    assert quiet.rationale == "no tool calls, as the empty expectation requires (strict)"


@pytest.mark.parametrize("expectation", EMPTY)
@pytest.mark.parametrize(
    "mode", ["IN_ORDER", "any order", "subsequence", "superset", "unordered", "subset"]
)
def test_an_empty_expectation_under_another_mode_checks_nothing(
    expectation: dict[str, Any], mode: str
) -> None:
    case = Case(id="1", trajectory_mode=mode, **expectation)
    for trajectory in (REFUND, QUIET):
        score = create_scorer("trajectory")(case, trajectory)
        assert score.status is ScoreStatus.UNSCORED and score.does_not_apply()
        assert f"{next(iter(expectation))} is empty" in score.rationale


def test_no_expectation_at_all_still_checks_nothing_under_exact() -> None:
    score = create_scorer("trajectory", mode="EXACT")(Case(id="1"), REFUND)
    assert score.status is ScoreStatus.UNSCORED and score.does_not_apply()


def test_an_empty_expectation_still_lets_the_expected_nodes_be_checked() -> None:
    visited = Trajectory(steps=[Step(0, node="GREET", text="Hi")])
    case = Case(id="1", expected_trajectory=[], expected_nodes=["GREET"])
    assert create_scorer("trajectory", mode="IN_ORDER")(case, visited).passed is True
    assert create_scorer("trajectory", mode="EXACT")(case, visited).passed is True
    both = Trajectory(steps=[Step(0, node="GREET", tool_calls=[ToolCall("lookup_order")])])
    assert create_scorer("trajectory", mode="EXACT")(case, both).passed is False
