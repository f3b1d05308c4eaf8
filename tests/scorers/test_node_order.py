"""`node_order`: the run's node visits against `expected_nodes` under each match
type, malformed expectations as errors, and a run without node visits said, never scored 0."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats.scenarios import case_from_object
from assay.records import Case, Step, ToolCall, Trajectory
from assay.results import Score, ScoreStatus, combine_scores
from assay.scorers import create_scorer, scorer_spec
from assay.scorers.node_order import _in_order, node_sequence


def run_of(*nodes: str | None) -> Trajectory:
    return Trajectory(steps=[Step(index, node=node) for index, node in enumerate(nodes)])


def score(expected: Any, run: Trajectory, **options: Any) -> Score:
    case = Case(id="c", expected_nodes=expected)
    return create_scorer("node_order", **options)(case, run)


ROUTED = run_of("ROUTER", "RESEARCH", "RESEARCH", None, "TOOLS", "RESEARCH", "ANSWER")
"""Collapsed: ROUTER, RESEARCH, TOOLS, RESEARCH, ANSWER (the step without a node skipped)."""


def test_the_nodes_of_a_run_collapse_repeats_and_skip_steps_without_one() -> None:
    assert node_sequence(step.node for step in ROUTED.steps) == [
        "ROUTER", "RESEARCH", "TOOLS", "RESEARCH", "ANSWER"
    ]  # fmt: skip


def test_in_order_is_the_default_and_allows_other_nodes_between() -> None:
    result = score(["ROUTER", "RESEARCH", "ANSWER"], ROUTED)
    assert (result.value, result.passed) == (1.0, True)
    assert result.details["mode"] == "IN_ORDER"
    assert result.details["actual"] == ["ROUTER", "RESEARCH", "TOOLS", "RESEARCH", "ANSWER"]


def test_in_order_scores_the_longest_in_order_part() -> None:
    result = score(["ANSWER", "ROUTER", "RESEARCH", "TOOLS"], ROUTED)
    assert result.value == pytest.approx(3 / 4) and result.passed is False
    assert result.rationale.startswith("3 of 4 expected nodes visited in order (IN_ORDER)")
    assert score(["ANSWER", "ROUTER", "RESEARCH", "TOOLS"], ROUTED, threshold=0.75).passed


def test_exact_needs_the_same_sequence_and_otherwise_never_passes() -> None:
    same = score(["ROUTER", "RESEARCH", "TOOLS", "RESEARCH", "ANSWER"], ROUTED, mode="EXACT")
    assert (same.value, same.passed) == (1.0, True)
    extra = score(["ROUTER", "RESEARCH", "ANSWER"], ROUTED, mode="exact", threshold=0.1)
    assert extra.passed is False and extra.value == pytest.approx(3 / 5)
    assert "expected ROUTER -> RESEARCH -> ANSWER, got ROUTER -> RESEARCH -> TOOLS" in (
        extra.rationale
    )


def test_any_order_counts_each_expected_node_against_its_own_visit() -> None:
    result = score(["RESEARCH", "ANSWER", "RESEARCH", "ROUTER", "RESEARCH"], ROUTED,
                   mode="ANY_ORDER")  # fmt: skip
    # RESEARCH was entered twice (collapsed visits), so the third is missing.
    assert result.value == pytest.approx(4 / 5) and result.passed is False
    assert result.details["missing"] == ["RESEARCH"]
    assert score(["ANSWER", "ROUTER"], ROUTED, mode="any-order").passed is True


def test_expected_repeats_collapse_as_the_run_does() -> None:
    result = score(["ROUTER", "ROUTER", "RESEARCH"], ROUTED)
    assert result.details["expected"] == ["ROUTER", "RESEARCH"] and result.passed is True


def test_a_run_without_node_visits_is_unscored_and_says_the_capture_is_not_wired() -> None:
    run = Trajectory(answer="done", steps=[Step(0, tool_calls=[ToolCall("search")])])
    result = score(["MAIN"], run)
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "no_nodes"
    assert "not wired into the agent" in result.rationale
    assert "make_trajectory_callback" in result.rationale
    # Beside another check, a missing node capture is no verdict, never a pass.
    assert not result.does_not_apply()
    combined = combine_scores([Score.scored("response_match", 1.0, passed=True), result])
    assert combined.passed is None and combined.details["reason"] == "partially_scored"


def test_a_case_without_expected_nodes_is_not_applicable() -> None:
    for case in (Case(id="c"), Case(id="c", expected_nodes=None),
                 Case(id="c", expected_nodes=[])):  # fmt: skip
        result = create_scorer("node_order")(case, ROUTED)
        assert result.details["reason"] == "not_applicable" and result.does_not_apply()


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("ROUTER", "str 'ROUTER'"),
        ({"a": 1}, "dict"),
        (["ROUTER", 3], "a list holding 3"),
        (["ROUTER", " "], "a list holding ' '"),
    ],
)
def test_a_malformed_expectation_is_an_error_with_its_reason(value: Any, said: str) -> None:
    result = score(value, ROUTED)
    assert result.status is ScoreStatus.ERROR
    assert result.details == {"reason": "bad_expectation", "field": "expected_nodes"}
    assert said in result.rationale


def test_a_malformed_scenario_field_is_the_checks_error_and_a_read_problem() -> None:
    case, problems = case_from_object({"id": "s", "expected_nodes": ["ROUTER", 3]}, "s.json")
    assert case is not None and case.expected_nodes is None
    assert [p.reason.split(":")[0] for p in problems] == ["expected_nodes[1]"]
    result = create_scorer("node_order")(case, ROUTED)
    assert result.status is ScoreStatus.ERROR and result.details["field"] == "expected_nodes"


def test_a_scenario_field_lands_where_the_scorer_reads_it() -> None:
    case, _ = case_from_object({"id": "s", "expected_nodes": ["ROUTER", "ANSWER"]}, "s.json")
    assert case is not None
    assert create_scorer("node_order")(case, ROUTED).passed is True


@pytest.mark.parametrize("options", [{"mode": "strict"}, {"mode": "subsequence"},
                                     {"threshold": 2}, {"mode": 3}])  # fmt: skip
def test_bad_options_are_refused_when_built(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        create_scorer("node_order", **options)


def test_the_spec_records_every_option() -> None:
    assert scorer_spec("node_order", {}) == {
        "name": "node_order", "options": {"mode": "IN_ORDER", "threshold": 1.0}
    }  # fmt: skip


# --- the in-order count is a longest common subsequence ------------------------------------


def _table(expected: list[str], actual: list[str]) -> int:
    rows = [[0] * (len(actual) + 1) for _ in range(len(expected) + 1)]
    for i, wanted in enumerate(expected):
        for j, node in enumerate(actual):
            rows[i + 1][j + 1] = (
                rows[i][j] + 1 if wanted == node else max(rows[i][j + 1], rows[i + 1][j])
            )
    return rows[-1][-1]


nodes = st.lists(st.sampled_from(["A", "B", "C", "D"]), max_size=12)


@given(nodes, nodes)
def test_the_in_order_count_is_the_longest_common_subsequence(
    expected: list[str], actual: list[str]
) -> None:
    assert _in_order(expected, actual) == _table(expected, actual)


@given(nodes.filter(bool), nodes)
def test_modes_agree_on_what_they_share(expected: list[str], actual: list[str]) -> None:
    run = run_of(*actual)
    if not node_sequence(actual):
        assert score(expected, run).details["reason"] == "no_nodes"
        return
    in_order = score(expected, run)
    exact = score(expected, run, mode="EXACT")
    any_order = score(expected, run, mode="ANY_ORDER")
    assert in_order.value is not None and exact.value is not None
    assert any_order.value is not None
    # Order only takes away: what is found in order is also found in any order.
    assert in_order.value <= any_order.value
    assert exact.passed is (node_sequence(expected) == node_sequence(actual))
    assert (exact.value == 1.0) is exact.passed
    if exact.passed:
        assert in_order.passed and any_order.passed
