"""The evaluation API's criteria expressed as registered scorers and options:
`tool_name_match(threshold)`, `trajectory(threshold, match_type, check_args)` and
`node_order()` as the live criteria build them."""

from __future__ import annotations

from typing import Any

import pytest

from assay.records import Case, Step, ToolCall, Trajectory
from assay.results import ScoreStatus
from assay.scorers import create_scorer, scorer_spec
from assay.trajectory import MatchType

RUN = Trajectory(
    steps=[
        Step(0, node="MAIN", tool_calls=[ToolCall("get_weather", {"location": "Paris"})]),
        Step(1, node="MAIN", tool_calls=[ToolCall("get_time", {"tz": "CET"})]),
        Step(2, node="ANSWER", text="Sunny, 14:00."),
    ],
    answer="Sunny, 14:00.",
)


def test_tool_name_match_threshold_is_the_fraction_of_expected_tools_called() -> None:
    case = Case(id="c", expected_tools=["get_weather", "get_time", "book", "search"])
    half = create_scorer("tool_name_match", threshold=0.5)(case, RUN)
    assert (half.value, half.passed) == (0.5, True)
    all_of_them = create_scorer("tool_name_match", threshold=1.0)(case, RUN)
    assert (all_of_them.value, all_of_them.passed) == (0.5, False)
    none = create_scorer("tool_name_match")(case, Trajectory(answer="no tools"))
    assert (none.value, none.passed) == (0.0, False)  # the seed's "Agent didn't call any tools"


@pytest.mark.parametrize(
    ("mode", "passed"),
    [
        (MatchType.EXACT, False),
        ("EXACT", False),
        ("exact", False),
        (MatchType.IN_ORDER, True),
        ("IN_ORDER", True),
        ("in_order", True),
        (MatchType.ANY_ORDER, True),
        ("ANY_ORDER", True),
        ("Any_Order", True),
    ],
)
def test_trajectory_takes_the_match_types_as_its_mode(mode: str, passed: bool) -> None:
    # get_weather then get_time, with calls the expectation does not name in between.
    case = Case(id="c", expected_trajectory=["get_weather", "get_time"])
    extra = Trajectory(steps=[*RUN.steps[:1], Step(1, tool_calls=[ToolCall("log")]),
                              *RUN.steps[1:]])  # fmt: skip
    score = create_scorer("trajectory", mode=mode)(case, extra)
    assert score.status is ScoreStatus.SCORED and score.passed is passed


def test_check_args_false_is_the_ignore_argument_mode() -> None:
    case = Case(
        id="c",
        expected_trajectory=[
            ToolCall("get_weather", {"location": "Rome"}),
            ToolCall("get_time", {"tz": "UTC"}),
        ],
    )
    checked = create_scorer("trajectory", mode="IN_ORDER", args="superset")(case, RUN)
    assert checked.passed is False
    names_only = create_scorer("trajectory", mode="IN_ORDER", args="ignore")(case, RUN)
    assert (names_only.value, names_only.passed) == (1.0, True)


def test_trajectory_threshold_option_passes_partial_matches() -> None:
    case = Case(id="c", expected_trajectory=["get_weather", "book", "get_time", "notify"])
    strict = create_scorer("trajectory", mode="IN_ORDER")(case, RUN)
    assert (strict.value, strict.passed) == (0.5, False)
    lenient = create_scorer("trajectory", mode="IN_ORDER", threshold=0.5)(case, RUN)
    assert (lenient.value, lenient.passed) == (0.5, True)
    assert lenient.details["threshold"] == 0.5
    assert lenient.rationale.endswith("(score 0.5 >= threshold 0.5)")
    # A scenario's own threshold wins over the option, as its mode and args do.
    own = Case(id="c", expected_trajectory=case.expected_trajectory, trajectory_threshold=1.0)
    assert create_scorer("trajectory", mode="IN_ORDER", threshold=0.5)(own, RUN).passed is False


def test_trajectory_threshold_option_decides_turn_by_turn_verdicts_too() -> None:
    case = Case(id="c", expected_turns=[["get_weather"], ["book"]], trajectory_mode="EXACT")
    turned = Trajectory(steps=[Step(0, tool_calls=[ToolCall("get_weather")], turn=0),
                               Step(1, tool_calls=[ToolCall("get_time")], turn=1)])  # fmt: skip
    assert create_scorer("trajectory")(case, turned).passed is False
    score = create_scorer("trajectory", threshold=0.5)(case, turned)
    assert (score.value, score.passed) == (0.5, True)


@pytest.mark.parametrize("threshold", [-0.5, 1.5, "high"])
def test_a_bad_trajectory_threshold_is_refused_when_built(threshold: Any) -> None:
    with pytest.raises(ValueError, match="threshold"):
        create_scorer("trajectory", threshold=threshold)


def test_the_trajectory_spec_records_the_threshold() -> None:
    spec = scorer_spec("trajectory", {"mode": "IN_ORDER", "args": "ignore", "threshold": 0.8})
    assert spec["options"] == {
        "mode": "IN_ORDER", "args": "ignore", "overrides": None, "threshold": 0.8
    }  # fmt: skip


def test_node_order_with_its_defaults_checks_the_nodes_in_order() -> None:
    case = Case(id="c", expected_nodes=["MAIN", "ANSWER"])
    assert create_scorer("node_order")(case, RUN).passed is True


def test_match_types_count_a_turns_parallel_calls_one_by_one() -> None:
    from assay.records import Case, Step, ToolCall, Trajectory
    from assay.scorers.registry import create_scorer

    run = Trajectory(answer="x", steps=[
        Step(0, tool_calls=[ToolCall("search", {"q": "x"}), ToolCall("fetch", {"url": "u"})]),
        Step(1, text="done"),
    ])
    case = Case(id="p", expected_trajectory=["search", "fetch"])
    for mode in ("EXACT", "IN_ORDER", "ANY_ORDER"):
        assert create_scorer("trajectory", mode=mode)(case, run).passed, mode
    assert not create_scorer("trajectory", mode="IN_ORDER")(
        Case(id="p", expected_trajectory=["fetch", "search"]), run
    ).passed  # the order the model gave them still counts
    # assay's own modes keep the step: the two calls are one step of parallel calls.
    assert not create_scorer("trajectory", mode="strict")(case, run).passed
    grouped = Case(id="p", expected_trajectory=[["fetch", "search"]])
    assert create_scorer("trajectory", mode="strict")(grouped, run).passed
