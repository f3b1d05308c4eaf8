"""End-to-end: `assay evaluate` with the trajectory scorer, alone and beside static_json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli_evaluate_e2e import (
    evaluate,
    make_run,
    read_aggregate,
    read_results,
    reports_by_run_id,
    write_json,
)

from _cli import explain

pytestmark = pytest.mark.slow  # each test runs the console script in a new process


def turns(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"tool_calls": [{"name": name, "input": args}]} for name, args in calls]


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    good = turns(("lookup_order", {"id": 7}), ("check_policy", {}), ("refund", {"id": 7}))
    reordered = turns(("lookup_order", {"id": 7}), ("refund", {"id": 7}), ("check_policy", {}))
    write_json(runs / "good.json", make_run("good", "r1", '{"refunded": true}', turns=good))
    write_json(runs / "bad.json", make_run("bad", "r1", '{"refunded": false}', turns=reordered))
    write_json(runs / "tools.json", make_run("tools", "t1", "done", turns=reordered))
    write_json(runs / "folder.json", make_run("folder", "9", "x", turns=good))
    write_json(
        gt / "scenarios.json",
        [
            {
                "id": "r1",
                "text": "Refund order 7",
                "expected_answer": '{"refunded": true}',
                "expected_trajectory": [
                    {"name": "lookup_order", "args": {"id": 7}},
                    "check_policy",
                    {"name": "refund", "args": {"id": 7}},
                ],
                "type": "refund",
            },
            {"id": "t1", "expected_tools": ["refund", "lookup_order"], "expected_answer": "done"},
        ],
    )
    folder = gt / "scenario_9"
    folder.mkdir(parents=True)
    (folder / "expected_trajectory.json").write_text(
        json.dumps({"steps": ["lookup_order", "refund"], "mode": "subsequence"})
    )
    return runs, gt


def test_trajectory_and_static_json_together(tmp_path: Path) -> None:
    runs, gt = write_inputs(tmp_path)
    reports = tmp_path / "reports"
    proc = evaluate(runs, gt, reports, "--scorer", "static_json", "--scorer", "trajectory")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)

    good = by_run["good"]
    assert good["score"]["scorer"] == "static_json+trajectory"
    assert good["score"]["passed"] is True
    assert [part["scorer"] for part in good["scores"]] == ["static_json", "trajectory"]
    trajectory = good["scores"][1]
    assert trajectory["details"]["mode"] == "strict"
    assert len(trajectory["details"]["matched"]) == 3

    bad = by_run["bad"]
    assert bad["score"]["passed"] is False
    static, trajectory = bad["scores"]
    assert static["passed"] is False and trajectory["passed"] is False
    assert trajectory["rationale"].startswith("step 1: expected check_policy, got refund")
    assert trajectory["score"] == 2 / 3
    assert bad["score"]["score"] == (static["score"] + trajectory["score"]) / 2
    assert "trajectory: step 1" in bad["score"]["rationale"]

    # Only expected tools: any order passes; the answer matches too.
    assert by_run["tools"]["score"]["passed"] is True
    # A folder with only expected_trajectory.json: static_json has nothing to compare with.
    folder = by_run["folder"]
    assert folder["scores"][1]["passed"] is True
    assert folder["scores"][1]["details"]["mode"] == "subsequence"
    assert folder["scores"][0]["status"] == "error"
    assert folder["score"]["status"] == "error"

    aggregate = read_aggregate(reports)
    assert aggregate["by_scorer"]["trajectory"]["scored"] == 4
    assert aggregate["by_scorer"]["trajectory"]["passed"] == 3
    assert aggregate["by_scorer"]["static_json"]["errors"] == 1
    assert aggregate["metrics_mean"]["trajectory"]["recall"] == (1 + 2 / 3 + 1 + 1) / 4
    assert "static_json" in aggregate["metrics_mean"]
    assert aggregate["totals"]["passed"] == 2 and aggregate["totals"]["errors"] == 1

    lines = {line["run_id"]: line for line in read_results(reports)}
    assert [p["scorer"] for p in lines["bad"]["scores"]] == ["static_json", "trajectory"]
    assert "details" not in lines["bad"]["scores"][0]["details"]  # per-key records stay out
    assert "by scorer" in proc.stdout


def test_trajectory_alone_with_a_mode_from_the_command_line(tmp_path: Path) -> None:
    runs, gt = write_inputs(tmp_path)
    reports = tmp_path / "reports"
    proc = evaluate(
        runs, gt, reports, "--scorer", "trajectory", "--trajectory-mode", "unordered", "-q"
    )
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)
    assert by_run["bad"]["score"]["scorer"] == "trajectory"
    assert "scores" not in by_run["bad"]
    assert by_run["bad"]["score"]["passed"] is True  # unordered: the order does not matter
    assert by_run["folder"]["score"]["details"]["mode"] == "subsequence"  # the scenario's own


def test_bad_trajectory_expectations_are_reported_not_fatal(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "a.json", make_run("a", "1", "x"))
    write_json(runs / "b.json", make_run("b", "2", "x"))
    write_json(
        gt / "s.json",
        [
            {"id": "1", "expected_tools": "get_work_orders"},
            {"id": "2", "expected_trajectory": ["get_work_orders"], "trajectory_mode": "fuzzy"},
        ],
    )
    reports = tmp_path / "reports"
    proc = evaluate(runs, gt, reports, "--scorer", "trajectory")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)
    assert by_run["a"]["score"]["status"] == "error"
    # The rationale names the file and the field's path in it.
    assert (
        f"{gt / 's.json'}: [0].expected_tools: Input should be a valid list, got string"
        in by_run["a"]["score"]["rationale"]
    )
    assert by_run["b"]["score"]["status"] == "error"
    assert "unknown trajectory mode 'fuzzy'" in by_run["b"]["score"]["rationale"]
    aggregate = read_aggregate(reports)
    assert aggregate["totals"]["errors"] == 2
    assert any("expected_tools" in p["reason"] for p in aggregate["scenario_problems"])


def test_the_readme_trajectory_command_on_the_shipped_examples(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    reports = tmp_path / "reports"
    proc = evaluate(
        examples / "trajectories",
        examples / "scenarios",
        reports,
        "--scorer",
        "static_json",
        "--scorer",
        "trajectory",
    )
    assert proc.returncode == 0, explain(proc)
    by_scorer = read_aggregate(reports)["by_scorer"]
    assert by_scorer["trajectory"]["passed"] >= 1
    assert by_scorer["trajectory"]["scored"] > by_scorer["trajectory"]["passed"]
    by_run = reports_by_run_id(reports)
    assert "get_sites" in by_run["12"]["scores"][1]["rationale"]


def test_red_flags_from_the_command_line(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    escalating = turns(("lookup_order", {"id": 7}), ("escalate_to_human", {}))
    write_json(runs / "a.json", make_run("a", "1", "x", turns=escalating))
    overflow = make_run("b", "1", "x")
    overflow["error"] = {"type": "BadRequestError", "message": "maximum context length exceeded"}
    write_json(runs / "b.json", overflow)
    write_json(gt / "s.json", [{"id": "1", "expected_answer": "x"}])
    reports = tmp_path / "reports"
    proc = evaluate(runs, gt, reports)
    assert proc.returncode == 0, explain(proc)
    red = read_aggregate(reports)["red_flags"]
    assert red["figures"]["escalation_rate"] == 0.5
    assert red["figures"]["context_overflow_rate"] == 0.5
    assert {f["metric"] for f in red["flags"] if f["status"] == "raised"} == {
        "escalation_rate",
        "context_overflow_rate",
    }
    assert "High escalation: escalation_rate 0.5 > 0.15" in proc.stdout
    assert reports_by_run_id(reports)["b"]["ops"]["context_overflow"] is True

    quiet = tmp_path / "quiet"
    proc = evaluate(
        runs,
        gt,
        quiet,
        "--red-flag",
        "escalation_rate=off",
        "--red-flag",
        "context_overflow_rate=0.6",
    )
    assert proc.returncode == 0, explain(proc)
    assert [f for f in read_aggregate(quiet)["red_flags"]["flags"] if f["status"] == "raised"] == []

    bad = evaluate(runs, gt, tmp_path / "bad", "--red-flag", "speed=1")
    assert bad.returncode == 2 and "FIGURE=VALUE" in bad.stderr


def test_catalog_scenarios_with_rule_checks(tmp_path: Path) -> None:
    catalog = tmp_path / "gt" / "support.yaml"
    catalog.parent.mkdir()
    catalog.write_text(
        "jobs:\n"
        "  support:\n"
        "    scenarios:\n"
        "      - id: refund\n"
        "        input: Refund order 42\n"
        "        should_escalate: false\n"
        "        expected_tools: [lookup_order, process_refund]\n"
        "        success_criteria:\n"
        "          - max_turns: 2\n"
        "          - response_contains: [refund]\n"
        "      - id: angry\n"
        "        input: I want a manager\n"
        "        should_escalate: true\n"
    )
    runs = tmp_path / "runs"
    refund = turns(("lookup_order", {"id": 42}), ("process_refund", {"id": 42}))
    write_json(runs / "refund.json", make_run("r1", "refund", "Your refund is done.", turns=refund))
    write_json(runs / "angry.json", make_run("r2", "angry", "Calm down.", turns=turns()))
    reports = tmp_path / "reports"
    scorers = ["escalation", "max_turns", "response_contains", "tool_name_match"]
    proc = evaluate(
        runs, catalog, reports, *[arg for name in scorers for arg in ("--scorer", name)]
    )
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)
    refund_parts = {part["scorer"]: part for part in by_run["r1"]["scores"]}
    assert all(refund_parts[name]["passed"] for name in scorers)
    angry_parts = {part["scorer"]: part for part in by_run["r2"]["scores"]}
    assert angry_parts["escalation"]["passed"] is False
    assert angry_parts["max_turns"]["status"] == "unscored"  # nothing to check: not a pass
    assert by_run["r2"]["score"]["passed"] is False
    assert read_aggregate(reports)["by_scorer"]["escalation"]["passed"] == 1
