"""End-to-end: `assay evaluate --scorer response_match -S response_match.mode=rouge` on a
scenario file, a multi-turn scenario folder and one run file (assay JSONL, the shape live runs
are saved in), read back from the reports it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_evaluate_e2e import read_aggregate, reports_by_run_id, write_json, write_jsonl

from _cli import assay, explain

pytestmark = pytest.mark.slow  # each test runs the console script in a new process


def _turn(text: str, turn: int | None = None) -> dict[str, object]:
    step: dict[str, object] = {"text": text, "tool_calls": []}
    if turn is not None:
        step["conversation_turn"] = turn
    return step


def _run(
    run_id: str, scenario_id: str, answer: str, turns: list[dict[str, object]]
) -> dict[str, object]:
    return {
        "run_id": run_id,
        "scenario_id": scenario_id,
        "runner": "capitals-agent",
        "model": "local/test",
        "question": "q",
        "answer": answer,
        "trajectory": {"turns": turns},
    }


def test_rouge_response_match_scores_single_and_multi_turn_runs(tmp_path: Path) -> None:
    scenarios = tmp_path / "evals"
    write_json(
        scenarios / "capitals.json",
        [
            {"id": "capitals-001", "text": "Capital of France?",
             "expected_answer": "The capital of France is Paris."},
            {"id": "capitals-002", "text": "Capital of Germany?",
             "expected_answer": "Berlin is the capital of Germany."},
            {"id": "smalltalk-003", "text": "How are you?"},
        ],
    )  # fmt: skip
    dialog = scenarios / "scenario_multi-turn-004"
    (dialog / "turns" / "02").mkdir(parents=True)
    (dialog / "question.txt").write_text("Hello")
    (dialog / "groundtruth.txt").write_text("Hi, how can I help?")
    (dialog / "turns" / "02" / "question.txt").write_text("Tell me about Python")
    (dialog / "turns" / "02" / "groundtruth.txt").write_text("Python is a programming language")
    runs = write_jsonl(
        tmp_path / "runs.jsonl",
        [
            _run("r1", "capitals-001", "Paris is the capital of France.",
                 [_turn("Paris is the capital of France.")]),
            _run("r2", "capitals-002", "I am not sure.", [_turn("I am not sure.")]),
            _run("r3", "smalltalk-003", "Fine, thanks.", [_turn("Fine, thanks.")]),
            _run("r4", "multi-turn-004", "Python is a popular programming language",
                 [_turn("Hi! How can I help?", 0),
                  _turn("Python is a popular programming language", 1)]),
        ],
    )  # fmt: skip
    reports = tmp_path / "reports"
    proc = assay(
        "evaluate", "--trajectories", runs, "--scenarios", scenarios, "--reports-dir", reports,
        "--scorer", "response_match", "-S", "response_match.mode=rouge",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)

    by_run = reports_by_run_id(reports)
    single = by_run["r1"]["score"]
    assert (single["status"], single["score"], single["passed"]) == ("scored", 1.0, True)
    assert single["details"]["mode"] == "rouge" and single["details"]["threshold"] == 0.8
    failed = by_run["r2"]["score"]
    assert failed["passed"] is False and failed["score"] == pytest.approx(0.0)
    assert failed["rationale"] == "response (answer): ROUGE-1 F1 0 < threshold 0.8"
    unscored = by_run["r3"]["score"]
    assert (unscored["status"], unscored["details"]["reason"]) == ("unscored", "not_applicable")
    multi = by_run["r4"]["score"]
    assert multi["status"] == "scored" and multi["passed"] is True, multi["rationale"]
    assert multi["details"]["response_from"] == "steps"
    turns = multi["details"]["turns"]
    assert [(t["turn"], t["actual"]) for t in turns] == [
        (1, "Hi! How can I help?"), (2, "Python is a popular programming language")
    ]  # fmt: skip
    assert turns[0]["score"] == 1.0 and turns[1]["score"] == pytest.approx(10 / 11)
    assert multi["score"] == pytest.approx((1.0 + 10 / 11) / 2)

    aggregate = read_aggregate(reports)
    assert aggregate["scorers"] == [
        {"name": "response_match",
         "options": {"mode": "rouge", "threshold": None, "case_sensitive": False}}
    ]  # fmt: skip
    totals = aggregate["totals"]
    assert (totals["scored"], totals["passed"], totals["unscored"]) == (3, 2, 1)
    results = [
        json.loads(line) for line in (reports / "results.jsonl").read_text().splitlines()
    ]
    assert {row["run_id"] for row in results} == {"r1", "r2", "r3", "r4"}
