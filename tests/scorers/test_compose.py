"""composite: the catalog's run_all_evaluators example on assay records, and each mode's
pass, fail, error and not-applicable cases."""

from __future__ import annotations

from typing import Any

import pytest

from assay.formats.scenarios import case_from_object
from assay.records import Case, Step, ToolCall, Trajectory
from assay.results import Score, ScoreStatus
from assay.scorers import UnknownScorerError, create_scorer, register_scorer
from assay.scorers.registry import Scorer


def case(**fields: Any) -> Case:
    """The case of a scenario with these fields, read as a scenario file is."""
    found, _ = case_from_object({"id": "s", **fields}, "s.json")
    assert found is not None
    return found


def run_of(answer: str, *tools: str) -> Trajectory:
    return Trajectory(
        answer=answer, steps=[Step(index=i, tool_calls=[ToolCall(t)]) for i, t in enumerate(tools)]
    )


def assert_scored(result: Score, passed: bool, value: float | None = None) -> None:
    assert result.status is ScoreStatus.SCORED, result.rationale
    assert result.passed is passed, result.rationale
    if value is not None:
        assert result.value == pytest.approx(value)


# The catalog's run_all_evaluators: always trajectory, response and turns; completion and
# routing only when the scenario asks. Here "only when asked" is the parts' not-applicable.
ALL_EVALUATORS = [
    "tool_name_match",
    "response_contains",
    "max_turns",
    "signal_task_complete",
    "routing",
]
SCENARIO = case(
    expected_tools=["lookup_order", "process_refund"],
    success_criteria=[{"max_turns": 4}, {"response_contains": ["refund"]}],
    should_signal_complete=True,
)


def test_composite_catalog_example_all_must_pass() -> None:
    scorer = create_scorer("composite", scorers=ALL_EVALUATORS)
    good = run_of("Refund done", "lookup_order", "process_refund", "signal_task_complete")
    result = scorer(SCENARIO, good)
    assert_scored(result, True, 1.0)
    parts = result.details["parts"]
    assert parts["routing"]["status"] == "unscored"  # no expected_subagent: not counted as 0
    assert {k: v["passed"] for k, v in parts.items()} == {
        "tool_name_match": True,
        "response_contains": True,
        "max_turns": True,
        "signal_task_complete": True,
        "routing": None,
    }
    assert "not scored: routing" in result.rationale

    bad = scorer(SCENARIO, run_of("Done", "lookup_order", "process_refund"))
    assert_scored(bad, False, 0.0)
    assert bad.rationale.startswith("failed: response_contains")
    assert "signal_task_complete" in bad.rationale


def test_composite_any_mode() -> None:
    scorer = create_scorer(
        "composite", scorers=["response_contains", "tool_name_match"], mode="any"
    )
    result = scorer(SCENARIO, run_of("nothing useful", "lookup_order"))
    assert_scored(result, False, 0.5)
    assert result.rationale.startswith("no part passed")
    assert_scored(scorer(SCENARIO, run_of("refund", "x")), True, 1.0)


def test_composite_weighted_mode_with_options_and_labels() -> None:
    scorer = create_scorer(
        "composite",
        scorers=[
            {"scorer": "tool_name_match", "weight": 3, "options": {"threshold": 0.5}},
            {"scorer": "response_contains", "weight": 1, "label": "mentions_refund"},
            ("max_turns", {"limit": 10}),
        ],
        mode="weighted",
        threshold=0.8,
    )
    run = run_of("no mention", "lookup_order", "process_refund")
    result = scorer(SCENARIO, run)
    assert_scored(result, True, 4 / 5)  # (3*1 + 1*0 + 1*1) / 5
    assert set(result.details["parts"]) == {"tool_name_match", "mentions_refund", "max_turns"}
    assert result.details["parts"]["tool_name_match"]["weight"] == 3.0


