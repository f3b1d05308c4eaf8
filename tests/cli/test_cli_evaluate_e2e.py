"""End-to-end tests of `assay evaluate`: the real console scripts, run as subprocesses.

Every test writes runs and ground truth into `tmp_path`, runs the installed `assay` (or
`evaluate`) script next to the interpreter, checks the exit code and then reads the files the
command wrote: per-run reports, `results.jsonl` and `_aggregate.json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from _cli import assay, explain, popen

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = REPO_ROOT / "examples"

OWN_FILES = {"results.jsonl", "_aggregate.json", "_config.json", ".assay_reports"}
METRIC_NAMES = {
    "strict_exact_match_accuracy",
    "partial_exact_match_accuracy",
    "partial_similarity_score",
    "precision",
    "recall",
    "f1",
    "missing_keys",
    "extra_keys",
    "total_gold_keys",
    "total_model_keys",
    "matched_keys",
    "exact_value_matches",
}
REPORT_FIELDS = {"scenario_id", "run_id", "runner", "model", "question", "answer", "score", "ops"}
SCORE_FIELDS = {"scorer", "passed", "score", "rationale", "details"}
OPS_FIELDS = {
    "turn_count",
    "tool_call_count",
    "unique_tools",
    "tokens_in",
    "tokens_out",
    "duration_ms",
    "est_cost_usd",
}
KNOWN_MODEL = "litellm_proxy/Azure/gpt-5-mini-2025-08-07"


# --- running the CLI ------------------------------------------------------------------------


def evaluate(
    trajectories: Path,
    scenarios: Path | list[Path],
    reports: Path,
    *extra: Any,
    script: str = "assay",
) -> subprocess.CompletedProcess[str]:
    paths = scenarios if isinstance(scenarios, list) else [scenarios]
    prefix: list[Any] = ["evaluate"] if script == "assay" else []
    return assay(
        *prefix,
        "--trajectories",
        trajectories,
        "--scenarios",
        *paths,
        "--reports-dir",
        reports,
        *extra,
        script=script,
    )


# --- writing inputs -------------------------------------------------------------------------


def make_run(
    run_id: Any,
    scenario_id: Any = None,
    answer: Any = "",
    *,
    model: str = KNOWN_MODEL,
    runner: str = "direct-llm-agent",
    turns: list[dict[str, Any]] | None = None,
    question: str | None = "a question",
    omit: tuple[str, ...] = (),
) -> dict[str, Any]:
    """An AssetOpsBench-style run (SDK turns)."""
    if turns is None:
        turns = [
            {
                "tool_calls": [{"name": "get_work_orders", "input": {"site": "MAIN"}}],
                "input_tokens": 100,
                "output_tokens": 10,
                "duration_ms": 50.0,
            }
        ]
    run: dict[str, Any] = {
        "run_id": run_id,
        "scenario_id": scenario_id,
        "runner": runner,
        "model": model,
        "question": question,
        "answer": answer,
        "trajectory": {"turns": turns},
    }
    for name in omit:
        run.pop(name, None)
    return run


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def write_jsonl(path: Path, values: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return path


def scenario_folder(
    root: Path,
    scenario_id: str,
    groundtruth: str,
    *,
    rules: dict[str, Any] | None = None,
    question: str | None = None,
) -> Path:
    folder = root / f"scenario_{scenario_id}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "groundtruth.txt").write_text(groundtruth + "\n", encoding="utf-8")
    if rules is not None:
        (folder / "groundtruth_eval.json").write_text(json.dumps(rules), encoding="utf-8")
    if question is not None:
        (folder / "question.txt").write_text(question, encoding="utf-8")
    return folder


# --- reading outputs ------------------------------------------------------------------------


def read_aggregate(reports: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reports / "_aggregate.json").read_text(encoding="utf-8"))
    return data


def read_results(reports: Path) -> list[dict[str, Any]]:
    lines = (reports / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def read_run_reports(reports: Path) -> dict[str, dict[str, Any]]:
    """Per-run reports by file name."""
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(reports.iterdir())
        if path.is_file() and path.name not in OWN_FILES
    }


def reports_by_run_id(reports: Path) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for report in read_run_reports(reports).values():
        assert report["run_id"] not in found, f"run id {report['run_id']!r} reported twice"
        found[report["run_id"]] = report
    return found


def check_reports(reports: Path) -> dict[str, Any]:
    """Checks every invariant of a reports directory; returns the aggregate."""
    aggregate = read_aggregate(reports)
    totals = aggregate["totals"]
    results = read_results(reports)
    per_run = read_run_reports(reports)
    not_scored = aggregate["not_scored"]

    assert (
        totals["scored"] + totals["unscored"] + totals["errors"] + totals["skipped"]
        == totals["runs_read"]
    )
    assert totals["skipped"] == totals["unreadable"] + totals["no_scenario"]
    assert totals["passed"] + totals["failed"] == totals["scored"]
    if totals["scored"]:
        assert totals["pass_rate"] == pytest.approx(totals["passed"] / totals["scored"])
    else:
        assert totals["pass_rate"] is None

    with_result = totals["scored"] + totals["unscored"] + totals["errors"]
    assert len(results) == with_result, "results.jsonl: one line per scored/unscored/error run"
    assert len(per_run) == with_result, "one per-run report per scored/unscored/error run"
    assert {line["report_file"] for line in results} == set(per_run)

    assert len(not_scored["unscored"]) == totals["unscored"]
    assert len(not_scored["errors"]) == totals["errors"]
    assert len(not_scored["unreadable"]) == totals["unreadable"]
    assert len(not_scored["no_scenario"]) == totals["no_scenario"]
    assert len(not_scored["no_run"]) == totals["scenarios_without_runs"]
    for kind, items in not_scored.items():
        for item in items:
            assert isinstance(item["reason"], str) and item["reason"].strip(), (kind, item)

    statuses = [report["score"]["status"] for report in per_run.values()]
    assert statuses.count("scored") == totals["scored"]
    assert statuses.count("unscored") == totals["unscored"]
    assert statuses.count("error") == totals["errors"]
    assert sum(bool(r["score"]["passed"]) for r in per_run.values()) == totals["passed"]

    for line in results:
        report = per_run[line["report_file"]]
        assert set(report) >= REPORT_FIELDS, sorted(REPORT_FIELDS - set(report))
        assert set(report["score"]) >= SCORE_FIELDS
        assert set(report["ops"]) >= OPS_FIELDS
        # The line is the report without the per-key records, the gold answer and the
        # transcript (which every run's report has).
        assert "details" not in line["score"]["details"]
        assert "expected_answer" not in line and "transcript" not in line
        assert isinstance(report["transcript"], list)
        # The line also names the report file (the report itself is that file).
        expected_line = dict(report, report_file=line["report_file"])
        for kept_apart in ("expected_answer", "transcript", "transcript_left_out"):
            expected_line.pop(kept_apart, None)
        expected_line["score"] = dict(report["score"])
        expected_line["score"]["details"] = {
            k: v for k, v in report["score"]["details"].items() if k != "details"
        }
        assert line == expected_line
        if report["score"]["status"] == "scored":
            details = report["score"]["details"]
            assert set(details) >= METRIC_NAMES, sorted(METRIC_NAMES - set(details))
            assert isinstance(details["details"], list)
            assert report["score"]["score"] == pytest.approx(details["f1"])
            assert report["score"]["passed"] is (details["strict_exact_match_accuracy"] == 1.0)
        else:
            assert report["score"]["passed"] is None
            assert report["score"]["score"] is None
            assert report["score"]["rationale"]
    return aggregate


def files_under(root: Path) -> set[Path]:
    return {path for path in root.rglob("*") if path.is_file()}


# --- the worked example ---------------------------------------------------------------------


def test_worked_example_writes_every_metric_and_ops(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(
        scenarios, "11", "{'energy': 14, 'material': 48}", question="How many energy jobs?"
    )
    turns = [
        {
            "tool_calls": [
                {"name": "get_work_orders", "input": {"site": "MAIN", "asset_id": "CH-12"}},
                {"name": "get_assets", "input": {}},
            ],
            "input_tokens": 1840,
            "output_tokens": 96,
            "duration_ms": 812.5,
        },
        {
            "tool_calls": [{"name": "get_work_orders", "input": {"site": "MAIN"}}],
            "input_tokens": 2210,
            "output_tokens": 140,
            "duration_ms": 655.0,
        },
    ]
    runs = tmp_path / "runs"
    write_json(
        runs / "11.json",
        make_run("11", "11", '{"energy":14,"material":27}', turns=turns, question=None),
    )
    reports = tmp_path / "reports"

    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)

    assert sorted(p.name for p in reports.iterdir()) == [
        ".assay_reports",
        "11.json",
        "_aggregate.json",
        "_config.json",
        "results.jsonl",
    ]
    report = json.loads((reports / "11.json").read_text(encoding="utf-8"))
    assert report["scenario_id"] == "11"
    assert report["run_id"] == "11"
    assert report["runner"] == "direct-llm-agent"
    assert report["model"] == KNOWN_MODEL
    assert report["question"] == "How many energy jobs?"  # from question.txt: the run has none
    assert report["answer"] == '{"energy":14,"material":27}'

    score = report["score"]
    assert score["scorer"] == "static_json"
    assert score["status"] == "scored"
    assert score["passed"] is False
    assert score["score"] == pytest.approx(0.5)
    assert score["rationale"]
    details = score["details"]
    assert details["strict_exact_match_accuracy"] == 0.0
    assert details["partial_exact_match_accuracy"] == pytest.approx(0.5)
    assert details["partial_similarity_score"] == pytest.approx(0.5)
    assert details["precision"] == pytest.approx(0.5)
    assert details["recall"] == pytest.approx(0.5)
    assert details["f1"] == pytest.approx(0.5)
    assert details["missing_keys"] == []
    assert details["extra_keys"] == []
    assert details["total_gold_keys"] == 2
    assert details["total_model_keys"] == 2
    assert details["matched_keys"] == 2
    assert details["exact_value_matches"] == 1
    records = {record["key"]: record for record in details["details"]}
    assert set(records) == {"answer.energy", "answer.material"}
    assert records["answer.energy"]["exact"] is True
    assert records["answer.energy"]["gold_value"] == 14
    assert records["answer.energy"]["model_value"] == 14
    assert records["answer.material"]["exact"] is False
    assert records["answer.material"]["gold_value"] == 48
    assert records["answer.material"]["model_value"] == 27
    assert records["answer.material"]["similarity"] == 0.0

    ops = report["ops"]
    assert ops["turn_count"] == 2
    assert ops["tool_call_count"] == 3
    assert ops["unique_tools"] == ["get_assets", "get_work_orders"]
    assert ops["tokens_in"] == 1840 + 2210
    assert ops["tokens_out"] == 96 + 140
    assert ops["duration_ms"] == pytest.approx(812.5 + 655.0)
    assert isinstance(ops["est_cost_usd"], float) and ops["est_cost_usd"] > 0

    totals = aggregate["totals"]
    assert totals["runs_read"] == 1
    assert totals["scored"] == 1
    assert totals["passed"] == 0
    assert totals["failed"] == 1
    assert totals["pass_rate"] == 0.0
    assert totals["scenarios_loaded"] == 1
    assert totals["scenarios_without_runs"] == 0
    assert aggregate["ops"]["tokens_in_total"] == 4050
    assert aggregate["ops"]["tool_calls_total"] == 3
    mean = aggregate["metrics_mean"]["static_json"]
    assert mean["f1"] == pytest.approx(0.5)
    assert mean["partial_similarity_score"] == pytest.approx(0.5)


def test_ops_for_plan_execute_runs_and_unknown_models(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "5", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(
        runs / "5.json",
        {
            "run_id": "pe-5",
            "scenario_id": "5",
            "runner": "plan-execute",
            "model": "acme/never-heard-of-it",
            "answer": "{'a': 1}",
            "trajectory": [
                {"step": 1, "server": "iot", "tool": "sites", "tool_args": {}, "response": "x"},
                {"step": 2, "server": "iot", "tool": "sensors", "tool_args": {}, "response": []},
                {"step": 3, "server": "iot", "tool": "sites", "tool_args": {}, "response": "y"},
            ],
            "tokens_in": 300,
            "tokens_out": 40,
        },
    )
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    check_reports(reports)
    report = reports_by_run_id(reports)["pe-5"]
    assert report["score"]["passed"] is True
    assert report["score"]["score"] == 1.0
    ops = report["ops"]
    assert ops["turn_count"] == 3
    assert ops["tool_call_count"] == 3
    assert ops["unique_tools"] == ["sensors", "sites"]
    assert (ops["tokens_in"], ops["tokens_out"]) == (300, 40)
    assert ops["duration_ms"] is None
    assert ops["est_cost_usd"] is None  # no price for an unknown model: no guess


# --- exit codes -----------------------------------------------------------------------------


def _half_passing(tmp_path: Path) -> tuple[Path, Path]:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    scenario_folder(scenarios, "2", "{'a': 2}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    write_json(runs / "2.json", make_run("2", "2", '{"a": 3}'))
    return runs, scenarios


@pytest.mark.parametrize(
    ("fail_under", "code"),
    [("0", 0), ("0.5", 0), ("0.51", 1), ("1", 1), ("1.0", 1)],
)
def test_fail_under_threshold(tmp_path: Path, fail_under: str, code: int) -> None:
    runs, scenarios = _half_passing(tmp_path)
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports, "--fail-under", fail_under)
    assert proc.returncode == code, explain(proc)
    if code == 1:
        assert "fail-under" in proc.stderr
    # The reports are written either way.
    aggregate = check_reports(reports)
    assert aggregate["totals"]["pass_rate"] == 0.5


def test_fail_under_with_nothing_scored_is_not_met(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", None))
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports, "--fail-under", "0.5")
    assert proc.returncode == 1, explain(proc)
    assert read_aggregate(reports)["totals"]["pass_rate"] is None


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(["--no-such-flag"], id="unknown-flag"),
        pytest.param(["--fail-under", "7"], id="fail-under-7"),
        pytest.param(["--fail-under", "-0.1"], id="fail-under-negative"),
        pytest.param(["--fail-under", "most"], id="fail-under-not-a-number"),
        pytest.param(["--scorer-default", "nope"], id="unknown-scorer"),
        pytest.param(["--list-order", "sideways"], id="bad-list-order"),
    ],
)
@pytest.mark.parametrize("script", ["assay", "evaluate"])
def test_usage_errors_exit_2(tmp_path: Path, extra: list[str], script: str) -> None:
    runs, scenarios = _half_passing(tmp_path)
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports, *extra, script=script)
    assert proc.returncode == 2, explain(proc)
    assert "error" in proc.stderr
    assert not reports.exists(), "a usage error must not start an evaluation"


@pytest.mark.parametrize("script", ["assay", "evaluate"])
def test_an_unknown_scorer_is_one_line_and_the_way_to_the_help(
    tmp_path: Path, script: str
) -> None:
    runs, scenarios = _half_passing(tmp_path)
    proc = evaluate(
        runs, scenarios, tmp_path / "reports", "--scorer-default", "static_jsn", script=script
    )
    prog = "assay evaluate" if script == "assay" else "evaluate"
    assert proc.returncode == 2, explain(proc)
    said, way_on = proc.stderr.splitlines()  # no usage block
    assert said.startswith(f"{prog}: error: unknown scorer 'static_jsn'"), explain(proc)
    assert "did you mean 'static_json'?" in said
    assert way_on == f"try '{prog} --help'"


def test_usage_errors_without_required_arguments(tmp_path: Path) -> None:
    assert assay(cwd=tmp_path).returncode == 2
    assert assay("evaluate", cwd=tmp_path).returncode == 2
    assert assay("evaluate", "--trajectories", "x", cwd=tmp_path).returncode == 2
    assert assay("no-such-command", cwd=tmp_path).returncode == 2
    assert assay(script="evaluate", cwd=tmp_path).returncode == 2
    assert not (tmp_path / "reports").exists()


def test_missing_input_paths_exit_3(tmp_path: Path) -> None:
    runs, scenarios = _half_passing(tmp_path)
    reports = tmp_path / "reports"

    proc = evaluate(tmp_path / "no-runs-here", scenarios, reports)
    assert proc.returncode == 3, explain(proc)
    assert "no-runs-here" in proc.stderr

    proc = evaluate(runs, [scenarios, tmp_path / "no-such-scenarios.json"], reports)
    assert proc.returncode == 3, explain(proc)
    assert "no-such-scenarios.json" in proc.stderr

    proc = evaluate(runs, scenarios, reports, script="evaluate")
    assert proc.returncode == 0, explain(proc)


def test_reports_dir_that_is_a_file_exits_3(tmp_path: Path) -> None:
    runs, scenarios = _half_passing(tmp_path)
    reports = tmp_path / "reports"
    reports.write_text("not a directory", encoding="utf-8")
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 3, explain(proc)
    assert reports.read_text(encoding="utf-8") == "not a directory"


def test_no_runs_found_exits_3(tmp_path: Path) -> None:
    _, scenarios = _half_passing(tmp_path)
    runs = tmp_path / "empty-runs"
    runs.mkdir()
    (runs / "notes.txt").write_text("no runs in here", encoding="utf-8")
    proc = evaluate(runs, scenarios, tmp_path / "reports")
    assert proc.returncode == 3, explain(proc)
    assert "no runs" in proc.stderr


# --- everything is accounted for ------------------------------------------------------------


def test_every_input_is_accounted_for_with_a_reason(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    scenario_folder(scenarios, "2", "{'b': 2}")
    scenario_folder(scenarios, "99", "{'never': 'answered'}")
    runs = tmp_path / "runs"
    write_json(runs / "ok.json", make_run("ok", "1", '{"a": 1}'))
    write_json(runs / "empty.json", make_run("empty", "2", ""))
    write_json(runs / "null.json", make_run("null", "1", None))
    write_json(runs / "missing.json", make_run("missing", "1", omit=("answer",)))
    write_json(runs / "number.json", make_run("number", "2", 42))
    write_json(runs / "object.json", make_run("object", "2", {"b": 2}))
    write_json(runs / "list.json", make_run("list", "2", ["b"]))
    write_json(runs / "orphan.json", make_run("orphan", "12345", '{"a": 1}'))
    (runs / "broken.json").write_text('{"run_id": "broken", "answer": ', encoding="utf-8")
    reports = tmp_path / "reports"

    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    totals = aggregate["totals"]
    assert totals["runs_read"] == 9
    assert totals["scored"] == 2
    assert totals["passed"] == 1
    assert totals["unscored"] == 5
    assert totals["no_answer"] == 5
    assert totals["errors"] == 0
    assert totals["unreadable"] == 1
    assert totals["no_scenario"] == 1
    assert totals["skipped"] == 2
    assert totals["scenarios_loaded"] == 3
    assert totals["scenarios_without_runs"] == 1

    by_run = reports_by_run_id(reports)
    assert set(by_run) == {"ok", "empty", "null", "missing", "number", "object", "list"}
    # An empty string is an answer: scored, and it fails.
    assert by_run["empty"]["score"]["status"] == "scored"
    assert by_run["empty"]["score"]["passed"] is False
    assert by_run["empty"]["answer"] == ""
    for run_id in ("null", "missing", "number", "object", "list"):
        score = by_run[run_id]["score"]
        assert score["status"] == "unscored", run_id
        assert "no answer" in score["rationale"], (run_id, score["rationale"])
    # The answer is kept as recorded, whatever its type.
    assert by_run["number"]["answer"] == 42
    assert by_run["object"]["answer"] == {"b": 2}

    not_scored = aggregate["not_scored"]
    assert {item["run_id"] for item in not_scored["unscored"]} == {
        "null",
        "missing",
        "number",
        "object",
        "list",
    }
    for item in not_scored["unscored"]:
        assert "no answer" in item["reason"]
        assert (reports / item["report_file"]).is_file()
    [unreadable] = not_scored["unreadable"]
    assert unreadable["source"].endswith("broken.json")
    assert "JSON" in unreadable["reason"]
    [orphan] = not_scored["no_scenario"]
    assert orphan["run_id"] == "orphan"
    assert orphan["source"].endswith("orphan.json")
    assert "no scenario" in orphan["reason"]
    assert "12345" in orphan["reason"]
    [unanswered] = not_scored["no_run"]
    assert unanswered["scenario_id"] == "99"
    assert "no run" in unanswered["reason"]


def test_scenario_problems_and_errors_are_reported(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}", rules={"keys": {"a": {"abs_tol": "wide"}}})
    empty = scenarios / "scenario_2"
    empty.mkdir(parents=True)
    (empty / "groundtruth.txt").write_text("  \n", encoding="utf-8")
    write_json(
        scenarios / "judged.json",
        [{"id": "3", "text": "summarise", "characteristic_form": "a summary"}],
    )
    broken_rules = scenario_folder(scenarios, "4", "{'a': 1}")
    (broken_rules / "groundtruth_eval.json").write_text("{not json", encoding="utf-8")
    runs = tmp_path / "runs"
    write_jsonl(
        runs / "runs.jsonl",
        [
            make_run("bad-rules", "1", '{"a": 1}'),
            make_run("no-gt", "2", '{"a": 1}'),
            make_run("judged", "3", "a summary"),
            make_run("broken-rules", "4", '{"a": 1}'),
        ],
    )
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    totals = aggregate["totals"]
    assert totals["runs_read"] == 4
    assert totals["errors"] == 3  # scenarios 1 and 4: rules broken; 2: empty ground truth
    assert totals["unscored"] == 1  # scenario 3: judge-only
    assert totals["no_scenario"] == 0
    by_run = reports_by_run_id(reports)
    assert by_run["no-gt"]["score"]["status"] == "error"
    assert "groundtruth.txt is empty" in by_run["no-gt"]["score"]["rationale"]
    assert by_run["bad-rules"]["score"]["status"] == "error"
    assert "abs_tol" in by_run["bad-rules"]["score"]["rationale"]
    assert by_run["broken-rules"]["score"]["status"] == "error"
    assert "groundtruth_eval.json" in by_run["broken-rules"]["score"]["rationale"]
    assert {item["run_id"] for item in aggregate["not_scored"]["errors"]} == {
        "bad-rules",
        "broken-rules",
        "no-gt",
    }
    assert by_run["judged"]["score"]["status"] == "unscored"
    problems = aggregate["scenario_problems"]
    assert any("groundtruth_eval.json" in p["source"] for p in problems), problems
    assert any("empty" in p["reason"] for p in problems), problems
    assert all(p["reason"] for p in problems)


# --- report file names ----------------------------------------------------------------------


def test_hostile_run_ids_never_write_outside_the_reports_dir(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    hostile_ids = [
        "../../x",
        "../x",
        "..",
        ".",
        "a/b",
        "a\\b",
        str(tmp_path / "absolute"),
        "_aggregate",
        "results",
        "con",
        "x" * 500,
        "",
    ]
    write_jsonl(
        runs / "runs.jsonl",
        [make_run(run_id, "1", '{"a": 1}') for run_id in hostile_ids],
    )
    reports = tmp_path / "deep" / "er" / "reports"
    before = files_under(tmp_path)

    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)

    created = files_under(tmp_path) - before
    outside = [path for path in created if reports not in path.parents]
    assert outside == [], f"files written outside the reports dir: {outside}"
    assert [p.name for p in reports.parent.iterdir()] == ["reports"]
    assert not (tmp_path / "deep" / "x.json").exists()
    assert not (tmp_path / "x.json").exists()

    aggregate = check_reports(reports)
    assert aggregate["totals"]["scored"] == len(hostile_ids)
    assert aggregate["totals"]["passed"] == len(hostile_ids)
    # Each run has its own report, with its id as written, in a flat, sanitised file name.
    per_run = read_run_reports(reports)
    assert len(per_run) == len(hostile_ids)
    assert sorted(r["run_id"] for r in per_run.values()) == sorted(hostile_ids)
    for name in per_run:
        assert "/" not in name and "\\" not in name
        assert not name.startswith(".")
    # The evaluator's own files were not overwritten by runs named after them.
    assert json.loads((reports / "_aggregate.json").read_text(encoding="utf-8"))["totals"]
    assert len(read_results(reports)) == len(hostile_ids)
    assert (reports / "x.json").is_file()
    files = {line["run_id"]: line["report_file"] for line in read_results(reports)}
    assert files["../../x"] == "x.json"
    assert files["a/b"] == "a_b.json"


def test_run_id_with_a_slash_does_not_crash(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("a/b", "1", '{"a": 2}'))
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    check_reports(reports)
    report = reports_by_run_id(reports)["a/b"]
    assert report["score"]["passed"] is False
    assert not (reports / "a").exists()


def test_duplicate_run_ids_get_separate_reports(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "first.json", make_run("r1", "1", '{"a": 1}'))
    write_json(runs / "second.json", make_run("r1", "1", '{"a": 2}'))
    write_json(runs / "third.json", make_run("R1", "1", '{"a": 3}'))
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    check_reports(reports)

    per_run = read_run_reports(reports)
    assert len(per_run) == 3
    assert len({name.lower() for name in per_run}) == 3  # safe on case-insensitive disks too
    answers = sorted(report["answer"] for report in per_run.values())
    assert answers == ['{"a": 1}', '{"a": 2}', '{"a": 3}']
    assert sorted(report["run_id"] for report in per_run.values()) == ["R1", "r1", "r1"]
    passed = [r["score"]["passed"] for r in per_run.values() if r["answer"] == '{"a": 1}']
    assert passed == [True]
    lines = read_results(reports)
    assert len({line["report_file"] for line in lines}) == 3


# --- joining runs to scenarios --------------------------------------------------------------


def test_several_scenario_paths_and_formats(tmp_path: Path) -> None:
    folders = tmp_path / "folders"
    scenario_folder(folders, "1", "{'a': 1}")
    scenario_folder(
        folders,
        "2",
        '{"asset": "COMP-01", "failed_at": "2023-04-02T10:15:00Z"}',
        rules={"keys": {"answer.failed_at": {"time_tol_s": 3600}}},
    )
    as_list = write_json(
        tmp_path / "files" / "list.json",
        [
            {"id": "3", "text": "q3", "expected_answer": "[1, 2, 3]", "type": "list"},
            {
                "id": 4,
                "text": "q4",
                "expected_answer": "{'kwh': 10.0}",
                "groundtruth_eval": {"keys": {"kwh": {"abs_tol": 0.5}}},
            },
        ],
    )
    as_object = write_json(
        tmp_path / "files" / "wrapped.json",
        {"scenarios": [{"id": "scenario_5", "text": "q5", "expected_answer": "34"}]},
    )
    as_lines = write_jsonl(
        tmp_path / "more" / "lines.jsonl",
        [
            {"id": "6", "text": "q6", "expected_answer": "C", "type": "mcq"},
            {"id": "7", "text": "q7", "expected_answer": "{'open': 3}"},
        ],
    )
    runs = tmp_path / "runs"
    write_jsonl(
        runs / "all.jsonl",
        [
            make_run("r1", "1", '{"a": 1}'),
            make_run("r2", "2", "{'asset': 'COMP-01', 'failed_at': '2023-04-02T10:40:00Z'}"),
            make_run("r3", "3", "[3, 1, 2]"),
            make_run("r4", "4", '{"kwh": 10.4}'),
            make_run("r5", "5", "The answer is 34."),
            make_run("r6", "6", "Comparing the values, the correct option is C."),
            make_run("r7", "7", "Final Answer: {'open': 3}"),
        ],
    )
    reports = tmp_path / "reports"
    proc = assay(
        "evaluate",
        "--trajectories",
        runs,
        "--scenarios",
        folders,
        as_list,
        "--scenarios",
        as_object,
        as_lines,
        "--reports-dir",
        reports,
    )
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    totals = aggregate["totals"]
    assert totals["scenarios_loaded"] == 7
    assert totals["scored"] == 7
    by_run = reports_by_run_id(reports)
    failed = {
        run_id: r["score"]["rationale"] for run_id, r in by_run.items() if not r["score"]["passed"]
    }
    assert failed == {}
    assert totals["passed"] == 7
    assert by_run["r5"]["scenario_id"] == "scenario_5"  # shown as written
    assert by_run["r3"]["question"] == "a question"
    assert set(aggregate["by_scenario_type"]) >= {"list", "mcq"}
    assert aggregate["scenario_problems"] == []


@pytest.mark.parametrize(
    "spelling",
    ["scenario_11", "Scenario-11", "11", 11, 11.0, "11.0", "011", " 11 "],
    ids=repr,
)
def test_scenario_id_spellings_join(tmp_path: Path, spelling: Any) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "11", "{'a': 1}")
    write_json(scenarios / "more.json", [{"id": "scenario_12", "expected_answer": "{'b': 2}"}])
    runs = tmp_path / "runs"
    # The same spelling, for scenario 12 (whose file spells its id `scenario_12`).
    twelve = spelling.replace("11", "12") if isinstance(spelling, str) else spelling + 1
    write_jsonl(
        runs / "runs.jsonl",
        [make_run("run-11", spelling, '{"a": 1}'), make_run("run-12", twelve, '{"b": 2}')],
    )
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    assert aggregate["totals"]["scored"] == 2
    assert aggregate["totals"]["passed"] == 2
    assert aggregate["totals"]["no_scenario"] == 0
    by_run = reports_by_run_id(reports)
    assert by_run["run-11"]["scenario_id"] == "11"
    assert by_run["run-12"]["scenario_id"] == "scenario_12"


def test_scenario_id_falls_back_to_file_stem_then_run_id(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    for number in range(1, 6):
        scenario_folder(scenarios, str(number), f"{{'n': {number}}}")
    runs = tmp_path / "runs"
    # No scenario_id: the file's stem names the scenario.
    write_json(runs / "1.json", make_run("stem-run", None, '{"n": 1}'))
    write_json(
        runs / "scenario_2.json", make_run("stem-run-2", None, '{"n": 2}', omit=("scenario_id",))
    )
    # No scenario_id and a stem that is no scenario: the run_id does.
    write_json(runs / "whatever.json", make_run("3", None, '{"n": 3}'))
    # A scenario_id wins over the stem.
    write_json(runs / "5.json", make_run("explicit", "4", '{"n": 4}'))
    # In a JSONL file there is no per-run stem: the run_id is next.
    write_jsonl(runs / "batch.jsonl", [make_run("scenario_5", None, '{"n": 5}')])
    # Nothing matches at all.
    write_json(runs / "nomatch.json", make_run("nomatch", None, '{"n": 1}'))
    reports = tmp_path / "reports"

    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    by_run = reports_by_run_id(reports)
    assert {run_id: r["scenario_id"] for run_id, r in by_run.items()} == {
        "stem-run": "1",
        "stem-run-2": "2",
        "3": "3",
        "explicit": "4",
        "scenario_5": "5",
    }
    assert all(r["score"]["passed"] for r in by_run.values())
    [orphan] = aggregate["not_scored"]["no_scenario"]
    assert orphan["run_id"] == "nomatch"
    assert aggregate["totals"]["scenarios_without_runs"] == 0


# --- the two entry points and the console ---------------------------------------------------


def _strip_generated_at(aggregate: dict[str, Any]) -> dict[str, Any]:
    """The aggregate without what differs between two runs of the same evaluation into two
    directories: when it was written and where."""
    options = {k: v for k, v in aggregate["options"].items() if k != "reports_dir"}
    return {k: v for k, v in aggregate.items() if k != "generated_at"} | {"options": options}


def test_evaluate_script_is_assay_evaluate(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1, 'b': [1, 2]}")
    scenario_folder(scenarios, "2", "34")
    scenario_folder(scenarios, "3", "{'never': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", "{'b': [2, 1], 'a': 1}"))
    write_json(runs / "2.json", make_run("2", "2", "I count 35."))
    write_json(runs / "x.json", make_run("x", "404", "?"))
    write_json(runs / "n.json", make_run("n", "1", None))
    (runs / "bad.jsonl").write_text("not json\n", encoding="utf-8")

    with_assay = tmp_path / "reports-assay"
    with_evaluate = tmp_path / "reports-evaluate"
    first = evaluate(runs, scenarios, with_assay, "--list-order", "content", script="assay")
    second = evaluate(runs, scenarios, with_evaluate, "--list-order", "content", script="evaluate")
    assert first.returncode == second.returncode == 0, explain(first) + explain(second)
    assert first.stdout.replace(str(with_assay), "R") == second.stdout.replace(
        str(with_evaluate), "R"
    )

    check_reports(with_assay)
    check_reports(with_evaluate)
    assert read_run_reports(with_assay) == read_run_reports(with_evaluate)
    assert read_results(with_assay) == read_results(with_evaluate)
    assert _strip_generated_at(read_aggregate(with_assay)) == _strip_generated_at(
        read_aggregate(with_evaluate)
    )

    # Same exit codes for the same problems.
    for extra in (["--fail-under", "0.9"], ["--fail-under", "7"], ["--bogus"]):
        a = evaluate(runs, scenarios, tmp_path / "ra", *extra, script="assay")
        e = evaluate(runs, scenarios, tmp_path / "re", *extra, script="evaluate")
        assert a.returncode == e.returncode != 0, (extra, explain(a), explain(e))
    missing_a = evaluate(tmp_path / "nope", scenarios, tmp_path / "ra", script="assay")
    missing_e = evaluate(tmp_path / "nope", scenarios, tmp_path / "re", script="evaluate")
    assert missing_a.returncode == missing_e.returncode == 3


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    # `assay evaluate ... | head -0`: the summary meets a closed pipe. The command ends with
    # code 1, as Python's own tools do, not with a traceback, and its reports are complete.
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    reports = tmp_path / "reports"
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = assay(
            "evaluate", "--trajectories", runs, "--scenarios", scenarios, "--reports-dir", reports,
            stdout=write_end, stderr=subprocess.PIPE,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert (reports / "_aggregate.json").exists()
    assert len((reports / "results.jsonl").read_text().splitlines()) == 1


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_a_closed_standard_stream_loses_what_it_would_show_not_the_run(
    tmp_path: Path, closed: int
) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    reports = tmp_path / "reports"
    args = ["evaluate", "--trajectories", runs, "--scenarios", scenarios, "--reports-dir", reports]
    proc = assay(*args, preexec_fn=lambda: os.close(closed))
    assert proc.returncode == 0, explain(proc)
    assert (proc.stdout == "") if closed == 1 else ("runs read" in proc.stdout)
    assert proc.stderr == ""
    check_reports(reports)
    # An error said on a closed standard error is lost; its exit code is not.
    missing = assay(
        *args[:2], tmp_path / "nope", *args[3:], preexec_fn=lambda: os.close(closed)
    )
    assert missing.returncode == 3


def test_verbose_lists_every_reason(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    orphans = [f"orphan-{i:02d}" for i in range(14)]
    for run_id in orphans:
        write_json(runs / f"{run_id}.json", make_run(run_id, f"missing-{run_id}", '{"a": 1}'))

    quiet = evaluate(runs, scenarios, tmp_path / "r0", "-q")
    assert quiet.returncode == 0, explain(quiet)
    assert quiet.stdout == ""

    terse = evaluate(runs, scenarios, tmp_path / "r1")
    assert terse.returncode == 0, explain(terse)
    listed = [run_id for run_id in orphans if f"{run_id}.json" in terse.stdout]
    assert 0 < len(listed) < len(orphans)
    assert "-v" in terse.stdout  # says how to see the rest

    verbose = evaluate(runs, scenarios, tmp_path / "r2", "-v")
    assert verbose.returncode == 0, explain(verbose)
    for run_id in orphans:
        line = next((ln for ln in verbose.stdout.splitlines() if f"{run_id}.json" in ln), None)
        assert line is not None, f"{run_id} not listed with -v:\n{verbose.stdout}"
        assert "no scenario" in line
        assert f"missing-{run_id}" in line  # the ids it tried
    aggregate = check_reports(tmp_path / "r2")
    assert aggregate["totals"]["no_scenario"] == len(orphans)


# --- the shipped examples -------------------------------------------------------------------


def test_shipped_examples_run_clean(tmp_path: Path) -> None:
    trajectories = EXAMPLES / "trajectories"
    scenarios = EXAMPLES / "scenarios"
    if not trajectories.is_dir() or not scenarios.is_dir():
        pytest.skip(f"no examples at {EXAMPLES}")
    reports = tmp_path / "reports"
    before = files_under(EXAMPLES)
    proc = assay(
        "evaluate",
        "--trajectories",
        trajectories,
        "--scenarios",
        scenarios,
        "--reports-dir",
        reports,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, explain(proc)
    assert files_under(EXAMPLES) == before, "evaluating must not write into its inputs"
    aggregate = check_reports(reports)
    totals = aggregate["totals"]
    assert totals["scored"] >= 1
    assert totals["passed"] >= 1
    # The README promises each ugly case is in the example set and accounted for.
    assert totals["no_answer"] >= 1
    assert totals["unreadable"] >= 1
    assert totals["no_scenario"] >= 1
    assert totals["scenarios_without_runs"] >= 1
    assert aggregate["interrupted"] is False


# --- hostile answers ------------------------------------------------------------------------


def test_hostile_answers_are_recorded_on_their_own_runs(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "11", "{'energy': 14, 'material': 48}")
    scenario_folder(scenarios, "14", "34")
    big_number = "9" * 5000
    runs = tmp_path / "runs"
    write_jsonl(
        runs / "runs.jsonl",
        [
            make_run("good-before", "11", '{"energy": 14, "material": 48}'),
            make_run("brackets", "11", "[" * 100_000),
            make_run("digits", "14", big_number),
            make_run("digits-vs-dict", "11", big_number),
            make_run("bad-key", "11", "{[1]: 2}"),
            make_run("good-count", "14", "The answer is 34."),
            make_run("good-after", "11", "Final Answer: {'material': 48, 'energy': 14}"),
        ],
    )
    # A run file that is itself hostile: a bare 5,000-digit JSON number as the answer.
    (runs / "number.jsonl").write_text(
        '{"run_id": "raw-number", "scenario_id": "14", "answer": ' + big_number + "}\n",
        encoding="utf-8",
    )
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    totals = aggregate["totals"]
    assert totals["runs_read"] == 8

    by_run = reports_by_run_id(reports)
    for run_id in ("good-before", "good-count", "good-after"):
        assert by_run[run_id]["score"]["passed"] is True, by_run[run_id]["score"]
    for run_id in ("digits", "digits-vs-dict", "bad-key"):
        score = by_run[run_id]["score"]
        assert score["status"] == "scored", (run_id, score)
        assert score["passed"] is False, run_id
        assert score["score"] == 0.0, run_id
        assert score["details"]["total_gold_keys"] >= 1
    # Too deep for the parser: assay did not read it, which is no verdict on the agent.
    brackets = by_run["brackets"]["score"]
    assert brackets["status"] == "unscored" and brackets["details"]["reason"] == "answer_over_limit"
    assert by_run["brackets"]["answer"] == "[" * 100_000
    assert by_run["digits"]["answer"] == big_number
    brackets = by_run["brackets"]["score"]["details"]
    assert brackets["parse"]["model"] == "rejected"
    assert "deep" in brackets["parse"]["model_error"]
    assert "unhashable" in by_run["bad-key"]["score"]["details"]["parse"]["model_error"]
    assert totals["passed"] == 3

    # The raw-number run is accounted for, not lost.
    raw = by_run.get("raw-number")
    if raw is None:
        [problem] = aggregate["not_scored"]["unreadable"]
        assert problem["source"].endswith("number.jsonl:1")
    else:
        assert raw["score"]["status"] in ("scored", "unscored")


def test_stderr_stays_quiet_for_ordinary_bad_answers(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_jsonl(
        runs / "runs.jsonl",
        [
            make_run("prose", "1", "I could not find it."),
            make_run("half", "1", '{"a": '),
            make_run("code", "1", "{'a': __import__('os').getcwd()}"),
        ],
    )
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports, "-q")
    assert proc.returncode == 0, explain(proc)
    assert proc.stdout == ""
    assert proc.stderr == ""
    check_reports(reports)
    by_run = reports_by_run_id(reports)
    assert all(r["score"]["passed"] is False for r in by_run.values())


def test_stderr_stays_quiet_for_answers_that_are_not_literals(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", "[1if 1else 2]"))
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports, "-q")
    assert proc.returncode == 0, explain(proc)
    assert read_aggregate(reports)["totals"]["scored"] == 1
    assert proc.stderr == ""


def test_reports_dir_inside_the_runs_dir_is_not_read_as_runs(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    reports = runs / "reports"
    for _ in range(2):  # a second evaluation finds the first one's reports too
        proc = evaluate(runs, scenarios, reports)
        assert proc.returncode == 0, explain(proc)
        aggregate = check_reports(reports)
        assert aggregate["totals"]["runs_read"] == 1
        assert [r["run_id"] for r in read_run_reports(reports).values()] == ["1"]


def test_reports_dir_may_not_be_the_runs_dir(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    proc = evaluate(runs, scenarios, runs)
    assert proc.returncode == 2, explain(proc)
    assert "--reports-dir" in proc.stderr
    assert sorted(p.name for p in runs.iterdir()) == ["1.json"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers need os.fork")
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_ctrl_c_with_workers_stops_at_once_and_keeps_what_finished(
    tmp_path: Path, signame: str
) -> None:
    # SIGTERM (what `timeout` sends) is handled as Ctrl-C is: regression, it used to end the
    # evaluation with no aggregate and reports that results.jsonl did not list.
    import signal
    import time

    signum = getattr(signal, signame)

    runs, scenarios, reports = tmp_path / "runs", tmp_path / "scenarios", tmp_path / "reports"
    (scenarios / "scenario_1").mkdir(parents=True)
    (scenarios / "scenario_1" / "groundtruth.txt").write_text("{'a': [1, 2, 3], 'b': 'x'}")
    runs.mkdir()
    answer = json.dumps('{"a": [3, 2, 1], "b": "x"}')
    for i in range(6000):  # long enough to be stopped midway on any machine
        (runs / f"r{i:05d}.json").write_text(
            f'{{"run_id": "r{i}", "scenario_id": "1", "answer": {answer}}}'
        )
    # SIG_DFL in the child, whatever this test run inherited (a suite started in the
    # background has SIGINT ignored, and Python then installs no Ctrl-C handler of its own).
    proc = popen(
        "evaluate", "--trajectories", runs, "--scenarios", scenarios, "--reports-dir", reports,
        "--workers", "2",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False,
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )  # fmt: skip
    lines = reports / "results.jsonl"
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if lines.exists() and lines.stat().st_size > 0:  # some results are in
            break
        time.sleep(0.005)
    if proc.poll() is not None:
        pytest.skip("the evaluation finished before it could be interrupted")
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err  # 130 (Ctrl-C) or 143 (SIGTERM)
    assert b"interrupted; reports of finished runs are in" in err
    aggregate = json.loads((reports / "_aggregate.json").read_text())
    assert aggregate["interrupted"] is True
    scored = aggregate["totals"]["scored"]
    assert 0 < scored < 6000
    names = [p.name for p in reports.iterdir()]
    assert not [n for n in names if n.endswith(".tmp")]  # no temporaries left behind
    reports_written = [n for n in names if n not in OWN_FILES]
    assert len(reports_written) == scored == len(lines.read_text().splitlines())
    # Workers are forks of the evaluation: the same command line, with this test's own
    # reports directory in it. None may outlive it.
    leftovers = [p for p in Path("/proc").glob("[0-9]*") if str(reports) in _command_line(p)]
    assert leftovers == []


def _command_line(process: Path) -> str:
    try:
        return (process / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_a_results_file_that_is_a_symlink_is_refused_not_followed(tmp_path: Path) -> None:
    # Regression: with reports/results.jsonl a symbolic link to a file elsewhere, evaluate
    # truncated and overwrote that file (issue 13, item 5).
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("keep me\n")
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "results.jsonl").symlink_to(elsewhere)
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 3, explain(proc)
    assert "symbolic link" in proc.stderr
    assert elsewhere.read_text() == "keep me\n"


def test_an_empty_reports_dir_is_a_usage_error(tmp_path: Path) -> None:
    # Regression: --reports-dir "" wrote reports into the current directory (issue 13, 13).
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    proc = assay("evaluate", "--trajectories", runs, "--scenarios", scenarios,
               "--reports-dir", "", cwd=tmp_path)
    assert proc.returncode == 2, explain(proc)
    assert "--reports-dir" in proc.stderr
    assert not (tmp_path / "results.jsonl").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="advisory locks (flock) are POSIX")
def test_a_second_evaluation_into_a_busy_reports_dir_fails_at_once(tmp_path: Path) -> None:
    # Regression: two evaluations into one directory both exited 0 and left interleaved
    # results.jsonl lines and reports listed nowhere (issue 13, item 9). A lock held by a
    # killed process is released by the kernel, so it is never obeyed after the fact.
    import fcntl

    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    reports = tmp_path / "reports"
    assert evaluate(runs, scenarios, reports).returncode == 0
    lines = (reports / "results.jsonl").read_bytes()
    with (reports / "results.jsonl").open("ab") as held:  # as a running evaluation holds it
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        busy = evaluate(runs, scenarios, reports)
        assert busy.returncode == 3, explain(busy)
        assert "another evaluation is writing into this reports directory" in busy.stderr
        assert (reports / "results.jsonl").read_bytes() == lines  # the holder's, untouched
    assert evaluate(runs, scenarios, reports).returncode == 0  # released: free again


def test_temporaries_a_killed_evaluation_left_are_removed_by_the_next(tmp_path: Path) -> None:
    # Regression: kill -9 and a full disk left hidden .assay-*.tmp files that later runs into
    # the directory never removed (issue 13, item 10).
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / ".assay-4242-7.tmp").write_text("half a report")
    (reports / "notes.txt").write_text("the user's own file")
    assert evaluate(runs, scenarios, reports).returncode == 0
    names = sorted(p.name for p in reports.iterdir())
    assert names == [
        ".assay_reports", "1.json", "_aggregate.json", "_config.json", "notes.txt", "results.jsonl"
    ]


@pytest.mark.parametrize("target", ["missing/page.html", "reports/1.json", "."])
def test_an_html_path_that_cannot_be_written_is_refused_before_scoring(
    tmp_path: Path, target: str
) -> None:
    runs, scenarios = _half_passing(tmp_path)
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports, "--html", str(tmp_path / target))
    assert proc.returncode == 3, explain(proc)
    assert "cannot write the HTML report to" in proc.stderr
    assert not (reports / "results.jsonl").exists()  # nothing was scored
