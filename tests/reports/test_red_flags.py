"""Red flags: the evaluator catalog's threshold table, strict comparisons, configurable and
switchable thresholds, and unmeasured figures listed but never flagged."""

from __future__ import annotations

import math
from typing import Any

import pytest

from assay.reports.red_flags import (
    AVG_LATENCY_S,
    CONTEXT_OVERFLOW_RATE,
    ESCALATION_RATE,
    SCENARIO_PASS_RATE,
    TOOL_SELECTION_ACCURACY,
    RedFlagThresholds,
    red_flags,
)

HEALTHY = {
    TOOL_SELECTION_ACCURACY: 0.95,
    CONTEXT_OVERFLOW_RATE: 0.01,
    SCENARIO_PASS_RATE: 0.97,
    AVG_LATENCY_S: 8.5,
    ESCALATION_RATE: 0.05,
}
BAD = {
    TOOL_SELECTION_ACCURACY: 0.70,
    CONTEXT_OVERFLOW_RATE: 0.08,
    SCENARIO_PASS_RATE: 0.85,
    AVG_LATENCY_S: 75.0,
    ESCALATION_RATE: 0.20,
}


def test_healthy_figures_raise_nothing() -> None:
    assert red_flags(HEALTHY) == []


def test_the_catalog_table_every_flag_with_its_action() -> None:
    flags = red_flags(BAD)
    assert [(f.red_flag, f.metric, f.value, f.comparison, f.threshold) for f in flags] == [
        ("Tool confusion", TOOL_SELECTION_ACCURACY, 0.70, "<", 0.80),
        ("Context overflow", CONTEXT_OVERFLOW_RATE, 0.08, ">", 0.05),
        ("Inconsistent results", SCENARIO_PASS_RATE, 0.85, "<", 0.90),
        ("Slow responses", AVG_LATENCY_S, 75.0, ">", 60.0),
        ("High escalation", ESCALATION_RATE, 0.20, ">", 0.15),
    ]
    assert all(flag.raised and flag.status == "raised" for flag in flags)
    assert [flag.action for flag in flags] == [
        "simplify tool descriptions, reduce tool count",
        "split into subagents, reduce tool descriptions",
        "add deterministic checks, review prompt",
        "optimise tool chains, cache results",
        "expand agent capabilities, adjust thresholds",
    ]
    assert flags[3].describe() == (
        "Slow responses: avg_latency_s 75 > 60; optimise tool chains, cache results"
    )


def test_thresholds_are_strict() -> None:
    at_the_line = {
        TOOL_SELECTION_ACCURACY: 0.80,
        CONTEXT_OVERFLOW_RATE: 0.05,
        SCENARIO_PASS_RATE: 0.90,
        AVG_LATENCY_S: 60,
        ESCALATION_RATE: 0.15,
    }
    assert red_flags(at_the_line) == []


@pytest.mark.parametrize("missing", [None, math.nan, "n/a", True])
def test_unmeasured_figures_are_listed_never_flagged(missing: Any) -> None:
    figures = {**HEALTHY, SCENARIO_PASS_RATE: missing}
    flags = red_flags(figures)
    assert len(flags) == 1
    flag = flags[0]
    assert (flag.metric, flag.status, flag.raised, flag.value) == (
        SCENARIO_PASS_RATE,
        "not_measured",
        False,
        None,
    )
    assert flag.describe() == "Inconsistent results: scenario_pass_rate not measured"


def test_a_missing_key_is_not_measured_and_unknown_keys_are_ignored() -> None:
    figures = {k: v for k, v in HEALTHY.items() if k != AVG_LATENCY_S}
    figures["cost_per_run"] = 99.0
    assert [(f.metric, f.status) for f in red_flags(figures)] == [(AVG_LATENCY_S, "not_measured")]
    everything_missing = red_flags({})
    assert len(everything_missing) == 5
    assert not any(flag.raised for flag in everything_missing)


def test_thresholds_are_configurable_and_switchable() -> None:
    strict = RedFlagThresholds(tool_selection_accuracy=0.99, avg_latency_s=5.0)
    assert [f.metric for f in red_flags(HEALTHY, strict)] == [
        TOOL_SELECTION_ACCURACY,
        AVG_LATENCY_S,
    ]
    off = RedFlagThresholds(
        tool_selection_accuracy=None,
        context_overflow_rate=None,
        scenario_pass_rate=None,
        avg_latency_s=None,
        escalation_rate=None,
    )
    assert red_flags(BAD, off) == []
    assert red_flags({}, off) == []  # a rule switched off does not ask for its figure


def test_bad_thresholds_are_refused() -> None:
    with pytest.raises(ValueError, match="escalation_rate"):
        RedFlagThresholds(escalation_rate=math.inf)
    with pytest.raises(ValueError, match="avg_latency_s"):
        RedFlagThresholds(avg_latency_s="60")  # type: ignore[arg-type]


def test_to_report_is_json_ready() -> None:
    flag = red_flags({**HEALTHY, ESCALATION_RATE: 0.5})[0]
    assert flag.to_report() == {
        "metric": ESCALATION_RATE,
        "red_flag": "High escalation",
        "value": 0.5,
        "threshold": 0.15,
        "comparison": ">",
        "action": "expand agent capabilities, adjust thresholds",
        "status": "raised",
    }


def test_a_low_pass_rate_is_inconsistency_only_where_cases_were_repeated() -> None:
    figures = {SCENARIO_PASS_RATE: 0.5}
    once = [f for f in red_flags(figures, repeated=False) if f.raised]
    repeated = [f for f in red_flags(figures, repeated=True) if f.raised]
    assert [f.red_flag for f in once] == ["Low pass rate"]
    assert [f.red_flag for f in repeated] == ["Inconsistent results"]
    assert once[0].metric == repeated[0].metric == SCENARIO_PASS_RATE  # the same figure
