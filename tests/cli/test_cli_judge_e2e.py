"""End-to-end: `assay evaluate` with judges, talking to a real chat-completions server.

The server (tests/chat_server.py) runs on 127.0.0.1 in this process; the `assay` console script
runs as a subprocess and reaches it over a socket through `LOCAL_BASE_URL`, exactly as it would
reach a vLLM server or a LiteLLM proxy.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_cli_evaluate_e2e import (
    make_run,
    read_aggregate,
    read_results,
    reports_by_run_id,
    write_json,
)

from _cli import assay, explain
from chat_server import ChatServer, RecordedRequest, Reply

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

JUDGE = "local/judge-1"


def judge_cli(
    server: ChatServer | None, tmp_path: Path, *args: Any
) -> subprocess.CompletedProcess[str]:
    """`assay evaluate *args` with its own cache under `tmp_path`, reaching `server` (if any)
    through LOCAL_BASE_URL."""
    env = {
        "ASSAY_CACHE_DIR": str(tmp_path / "cache"),
        "LOCAL_BASE_URL": None if server is None else server.base_url,
    }
    return assay("evaluate", *args, env=env)


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "right.json", make_run("right", "1", "Three pumps failed: P-1, P-2, P-3."))
    write_json(runs / "wrong.json", make_run("wrong", "1", "Two pumps failed."))
    write_json(runs / "silent.json", make_run("silent", "1", None))
    write_json(
        gt / "scenarios.json",
        [{"id": "1", "text": "How many pumps failed?", "characteristic_form": "three pumps"}],
    )
    return runs, gt


def grade(request: RecordedRequest) -> Reply:
    """A judge that passes answers saying 'Three' and fails the rest."""
    prompt = request.body["messages"][-1]["content"]
    right = "Three pumps" in prompt
    return Reply.ok(
        {"score": 1.0 if right else 0.0, "passed": right, "rationale": "counted the pumps"},
        input_tokens=200,
        output_tokens=30,
    )


def evaluate_with_judge(
    server: ChatServer | None, tmp_path: Path, reports: str, *extra: Any
) -> subprocess.CompletedProcess[str]:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    return judge_cli(
        server,
        tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / reports,
        "--scorer", "llm_judge", "--judge-model", JUDGE, *extra,
    )  # fmt: skip


def test_judge_verdicts_usage_and_a_cached_rerun(chat_server: ChatServer, tmp_path: Path) -> None:
    write_inputs(tmp_path)
    chat_server.handler = grade
    proc = evaluate_with_judge(chat_server, tmp_path, "first")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(tmp_path / "first")
    assert by_run["right"]["score"]["passed"] is True
    assert by_run["wrong"]["score"]["passed"] is False
    assert by_run["silent"]["score"]["status"] == "unscored"  # no answer: not judged
    assert len(chat_server.requests) == 2
    body = chat_server.requests[0].body
    assert body["model"] == "judge-1"
    assert body["response_format"]["type"] == "json_schema"
    aggregate = read_aggregate(tmp_path / "first")
    assert aggregate["totals"]["scored"] == 2 and aggregate["totals"]["unscored"] == 1
    assert aggregate["judge_usage"][JUDGE]["calls"] == 2
    assert aggregate["judge_usage"][JUDGE]["input_tokens"] == 400
    assert f"judge {JUDGE}: 2 calls (0 from the cache)" in proc.stdout

    again = evaluate_with_judge(chat_server, tmp_path, "second")
    assert again.returncode == 0, explain(again)
    assert len(chat_server.requests) == 2  # every verdict came from the cache
    cached = read_aggregate(tmp_path / "second")["judge_usage"][JUDGE]
    assert (cached["calls"], cached["cached_calls"], cached["cost_usd"]) == (2, 2, 0.0)
    first_lines = [line["score"] for line in read_results(tmp_path / "first")]
    second_lines = [line["score"] for line in read_results(tmp_path / "second")]
    for first, second in zip(first_lines, second_lines, strict=True):
        assert (first["score"], first["passed"]) == (second["score"], second["passed"])


def test_faults_become_unscored_runs_with_their_reasons(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    limited: list[str] = []

    def faulty(request: RecordedRequest) -> Reply:
        prompt = request.body["messages"][-1]["content"]
        if "Three pumps" in prompt or "cannot be used" in prompt:
            return Reply.ok("this is not json")  # the right answer's judge never makes sense
        if not limited:
            limited.append("once")
            return Reply.rate_limited(retry_after=0)  # the wrong answer's first try: a 429
        return Reply.ok({"score": 0.0, "passed": False, "rationale": "two is wrong"})

    chat_server.handler = faulty
    proc = evaluate_with_judge(chat_server, tmp_path, "faults", "--no-cache")
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(tmp_path / "faults")
    right = by_run["right"]["score"]
    assert right["status"] == "unscored" and right["score"] is None
    assert right["details"]["reason"] == "invalid_verdict"
    assert right["details"]["raw_replies"] == ["this is not json", "this is not json"]
    assert by_run["wrong"]["score"]["passed"] is False  # the 429 was retried
    assert [reply.status for reply in chat_server.replies].count(429) == 1
    totals = read_aggregate(tmp_path / "faults")["totals"]
    assert totals["scored"] == 1 and totals["pass_rate"] == 0.0  # the unscored run is apart


def test_a_judge_that_times_out_is_unscored(chat_server: ChatServer, tmp_path: Path) -> None:
    write_inputs(tmp_path)
    chat_server.default = Reply.ok({"score": 1, "passed": True, "rationale": "x"}).after(2.0)
    proc = evaluate_with_judge(
        chat_server, tmp_path, "slow", "--no-cache", "--judge-timeout", "0.2",
        "--judge-retries", "1",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    for run_id in ("right", "wrong"):
        score = reports_by_run_id(tmp_path / "slow")[run_id]["score"]
        assert score["status"] == "unscored" and score["details"]["reason"] == "timeout"
    assert len(chat_server.requests) == 4  # two attempts for each of the two runs


def test_replay_makes_no_call_and_a_miss_is_unscored(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    proc = evaluate_with_judge(chat_server, tmp_path, "replay", "--replay")
    assert proc.returncode == 0, explain(proc)
    assert chat_server.requests == []
    score = reports_by_run_id(tmp_path / "replay")["right"]["score"]
    assert score["status"] == "unscored" and score["details"]["reason"] == "cache_miss"


def test_a_model_does_not_judge_its_own_runs(chat_server: ChatServer, tmp_path: Path) -> None:
    runs, _ = write_inputs(tmp_path)
    write_json(runs / "own.json", make_run("own", "1", "Three pumps.", model=JUDGE))
    chat_server.handler = grade
    proc = evaluate_with_judge(chat_server, tmp_path, "own")
    assert proc.returncode == 0, explain(proc)
    own = reports_by_run_id(tmp_path / "own")["own"]["score"]
    assert own["status"] == "unscored" and own["details"]["reason"] == "self_judge"
    allowed = evaluate_with_judge(chat_server, tmp_path, "allowed", "--allow-self-judge")
    assert reports_by_run_id(tmp_path / "allowed")["own"]["score"]["passed"] is True, explain(
        allowed
    )


def test_no_server_configured_is_a_clear_usage_error(tmp_path: Path) -> None:
    write_inputs(tmp_path)
    proc = evaluate_with_judge(None, tmp_path, "none")
    assert proc.returncode == 2
    assert "LOCAL_BASE_URL" in proc.stderr
    assert not (tmp_path / "none" / "_aggregate.json").exists()


def test_static_json_and_a_judge_on_the_same_runs(chat_server: ChatServer, tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "a.json", make_run("a", "7", '{"count": 3}'))
    write_json(gt / "s.json", [{"id": "7", "text": "count?", "expected_answer": '{"count": 3}'}])
    chat_server.handler = lambda request: Reply.ok(
        {"score": 0.5, "passed": False, "rationale": "terse"}
    )
    proc = judge_cli(
        chat_server, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "both",
        "--scorer", "static_json", "--scorer", "llm_judge", "--judge-model", JUDGE,
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    report = reports_by_run_id(tmp_path / "both")["a"]
    assert [part["scorer"] for part in report["scores"]] == ["static_json", "llm_judge"]
    assert report["scores"][0]["passed"] is True and report["scores"][1]["passed"] is False
    assert report["score"]["passed"] is False
    assert (
        json.loads(json.dumps(read_aggregate(tmp_path / "both")["by_scorer"]))["llm_judge"][
            "scored"
        ]
        == 1
    )


def test_the_default_scorer_can_be_a_judge_with_the_agent_review_preset(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    criteria = {
        "task_completion": True,
        "data_retrieval_accuracy": True,
        "generalized_result_verification": True,
        "agent_sequence_correct": True,
        "clarity_and_justification": True,
        "hallucinations": False,
        "suggestions": "none",
        "rationale": "complete",
    }
    chat_server.handler = lambda request: Reply.ok(criteria)
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    proc = judge_cli(
        chat_server, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "review",
        "--scorer-default", "llm_judge", "--judge-model", JUDGE, "--judge-preset", "agent_review",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    right = reports_by_run_id(tmp_path / "review")["right"]["score"]
    assert right["passed"] is True and right["score"] == 1.0
    assert right["details"]["criteria"]["hallucinations"] is False
    assert "AGENT TRAJECTORY" in chat_server.requests[0].body["messages"][-1]["content"]


def test_a_judge_without_a_model_is_a_clear_usage_error(tmp_path: Path) -> None:
    runs, gt = write_inputs(tmp_path)
    proc = judge_cli(
        None, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "r",
        "--scorer", "llm_judge",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "a judge needs its model: give --judge-model" in proc.stderr


def test_a_price_table_of_ones_own_prices_the_judge(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    chat_server.handler = grade
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"judge-1": [1.0, 2.0]}))
    proc = evaluate_with_judge(chat_server, tmp_path, "priced", "--judge-prices", prices)
    assert proc.returncode == 0, explain(proc)
    usage = read_aggregate(tmp_path / "priced")["judge_usage"][JUDGE]
    assert usage["cost_usd"] == round(2 * (200 * 1.0 + 30 * 2.0) / 1_000_000, 6)
    prices.write_text('{"judge-1": [1.0]}')
    bad = evaluate_with_judge(chat_server, tmp_path, "bad", "--judge-prices", prices)
    assert bad.returncode == 2 and "[input, output]" in bad.stderr


def test_a_scenario_can_ask_for_a_judge_by_its_scoring_method(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "a.json", make_run("a", "json", '{"n": 1}'))
    write_json(runs / "b.json", make_run("b", "prose", "Three pumps failed."))
    write_json(
        gt / "s.json",
        [
            {"id": "json", "expected_answer": '{"n": 1}'},
            {"id": "prose", "text": "How many?", "characteristic_form": "three",
             "scoring_method": "llm_judge"},
        ],
    )  # fmt: skip
    chat_server.handler = grade
    proc = judge_cli(
        chat_server, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "mixed",
        "--judge-model", JUDGE,
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(tmp_path / "mixed")
    assert by_run["a"]["score"]["scorer"] == "static_json" and by_run["a"]["score"]["passed"]
    assert by_run["b"]["score"]["scorer"] == "llm_judge" and by_run["b"]["score"]["passed"]
    assert len(chat_server.requests) == 1


def test_judge_flags_set_the_judges_declared_options_and_dash_s_wins(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    chat_server.handler = grade
    proc = evaluate_with_judge(
        chat_server, tmp_path, "out",
        "--judge-samples", "3", "--judge-timeout", "7", "--judge-preset", "agent_review",
        "--cache-dir", tmp_path / "own-cache",
        "-S", "llm_judge.num_samples=2", "-S", "llm_judge.preset=null",
        "-S", "llm_judge.threshold=0.5",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    assert len(chat_server.requests) == 4  # two answers, two samples each (-S won over 3)
    [spec] = read_aggregate(tmp_path / "out")["scorers"]
    assert spec["name"] == "llm_judge"
    options = spec["options"]
    assert options["model"] == JUDGE and options["preset"] is None
    assert (options["num_samples"], options["threshold"]) == (2, 0.5)
    assert options["aggregation"] == "mean" and options["content_budget"] == 12_000
    assert options["client_factory"] is None
    client = options["client_options"]
    assert client["timeout_s"] == 7.0 and client["cache"] == "read_write"
    assert client["cache_dir"] == str(tmp_path / "own-cache")


def test_a_judge_given_its_model_by_dash_s_alone_is_built_and_recorded(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    chat_server.handler = grade
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    proc = judge_cli(
        chat_server, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "out",
        "--scorer", "factuality", "-S", f"factuality.model={JUDGE}",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    score = reports_by_run_id(tmp_path / "out")["right"]["score"]
    assert score["details"]["reason"] == "no_tool_results"  # built, and judged what it could
    specs = read_aggregate(tmp_path / "out")["scorers"]
    assert specs == [
        {
            "name": "factuality",
            "options": {
                "model": JUDGE,
                "num_samples": 1,
                "aggregation": "mean",
                "threshold": 1.0,
                "allow_self_judge": False,
                "content_budget": 12_000,
                "client_factory": None,
                "client_options": None,
            },
        }
    ]


def test_a_judge_answering_500_beside_static_json_is_not_a_pass(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "up.json", make_run("up", "7", '{"count": 3}'))
    write_json(runs / "down.json", make_run("down", "8", '{"pumps": 2}'))
    write_json(
        gt / "s.json",
        [
            {"id": "7", "text": "How many valves?", "expected_answer": '{"count": 3}'},
            {"id": "8", "text": "How many pumps?", "expected_answer": '{"pumps": 2}'},
        ],
    )

    def judge(request: RecordedRequest) -> Reply:
        if "pumps" in request.body["messages"][-1]["content"]:
            return Reply.error(500)  # the judge server fails on this run's question
        return Reply.ok({"score": 1.0, "passed": True, "rationale": "right"})

    chat_server.handler = judge
    proc = judge_cli(
        chat_server, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "out",
        "--scorer", "static_json", "--scorer", "llm_judge", "--judge-model", JUDGE,
        "--judge-retries", "0", "--no-cache", "--fail-under", "1.0",
    )  # fmt: skip
    assert proc.returncode == 1, explain(proc)
    assert "partially scored, counted as not passed" in proc.stderr
    assert [reply.status for reply in chat_server.replies].count(500) == 1
    report = reports_by_run_id(tmp_path / "out")["down"]
    assert [part["status"] for part in report["scores"]] == ["scored", "unscored"]
    assert report["scores"][0]["passed"] is True
    score = report["score"]
    assert (score["status"], score["passed"], score["score"]) == ("unscored", None, None)
    assert score["details"]["reason"] == "partially_scored"
    assert score["details"]["without_verdict"] == ["llm_judge"]
    assert score["rationale"].startswith("no verdict from llm_judge: judge call failed")
    aggregate = read_aggregate(tmp_path / "out")
    totals = aggregate["totals"]
    assert (totals["scored"], totals["passed"], totals["unscored"]) == (1, 1, 1)
    assert totals["partially_scored"] == 1 and totals["pass_rate"] == 0.5
    assert aggregate["by_scorer"]["llm_judge"]["unscored"] == 1
    assert aggregate["red_flags"]["figures"]["scenario_pass_rate"] == 0.5
    summary = {" ".join(line.strip("│ ").split()) for line in proc.stdout.splitlines()}
    assert "partially scored │ 1" in summary, proc.stdout
    assert "pass rate (of scored + partially scored) │ 50.0%" in summary, proc.stdout
