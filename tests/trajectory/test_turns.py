"""Turn-by-turn checks (`assay.trajectory.turns`): ADK's per-invocation verdicts and mean."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.records import Step, ToolCall, Trajectory
from assay.trajectory import check_trajectory, check_turns, turns_of

MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


# --- ADK's verdicts --------------------------------------------------------------------------


def test_two_calls_swapped_inside_one_of_two_turns_score_half_under_exact() -> None:
    expected = [[call("get_weather", city="Paris"), call("get_time", city="Paris")], ["book"]]
    actual = [[call("get_time", city="Paris"), call("get_weather", city="Paris")], ["book"]]
    result = check_turns(expected, actual, match_type="EXACT")
    assert (result.passed, result.score) == (False, 0.5)
    assert [verdict.passed for verdict in result.turns] == [False, True]
    assert result.reason.startswith("turn 0: step 0: expected get_weather")
    assert result.reason.endswith(
        "1 of 2 turns matched (EXACT, turn by turn): score 0.5 < threshold 1"
    )
    # The flat check saw nothing wrong with this before: one step of parallel calls per turn.
    flat = check_trajectory(
        [[c for c in turn] for turn in expected], [[c for c in turn] for turn in actual]
    )
    assert flat.passed


def test_a_call_moved_to_an_earlier_turn_breaks_two_turns() -> None:
    expected = [["find_flight"], ["book_flight"], ["send_receipt"]]
    actual = [["find_flight", "book_flight"], [], ["send_receipt"]]
    result = check_turns(expected, actual, match_type="EXACT", args="ignore")
    assert round(result.score, 2) == 0.33 and not result.passed
    # The flat list of calls is the same, so a flat strict check passes it.
    flat_expected = [c for turn in expected for c in turn]
    flat_actual = [c for turn in actual for c in turn]
    assert check_trajectory(flat_expected, flat_actual, mode="EXACT").passed


@pytest.mark.parametrize(
    ("match_type", "expected", "actual", "passed"),
    [
        ("EXACT", ["a", "b"], ["a", "b"], True),
        ("EXACT", ["a", "b"], ["a", "b", "c"], False),
        ("EXACT", ["a", "b"], ["b", "a"], False),
        ("IN_ORDER", ["a", "b"], ["a", "x", "b"], True),
        ("IN_ORDER", ["a", "b"], ["b", "a"], False),
        ("ANY_ORDER", ["a", "b"], ["b", "x", "a"], True),
        ("ANY_ORDER", ["a", "b"], ["b", "x"], False),
        ("EXACT", [], [], True),
        ("EXACT", [], ["a"], False),
        ("IN_ORDER", [], ["a"], True),
        ("ANY_ORDER", [], ["a"], True),
        ("ANY_ORDER", ["a"], [], False),
    ],
)
def test_each_match_type_within_one_turn(
    match_type: str, expected: list[str], actual: list[str], passed: bool
) -> None:
    result = check_turns([expected], [actual], match_type=match_type, args="ignore")
    assert result.passed is passed
    assert result.score == (1.0 if passed else 0.0)


def test_arguments_compare_for_equality_by_default_as_adk() -> None:
    expected = [[call("search", q="adk")]]
    more = [[call("search", q="adk", limit=5)]]
    assert not check_turns(expected, more, match_type="EXACT").passed
    assert check_turns(expected, more, match_type="EXACT", args="superset").passed
    assert check_turns(
        expected, [[call("search", q="x")]], match_type="EXACT", args="ignore"
    ).passed


def test_the_threshold_decides_the_verdict() -> None:
    expected, actual = [["a"], ["b"]], [["a"], ["c"]]
    assert not check_turns(expected, actual, match_type="EXACT").passed
    lenient = check_turns(expected, actual, match_type="EXACT", threshold=0.5)
    assert (lenient.passed, lenient.score) == (True, 0.5)
    assert "score 0.5 >= threshold 0.5" in lenient.reason


def test_a_turn_only_one_side_has_is_a_turn_without_calls() -> None:
    missing = check_turns([["a"], ["b"]], [["a"]], match_type="EXACT")
    assert missing.score == 0.5
    assert "the run has 1 turns, the expectation 2" in missing.reason
    quiet_extra = check_turns([["a"]], [["a"], []], match_type="EXACT")
    assert quiet_extra.passed
    busy_extra = check_turns([["a"]], [["a"], ["b"]], match_type="EXACT")
    assert busy_extra.score == 0.5
    assert check_turns([["a"]], [["a"], ["b"]], match_type="IN_ORDER").passed


def test_details_list_every_turn() -> None:
    details = check_turns([["a"], ["b"]], [["a"], ["c"]], match_type="EXACT").to_details()
    assert details["mode"] == "EXACT" and details["by_turn"] is True
    assert details["turns_matched"] == 1 and details["threshold"] == 1.0
    first, second = details["turns"]
    assert first == {
        "turn": 0,
        "passed": True,
        "score": 1.0,
        "expected_calls": 1,
        "actual_calls": 1,
    }
    assert second["passed"] is False and second["missing"] == [{"step": 0, "call": "b"}]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"match_type": "strict"}, "turn-by-turn checks take EXACT, IN_ORDER or ANY_ORDER"),
        ({"match_type": "EXACT", "threshold": 1.5}, "threshold must be between 0 and 1"),
        ({"match_type": "EXACT", "args": "loose"}, "unknown argument mode"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_turns([["a"]], [["a"]], **options)


def test_match_types_are_read_in_adk_spellings() -> None:
    assert check_turns([["a", "b"]], [["a", "x", "b"]], match_type="in-order").passed
    assert check_turns([["a", "b"]], [["b", "a"]], match_type="Any Order").passed


# --- turns of a run ---------------------------------------------------------------------------


def test_turns_of_a_run_group_steps_by_turn() -> None:
    run = Trajectory(
        steps=[
            Step(0, tool_calls=[ToolCall("a")], turn=0),
            Step(1, tool_calls=[ToolCall("b")], turn=0),
            Step(2, text="no calls", turn=1),
            Step(3, tool_calls=[ToolCall("c")], turn=3),
        ]
    )
    turns = turns_of(run)
    assert turns is not None
    assert [[c.name for c in turn] for turn in turns] == [["a", "b"], [], [], ["c"]]


def test_a_run_without_turns_on_every_step_has_none() -> None:
    assert turns_of(Trajectory()) is None
    mixed = Trajectory(steps=[Step(0, turn=0), Step(1)])
    assert turns_of(mixed) is None
    assert turns_of(Trajectory(steps=[Step(0, turn=-1)])) is None


# --- properties -------------------------------------------------------------------------------

names = st.sampled_from(["a", "b", "c", "d"])
turn_calls = st.lists(st.builds(call, names, x=st.integers(min_value=0, max_value=2)), max_size=4)
conversations = st.lists(turn_calls, max_size=5)


@given(conversations, st.sampled_from(MATCH_TYPES))
def test_identical_turns_score_one(turns: list[list[dict[str, Any]]], match_type: str) -> None:
    result = check_turns(turns, turns, match_type=match_type)
    assert (result.passed, result.score) == (True, 1.0)


@given(
    conversations, conversations, st.sampled_from(MATCH_TYPES), st.sampled_from(["exact", "ignore"])
)
def test_scores_are_means_of_per_turn_verdicts_in_zero_one(
    expected: list[list[dict[str, Any]]],
    actual: list[list[dict[str, Any]]],
    match_type: str,
    args: str,
) -> None:
    result = check_turns(expected, actual, match_type=match_type, args=args)
    assert len(result.turns) == max(len(expected), len(actual))
    for verdict in result.turns:
        assert verdict.score in (0.0, 1.0)
        assert 0.0 <= verdict.check.score <= 1.0
    assert 0.0 <= result.score <= 1.0
    if result.turns:
        assert result.score == sum(v.score for v in result.turns) / len(result.turns)
    assert result.passed is (result.score >= 1.0)


@given(conversations, st.data())
def test_swapping_two_different_calls_in_a_turn_fails_exact_passes_any_order(
    turns: list[list[dict[str, Any]]], data: st.DataObject
) -> None:
    candidates = [
        (t, i, j)
        for t, turn in enumerate(turns)
        for i in range(len(turn))
        for j in range(i + 1, len(turn))
        if turn[i] != turn[j]
    ]
    if not candidates:
        return
    t, i, j = data.draw(st.sampled_from(candidates))
    swapped = [list(turn) for turn in turns]
    swapped[t][i], swapped[t][j] = swapped[t][j], swapped[t][i]
    exact = check_turns(turns, swapped, match_type="EXACT")
    assert not exact.passed and not exact.turns[t].passed
    assert exact.score == (len(turns) - 1) / len(turns)
    assert check_turns(turns, swapped, match_type="ANY_ORDER").passed


@given(conversations, st.sampled_from(MATCH_TYPES))
def test_a_turn_passes_exactly_as_the_flat_check_of_that_turn(
    turns: list[list[dict[str, Any]]], match_type: str
) -> None:
    # Turn by turn is the flat check applied to each turn on its own.
    reversed_turns = [list(reversed(turn)) for turn in turns]
    result = check_turns(turns, reversed_turns, match_type=match_type)
    for verdict, expected, actual in zip(result.turns, turns, reversed_turns, strict=True):
        assert (
            verdict.passed
            is check_trajectory(expected, actual, mode=match_type, args="exact").passed
        )
