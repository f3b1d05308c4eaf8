"""Repetitions in the reports: `repeat` in the per-run reports and `results.jsonl`, the
`repeats` section of `_aggregate.json`, and reading them back."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from assay.reports.aggregate import ResultFigures, SummaryBuilder
from assay.reports.load import load_reports
from assay.reports.read import result_of_line
from assay.schema import json_schema
from assay.schema.report import Aggregate, validate
from repeats_reports import repeat_result, results_of, write_reports


def _aggregate(directory: Path) -> dict:  # type: ignore[type-arg]
    return orjson.loads((directory / "_aggregate.json").read_bytes())  # type: ignore[no-any-return]


def test_repeated_runs_write_their_repeat_and_the_repeats_section(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_reports(out, results_of({"weather": "PPF", "capital": "PPP", "refund": "EFF"}))
    lines = [orjson.loads(line) for line in (out / "results.jsonl").read_bytes().splitlines()]
    assert [(line["run_id"], line["repeat"]) for line in lines][:3] == [
        ("weather#1", 1), ("weather#2", 2), ("weather#3", 3)
    ]  # fmt: skip
    report = orjson.loads((out / lines[2]["report_file"]).read_bytes())
    assert report["repeat"] == 3
    section = _aggregate(out)["repeats"]
    assert section["n"] == section["n_max"] == 3
    assert (section["runs"], section["not_scored"]) == (9, 1)
    assert section["flaky"] == ["weather"]
    # pass@1: capital 1, refund 0, weather 2/3; pass@2: 1, 0, 1; pass^2: 1, 0, 1/3.
    r = round
    assert section["pass_at_k"] == {"1": r(5 / 9, 6), "2": r(2 / 3, 6), "3": r(2 / 3, 6)}
    assert section["pass_hat_k"] == {"1": r(5 / 9, 6), "2": r(4 / 9, 6), "3": r(1 / 3, 6)}
    by_case = {case["scenario_id"]: case for case in section["cases"]}
    assert by_case["refund"]["not_scored"] == 1
    assert by_case["refund"]["passed"] == 0
    assert by_case["refund"]["mean_score"] == 0.0  # the error's missing value left out
    assert by_case["weather"]["pass_hat_k"] == {"1": 0.666667, "2": 0.333333, "3": 0.0}
    validate(_aggregate(out), Aggregate)


def test_an_offline_evaluation_has_no_repeat_and_no_section(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = write_reports(out, [repeat_result("a", None, "P"), repeat_result("b", None, "F")])
    assert summary.repeats is None
    assert "repeats" not in _aggregate(out)
    for line in (out / "results.jsonl").read_bytes().splitlines():
        assert "repeat" not in orjson.loads(line)
    assert "repeat" not in orjson.loads((out / "a.json").read_bytes())


def test_the_section_does_not_depend_on_the_order_results_arrived_in(tmp_path: Path) -> None:
    verdicts = {f"case-{i}": "".join(random.Random(i).choice("PPFEU") for _ in range(4))
                for i in range(12)}  # fmt: skip
    results = results_of(verdicts)
    for result, value in zip(results, (0.1 * (i % 10) for i in range(99)), strict=False):
        if result.score.value is not None:
            result.score.value = value  # scores whose sums round differently by order
    shuffled = list(results)
    random.Random(7).shuffle(shuffled)
    first = write_reports(tmp_path / "a", results).repeats
    second = write_reports(tmp_path / "b", shuffled).repeats
    assert first is not None
    assert first == second
    assert _aggregate(tmp_path / "a")["repeats"] == _aggregate(tmp_path / "b")["repeats"]


def test_reports_read_back_keep_the_repeats(tmp_path: Path) -> None:
    out = tmp_path / "out"
    written = write_reports(out, results_of({"a": "PF", "b": "PP"}))
    loaded = load_reports(out)
    assert loaded.summary.repeats == written.repeats
    assert [line["repeat"] for line in loaded.results] == [1, 2, 1, 2]
    report = loaded.run_report(loaded.results[1])
    assert report is not None
    assert report["repeat"] == 2


def test_a_line_turns_back_into_the_figures_it_was_written_from(tmp_path: Path) -> None:
    out = tmp_path / "out"
    results = results_of({"a": "PFE", "b": "UPP"})
    write_reports(out, results)
    # A resumed evaluation counts the runs it finished from their lines: same section.
    builder = SummaryBuilder()
    for line in load_reports(out).results:
        builder.add_figures(ResultFigures.of(result_of_line(line)), line["report_file"])
    assert builder.finish().repeats == _aggregate(out)["repeats"]
    for result, line in zip(results, load_reports(out).results, strict=True):
        assert ResultFigures.of(result_of_line(line)) == ResultFigures.of(result)


@pytest.mark.parametrize(
    "change",
    [{"repeat": 0}, {"repeat": "2"}, {"repeat": True}, {"score": None}, {"ops": {}},
     {"scenario_id": 5}, {"score": {"scorer": "s", "status": "odd", "passed": None,
                                    "score": None, "rationale": "", "details": {}}}],
)  # fmt: skip
def test_a_line_that_is_not_a_result_is_refused(change: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    out = tmp_path / "out"
    write_reports(out, results_of({"a": "P"}))
    line = load_reports(out).results[0]
    with pytest.raises(ValueError, match=r"not a result line|repeat|not a valid|odd"):
        result_of_line({**line, **change})


def test_the_schemas_describe_the_repeat_and_the_section() -> None:
    assert json_schema("run")["properties"]["repeat"]["anyOf"][0]["minimum"] == 1
    assert "repeat" not in json_schema("line").get("required", [])
    aggregate = json_schema("aggregate")
    assert "repeats" not in aggregate["required"]  # absent for offline evaluations
    section = aggregate["$defs"]["Repeats"]["properties"]
    assert {"n", "cases", "pass_at_k", "pass_hat_k", "mean_score", "ci95", "flaky"} <= set(section)


def test_the_section_from_results_is_the_aggregates(tmp_path: Path) -> None:
    from assay.reports.repeats import repeat_section

    results = [*results_of({"a": "PFEU", "b": "PPPF"}), repeat_result("c", None, "P")]
    summary = write_reports(tmp_path / "out", results)
    assert repeat_section(results) == summary.repeats
    assert repeat_section([repeat_result("c", None, "P")]) is None
