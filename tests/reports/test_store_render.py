"""The per-run report and its `results.jsonl` line are written through `RunReport`, and read
back through it to the same result, whatever the run brought."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.records import Message, ToolCall, Trajectory
from assay.reports.aggregate import SummaryBuilder
from assay.reports.read import result_of_line
from assay.reports.store import ReportWriter, render
from assay.results import CaseResult, OpsMetrics, Score
from assay.schema.report import ResultLine, RunReport, validate
from assay.transcript import transcript_of

_TEXT = st.text(st.characters(codec=None), max_size=8)  # lone surrogates included
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)


def _result(answer: Any, details: dict[str, Any], expected: Any = None) -> CaseResult:
    return CaseResult(
        "11",
        "r1",
        "agent",
        "m",
        "q",
        answer,
        Score.scored("static_json", 0.5, passed=False, details=details),
        OpsMetrics(turn_count=2, unique_tools=["a"], tokens_in=3),
        source="runs/r1.json",
        expected_answer=expected,
        repeat=2,
    )


def _line(line: bytes) -> dict[str, Any]:
    return {**orjson.loads(line), "report_file": "r1.json"}


@given(answer=_VALUES, details=st.dictionaries(_TEXT, _VALUES, max_size=4), expected=_VALUES)
@settings(max_examples=examples(200))
def test_whatever_a_run_brought_its_report_and_line_keep_the_shape(
    answer: Any, details: dict[str, Any], expected: Any
) -> None:
    report, line = render(_result(answer, details, expected))
    validate(orjson.loads(report), RunReport)
    read = result_of_line(_line(line))
    assert read.scenario_id == "11" and read.repeat == 2 and read.score.value == 0.5
    assert read.ops.unique_tools == ["a"] and read.report_file == "r1.json"


def test_a_line_reads_back_to_the_result_it_was_written_from() -> None:
    result = _result({"a": [1, 2.5, None]}, {"f1": 0.5, "details": [{"key": "a"}]}, "7")
    report, line = render(result)
    assert orjson.loads(report)["score"]["details"]["details"] == [{"key": "a"}]
    read = result_of_line(_line(line))
    # The per-key records and the gold answer stay in the per-run report.
    assert read.score.details == {"f1": 0.5}
    assert read.expected_answer is None
    read.score.details, read.expected_answer, read.report_file = (
        result.score.details,
        result.expected_answer,
        None,
    )
    assert read == result


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("a\ud800b", id="lone surrogate"),
        pytest.param({"n": 2**70}, id="int beyond 64 bits"),
        pytest.param({(1, 2): "tuple key"}, id="key that is not text"),
        pytest.param(object(), id="odd object"),
    ],
)
def test_a_value_json_cannot_hold_is_written_as_text_not_lost(answer: Any) -> None:
    report, line = render(_result(answer, {}))
    assert validate(orjson.loads(report), RunReport).scenario_id == "11"
    assert validate(_line(line), ResultLine).answer is not None


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def test_an_answer_nested_deep_is_written_whole() -> None:
    report, line = render(_result(_nested(300), {"deep": _nested(300)}))
    assert validate(orjson.loads(report), RunReport).answer == _nested(300)
    assert result_of_line(_line(line)).score.details == {"deep": _nested(300)}


def test_an_answer_nested_past_any_parser_is_cut_and_the_report_kept() -> None:
    report, _ = render(_result(_nested(5000), {"deep": _nested(5000), "f1": 1.0}))
    record = validate(orjson.loads(report), RunReport)
    assert record.answer == "<array nested deeper than 200 levels: not written>"
    assert record.score.details == {
        "deep": "<array nested deeper than 200 levels: not written>",
        "f1": 1.0,
    }


def test_an_aggregate_that_is_not_one_is_refused_not_written(tmp_path: Path) -> None:
    summary = SummaryBuilder().finish(interrupted=False)
    summary.options = {
        "trajectories": "runs",
        "scenarios": [],
        "reports_dir": str(tmp_path),
        "scorers": [],
        "red_flag_thresholds": {},
    }
    summary.totals["runs_read"] = "three"
    with ReportWriter(tmp_path) as writer, pytest.raises(ValueError, match="totals"):
        writer.write_summary(summary)
    assert not (tmp_path / "_aggregate.json").exists()


def test_the_transcript_is_in_the_per_run_report_and_not_in_its_line() -> None:
    run = Trajectory(
        messages=[
            Message("user", "q\ud800"),
            Message("assistant", None, [ToolCall("f", {"odd": object()}, "c1", result=2**70)]),
        ],
        error="boom",
        error_kind="agent_error",
    )
    entries, left_out = transcript_of(run)
    result = _result("a", {})
    result.transcript, result.transcript_left_out = entries, 3

    report, line = render(result)

    written = validate(orjson.loads(report), RunReport)
    assert written.transcript == entries and written.transcript_left_out == 3
    assert [entry.role for entry in entries] == ["user", "assistant", "error"]
    assert left_out == 0
    assert not {"transcript", "transcript_left_out"} & set(orjson.loads(line))
    # A line reads back without one; a per-run report with it, and renders back the same.
    from_line = result_of_line(_line(line))
    assert (from_line.transcript, from_line.transcript_left_out) == (None, 0)
    from_report = result_of_line(orjson.loads(report))
    assert from_report.transcript == entries and from_report.transcript_left_out == 3
    assert render(from_report) == (report, line)