def test_composite_duplicate_parts_are_numbered() -> None:
    scorer = create_scorer("composite", scorers=["max_turns", ("max_turns", {"limit": 1})])
    result = scorer(case(), run_of("x", "a", "b"))
    assert set(result.details["parts"]) == {"max_turns", "max_turns#2"}
    assert_scored(result, False)


def test_composite_all_parts_not_applicable_is_unscored() -> None:
    scorer = create_scorer("composite", scorers=["max_turns", "routing", "escalation"])
    result = scorer(case(), run_of("x"))
    assert result.status is ScoreStatus.UNSCORED
    assert result.details["reason"] == "not_applicable"


@register_scorer("test_compose_boom")
def _boom() -> Scorer:
    def score(case: Case, run: Trajectory) -> Score:
        raise RuntimeError("boom")

    return score


def test_composite_part_errors() -> None:
    # all: a failed part decides; with no failure an error cannot become a pass.
    all_mode = create_scorer("composite", scorers=["test_compose_boom", "response_contains"])
    failed = all_mode(SCENARIO, run_of("nope"))
    assert_scored(failed, False)
    assert "errored: test_compose_boom (scorer raised RuntimeError: boom)" in failed.rationale
    errored = all_mode(SCENARIO, run_of("refund"))
    assert errored.status is ScoreStatus.ERROR
    assert errored.details["parts"]["test_compose_boom"]["status"] == "error"
    # any: a pass decides.
    any_mode = create_scorer(
        "composite", scorers=["test_compose_boom", "response_contains"], mode="any"
    )
    assert_scored(any_mode(SCENARIO, run_of("refund")), True)
    assert any_mode(SCENARIO, run_of("nope")).status is ScoreStatus.ERROR
    weighted = create_scorer(
        "composite", scorers=["test_compose_boom", "response_contains"], mode="weighted"
    )
    assert weighted(SCENARIO, run_of("refund")).status is ScoreStatus.ERROR


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"scorers": []}, ValueError),
        ({"scorers": "max_turns"}, ValueError),
        ({"scorers": [{"name": "max_turns"}]}, ValueError),
        ({"scorers": [{"scorer": "max_turns", "weight": -1}]}, ValueError),
        ({"scorers": ["max_turns"], "mode": "majority"}, ValueError),
        ({"scorers": ["max_turns"], "threshold": 2}, ValueError),
        ({"scorers": ["no_such_scorer"]}, UnknownScorerError),
        ({"scorers": [("max_turns", {"limit": "x"})]}, ValueError),
    ],
)
def test_composite_rejects_bad_configuration(
    options: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        create_scorer("composite", **options)


@register_scorer("test_compose_no_verdict")
def _no_verdict() -> Scorer:
    def score(case: Case, run: Trajectory) -> Score:
        return Score.unscored("test_compose_no_verdict", "judge timed out", {"reason": "timeout"})

    return score


def test_composite_part_without_verdict_is_partially_scored() -> None:
    # A judge that failed beside a passing part: the composite cannot claim a pass, in any
    # mode, and gives no value computed from the parts that happened to score.
    parts = ["test_compose_no_verdict", "response_contains", "routing"]
    for mode in ("all", "any", "weighted"):
        scorer = create_scorer("composite", scorers=parts, mode=mode)
        result = scorer(SCENARIO, run_of("nope" if mode == "any" else "refund"))
        assert result.status is ScoreStatus.UNSCORED, (mode, result.rationale)
        assert result.details["reason"] == "partially_scored" and result.value is None
        assert "no verdict from test_compose_no_verdict (judge timed out)" in result.rationale
    # The parts that score decide alone: a failure under all, a pass under any.
    all_mode = create_scorer("composite", scorers=parts)
    assert_scored(all_mode(SCENARIO, run_of("nope")), False)
    any_mode = create_scorer("composite", scorers=parts, mode="any")
    assert_scored(any_mode(SCENARIO, run_of("refund")), True)
