"""End-to-end: ADK eval sets as runs and as scenarios, scored turn by turn as ADK scores them.

The recorded eval set goes through `assay convert` (runs in assay JSONL keep each step's
turn) and `assay evaluate --scenarios` reads the golden eval set with its `test_config.json`.

ADK's `tool_trajectory_avg_score` gives each invocation 1.0 or 0.0 and averages them; a case
passes at the threshold of the `test_config.json` beside the eval set. So two calls swapped
inside one of two invocations score 0.5 under EXACT, and a call made one invocation early
breaks two of three invocations (0.33): both fail, where a check of the flat list of calls
would pass the moved call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli_evaluate_e2e import evaluate, read_aggregate, reports_by_run_id

from _cli import assay, explain

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

Call = tuple[str, dict[str, Any]]


def expected_invocation(user: str, answer: str, *calls: Call) -> dict[str, Any]:
    """A golden invocation as `adk web` saves it (`tool_uses` in `intermediate_data`)."""
    return {
        "invocation_id": f"e-{user[:8]}",
        "user_content": {"parts": [{"text": user}], "role": "user"},
        "final_response": {"parts": [{"text": answer}], "role": "model"},
        "intermediate_data": {
            "tool_uses": [{"id": None, "args": args, "name": name} for name, args in calls],
            "intermediate_responses": [],
        },
        "creation_timestamp": 1747337000.0,
    }


def actual_invocation(user: str, answer: str, *calls: Call) -> dict[str, Any]:
    """An invocation as an inference run records it (`invocation_events`)."""
    events = [
        {
            "author": "travel_agent",
            "content": {
                "parts": [{"function_call": {"id": f"adk-{i}", "name": name, "args": args}}],
                "role": "model",
            },
        }
        for i, (name, args) in enumerate(calls)
    ]
    return {
        "invocation_id": f"a-{user[:8]}",
        "user_content": {"parts": [{"text": user}], "role": "user"},
        "final_response": {"parts": [{"text": answer}], "role": "model"},
        "intermediate_data": {"invocation_events": events},
    }


def eval_set(set_id: str, cases: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "eval_set_id": set_id,
        "name": set_id,
        "eval_cases": [
            {
                "eval_id": eval_id,
                "conversation": conversation,
                "session_input": {"app_name": "travel", "user_id": "user", "state": {}},
            }
            for eval_id, conversation in cases.items()
        ],
    }


PARIS = {"city": "Paris"}
ROME = {"city": "Rome"}
FLIGHT = {"to": "LHR", "date": "2026-05-15"}
BOOKING = {"flight": "BA303"}


def golden() -> dict[str, Any]:
    return eval_set(
        "travel",
        {
            "swap": [
                expected_invocation(
                    "Weather and time in Paris?",
                    "Sunny, 14:00",
                    ("get_weather", PARIS),
                    ("get_time", PARIS),
                ),
                expected_invocation("And in Rome?", "Rain", ("get_weather", ROME)),
            ],
            "moved": [
                expected_invocation("Find me a flight to London", "BA303", ("find_flight", FLIGHT)),
                expected_invocation("Book it", "Booked", ("book_flight", BOOKING)),
                expected_invocation("Send the receipt", "Sent", ("send_receipt", {})),
            ],
            "same": [
                expected_invocation("Hello", "Hi!"),
                expected_invocation("Weather in Rome?", "Rain", ("get_weather", ROME)),
            ],
        },
    )


def recorded() -> dict[str, Any]:
    return eval_set(
        "travel_run",
        {
            "swap": [
                actual_invocation(
                    "Weather and time in Paris?",
                    "Sunny, 14:00",
                    ("get_time", PARIS),
                    ("get_weather", PARIS),
                ),
                actual_invocation("And in Rome?", "Rain", ("get_weather", ROME)),
            ],
            "moved": [
                # book_flight made one invocation early: the flat list of calls is unchanged.
                actual_invocation(
                    "Find me a flight to London",
                    "Booked BA303",
                    ("find_flight", FLIGHT),
                    ("book_flight", BOOKING),
                ),
                actual_invocation("Book it", "Already booked"),
                actual_invocation("Send the receipt", "Sent", ("send_receipt", {})),
            ],
            "same": [
                actual_invocation("Hello", "Hi!"),
                actual_invocation("Weather in Rome?", "Rain", ("get_weather", ROME)),
            ],
        },
    )


def write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def converted(tmp_path: Path, run_set: dict[str, Any]) -> Path:
    """The recorded eval set as assay runs, through `assay convert`."""
    source = write(tmp_path / "adk" / "travel_run.evalset.json", run_set)
    out = tmp_path / "runs.jsonl"
    proc = assay("convert", source, "--out", out)
    assert proc.returncode == 0, explain(proc)
    return out


def score_of(report: dict[str, Any]) -> dict[str, Any]:
    score: dict[str, Any] = report["score"]
    assert score["scorer"] == "trajectory"
    return score


def test_adk_verdicts_are_reproduced_turn_by_turn(tmp_path: Path) -> None:
    gt = tmp_path / "evals"
    write(gt / "travel.evalset.json", golden())
    # The older form of the criterion: a bare threshold, EXACT matching.
    write(
        gt / "test_config.json",
        {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}},
    )
    runs = converted(tmp_path, recorded())
    reports = tmp_path / "reports"
    proc = evaluate(runs, gt, reports, "--scorer", "trajectory", "-q")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)

    swap = score_of(by_run["swap"])
    assert (swap["score"], swap["passed"]) == (0.5, False)
    assert swap["details"]["mode"] == "EXACT" and swap["details"]["by_turn"] is True
    assert [turn["passed"] for turn in swap["details"]["turns"]] == [False, True]
    assert swap["rationale"].startswith("turn 0: ")
    assert "1 of 2 turns matched" in swap["rationale"]

    moved = score_of(by_run["moved"])
    assert round(moved["score"], 2) == 0.33 and moved["passed"] is False
    assert [turn["passed"] for turn in moved["details"]["turns"]] == [False, False, True]

    same = score_of(by_run["same"])
    assert (same["score"], same["passed"]) == (1.0, True)  # the turn without calls counts too
    assert len(same["details"]["turns"]) == 2

    aggregate = read_aggregate(reports)
    assert aggregate["totals"]["passed"] == 1 and aggregate["totals"]["failed"] == 2
    assert aggregate["scenario_problems"] == []  # test_config.json is not read as scenarios


def test_the_criterion_object_sets_match_type_threshold_and_ignore_args(tmp_path: Path) -> None:
    gt = tmp_path / "evals"
    write(gt / "travel.evalset.json", golden())
    write(
        gt / "test_config.json",
        {
            "criteria": {
                "tool_trajectory_avg_score": {
                    "threshold": 0.6,
                    "match_type": "IN_ORDER",
                    "ignore_args": True,
                }
            }
        },
    )
    run_set = recorded()
    # Other arguments everywhere: ignored.
    for case in run_set["eval_cases"]:
        for invocation in case["conversation"]:
            for event in invocation["intermediate_data"]["invocation_events"]:
                event["content"]["parts"][0]["function_call"]["args"] = {"city": "Oslo"}
    runs = converted(tmp_path, run_set)
    reports = tmp_path / "reports"
    proc = evaluate(runs, gt, reports, "--scorer", "trajectory", "-q")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)
    # IN_ORDER inside each turn: the swap fails its turn, 0.5 < 0.6.
    assert (score_of(by_run["swap"])["score"], score_of(by_run["swap"])["passed"]) == (0.5, False)
    # The moved call: turn 0 has its expected call (extras allowed), turn 1 lacks its own.
    moved = score_of(by_run["moved"])
    assert round(moved["score"], 2) == 0.67 and moved["passed"] is True  # 0.67 >= 0.6
    assert moved["details"]["threshold"] == 0.6


def test_an_invalid_test_config_is_a_problem_naming_file_and_field(tmp_path: Path) -> None:
    gt = tmp_path / "evals"
    write(gt / "travel.evalset.json", golden())
    config = write(
        gt / "test_config.json",
        {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "FUZZY"}}},
    )
    runs = converted(tmp_path, recorded())
    reports = tmp_path / "reports"
    proc = evaluate(runs, gt, reports, "--scorer", "trajectory", "-q")
    assert proc.returncode == 0, explain(proc)
    problems = read_aggregate(reports)["scenario_problems"]
    assert any(
        str(config) in problem["source"]
        and "criteria.tool_trajectory_avg_score.match_type" in problem["reason"]
        for problem in problems
    ), problems
    # Every case of the set is reported as unusable for trajectory checks, not checked
    # under a criterion the file did not ask for.
    for report in reports_by_run_id(reports).values():
        score = score_of(report)
        assert score["status"] == "error"
        assert "match_type" in score["rationale"]


def test_without_test_config_the_adk_default_applies(tmp_path: Path) -> None:
    gt = tmp_path / "evals"
    write(gt / "travel.evalset.json", golden())
    reports = tmp_path / "reports"
    proc = evaluate(converted(tmp_path, recorded()), gt, reports, "--scorer", "trajectory", "-q")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(reports)
    # ADK's default criterion: EXACT, threshold 1.0, arguments compared.
    assert score_of(by_run["swap"])["score"] == 0.5
    assert round(score_of(by_run["moved"])["score"], 2) == 0.33
    assert score_of(by_run["same"])["passed"] is True
