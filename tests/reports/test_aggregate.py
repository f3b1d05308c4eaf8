"""The run summary: counts, breakdowns, means, percentiles and the worst failures."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.reports.aggregate import SummaryBuilder, _percentile
from assay.results import CaseResult, NotScored, OpsMetrics, Score, combine_scores


def result(i: int, score: Score, *, runner: str = "r", duration: float | None = None) -> CaseResult:
    return CaseResult(
        scenario_id=str(i),
        run_id=f"run{i}",
        runner=runner,
        model="m",
        question=None,
        answer="x",
        score=score,
        ops=OpsMetrics(tokens_in=10, tokens_out=1, duration_ms=duration, est_cost_usd=0.5),
        scenario_type="count" if i % 2 else "dict",
        report_file=f"run{i}.json",
    )


def test_totals_breakdowns_and_means() -> None:
    builder = SummaryBuilder()
    for i in range(30):
        value = i / 30
        builder.add_result(
            result(
                i,
                Score.scored("s", value, passed=value >= 0.5, details={"f1": value, "n": 2}),
                runner="a" if i < 10 else "b",
                duration=float(i),
            )
        )
    builder.add_result(result(99, Score.unscored("s", "no answer", {"reason": "no_answer"})))
    builder.add_result(result(98, Score.error("s", "broken rules")))
    builder.add_not_scored(NotScored("no_scenario", "no scenario", source="x.json"))
    summary = builder.finish()
    totals = summary.totals
    assert (totals["runs_read"], totals["scored"], totals["passed"]) == (33, 30, 15)
    assert (totals["unscored"], totals["no_answer"], totals["errors"], totals["skipped"]) == (
        1,
        1,
        1,
        1,
    )
    assert totals["pass_rate"] == 0.5
    assert summary.by_runner_model["a | m"]["scored"] == 10
    assert summary.by_runner_model["a | m"]["passed"] == 0
    assert summary.metrics_mean["s"] == {"f1": sum(i / 30 for i in range(30)) / 30, "n": 2.0}
    assert summary.ops["duration_ms_p50"] == 14.5
    assert summary.ops["est_cost_usd_total"] == 16.0
    worst = summary.worst_failures
    assert [w["run_id"] for w in worst] == [f"run{i}" for i in range(10)]
    assert worst[0]["report_file"] == "run0.json"


def test_nothing_scored_has_no_pass_rate() -> None:
    summary = SummaryBuilder().finish()
    assert summary.totals["pass_rate"] is None
    assert summary.pass_rate is None
    assert summary.ops["duration_ms_p50"] is None


def flagged(summary_flags: list[dict[str, object]]) -> dict[object, object]:
    return {flag["metric"]: flag["status"] for flag in summary_flags}


def test_red_flag_figures_come_from_the_results() -> None:
    from assay.reports.red_flags import RedFlagThresholds

    def run(i: int, *, passed: bool, recall: float, escalated: bool, overflow: bool) -> CaseResult:
        trajectory = Score.scored("trajectory", recall, passed=passed, details={"recall": recall})
        item = result(i, trajectory, duration=90_000.0)
        item.ops.escalated = escalated
        item.ops.context_overflow = overflow
        return item

    builder = SummaryBuilder()
    for i in range(10):
        builder.add_result(run(i, passed=i < 5, recall=0.7, escalated=i < 3, overflow=i == 0))
    summary = builder.finish()
    figures = summary.red_flags["figures"]
    assert figures["tool_selection_accuracy"] == pytest.approx(0.7)
    figures["tool_selection_accuracy"] = 0.7
    assert figures == {
        "tool_selection_accuracy": 0.7,
        "context_overflow_rate": 0.1,
        "scenario_pass_rate": 0.5,
        "avg_latency_s": 90.0,
        "escalation_rate": 0.3,
    }
    assert flagged(summary.red_flags["flags"]) == {
        "tool_selection_accuracy": "raised",
        "context_overflow_rate": "raised",
        "scenario_pass_rate": "raised",
        "avg_latency_s": "raised",
        "escalation_rate": "raised",
    }

    relaxed = SummaryBuilder(
        red_flag_thresholds=RedFlagThresholds(
            tool_selection_accuracy=0.5, avg_latency_s=None, escalation_rate=0.5
        )
    )
    for i in range(10):
        relaxed.add_result(run(i, passed=True, recall=0.7, escalated=False, overflow=False))
    assert relaxed.finish().red_flags["flags"] == []


def test_red_flags_that_cannot_be_measured_are_said_so() -> None:
    builder = SummaryBuilder()
    builder.add_result(result(1, Score.scored("static_json", 1.0, passed=True)))
    summary = builder.finish()
    assert summary.red_flags["figures"]["tool_selection_accuracy"] is None
    assert summary.red_flags["figures"]["avg_latency_s"] is None
    assert flagged(summary.red_flags["flags"]) == {
        "tool_selection_accuracy": "not_measured",
        "avg_latency_s": "not_measured",
    }


@given(
    st.lists(st.floats(min_value=0, max_value=1e9, allow_nan=False), min_size=2, max_size=300),
    st.sampled_from([50, 95]),
)
def test_percentiles_are_those_of_statistics_quantiles(values: list[float], pct: int) -> None:
    expected = statistics.quantiles(values, n=100, method="inclusive")[pct - 1]
    assert _percentile(values, pct) == expected


def combined(i: int, parts: list[Score], *, runner: str = "r") -> CaseResult:
    """A run several scorers scored, as the pipeline records it."""
    item = result(i, combine_scores(parts), runner=runner)
    item.scores = parts
    return item


def test_partially_scored_runs_are_counted_apart_and_not_as_passed() -> None:
    static_pass = Score.scored("static_json", 1.0, passed=True)
    judge_pass = Score.scored("llm_judge", 1.0, passed=True)
    judge_down = Score.unscored("llm_judge", "judge call failed", {"reason": "http_error"})
    builder = SummaryBuilder()
    builder.add_result(combined(1, [static_pass, judge_pass], runner="a"))
    builder.add_result(combined(2, [static_pass, judge_down], runner="a"))
    builder.add_result(combined(3, [static_pass, judge_down], runner="b"))
    builder.add_result(combined(4, [Score.no_answer("static_json", None), judge_pass]))
    builder.add_not_scored(NotScored("unreadable", "invalid JSON", source="x.json"))
    summary = builder.finish()
    totals = summary.totals
    assert (totals["scored"], totals["passed"], totals["failed"]) == (1, 1, 0)
    assert (totals["unscored"], totals["partially_scored"], totals["no_answer"]) == (3, 3, 1)
    assert totals["scored"] + totals["unscored"] + totals["errors"] + totals["skipped"] == (
        totals["runs_read"]
    )
    # Needed a verdict: the scored run and the three partially scored; one passed.
    assert totals["pass_rate"] == summary.pass_rate == 0.25
    assert summary.red_flags["figures"]["scenario_pass_rate"] == 0.25
    group_a = summary.by_runner_model["a | m"]
    assert (group_a["scored"], group_a["partially_scored"], group_a["pass_rate"]) == (1, 1, 0.5)
    assert group_a["mean_score"] == 1.0  # over the scored runs only: no missing verdict is a 0
    assert summary.by_runner_model["b | m"]["pass_rate"] == 0.0
    assert summary.by_scorer["llm_judge"] == {
        "scored": 2, "passed": 2, "pass_rate": 1.0, "mean_score": 1.0, "unscored": 2,
        "partially_scored": 0, "errors": 0,
    }  # fmt: skip
    assert summary.worst_failures == []  # a partially scored run is not a failure either
    listed = summary.not_scored["unscored"]
    assert [item["run_id"] for item in listed] == ["run2", "run3", "run4"]
    assert listed[0]["reason"].startswith("no verdict from llm_judge: judge call failed")


def test_runs_that_all_got_their_verdicts_keep_the_pass_rate_of_scored_runs() -> None:
    builder = SummaryBuilder()
    not_applicable = Score.unscored("max_turns", "no max_turns", {"reason": "not_applicable"})
    builder.add_result(combined(1, [Score.scored("static_json", 1.0, passed=True), not_applicable]))
    builder.add_result(result(2, Score.unscored("llm_judge", "down", {"reason": "http_error"})))
    totals = builder.finish().totals
    assert (totals["scored"], totals["partially_scored"], totals["pass_rate"]) == (1, 0, 1.0)
