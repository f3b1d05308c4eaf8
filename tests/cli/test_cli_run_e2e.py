"""`assay run` end to end: the files it writes, re-scoring them offline, resume after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from assay.cli.main import main

AGENT = '''
import asyncio, os, time
from assay.evaluation import tool

LOG = os.environ.get("AGENT_LOG")

@tool
def get_weather(city: str) -> str:
    return {"Paris": "sunny", "Oslo": "snow"}.get(city, "unknown")

@tool
def get_time(city: str) -> str:
    return "12:00"

async def agent(messages):
    text = messages[-1]["content"]
    if LOG:
        with open(LOG, "a") as log:
            log.write(text + "\\n")
    await asyncio.sleep(float(os.environ.get("AGENT_DELAY", "0")))
    if "hang" in text:
        await asyncio.sleep(60)
    if "crash" in text:
        raise RuntimeError("the agent fell over")
    city = text.split()[-1].strip("?")
    answer = f"It is {get_weather(city)} in {city}."
    if "time" in text:
        answer += " It is " + get_time(city) + "."
    return answer
'''


def _write_set(folder: Path, cases: list[dict[str, Any]]) -> Path:
    path = folder / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases))
    return path


CASES = [
    {"eval_id": "paris", "user_query": "weather in Paris?", "expected_tools": ["get_weather"],
     "expected_trajectory": [{"name": "get_weather", "args": {"city": "Paris"}}]},
    {"eval_id": "oslo-time", "user_query": "weather and time in Oslo?",
     "expected_tools": ["get_weather", "get_time"]},
    {"eval_id": "wrong", "user_query": "weather in Rome?", "expected_tools": ["get_forecast"]},
    {"eval_id": "slow", "user_query": "hang in Paris?", "expected_tools": ["get_weather"]},
    {"eval_id": "broken", "user_query": "crash in Paris?", "expected_tools": ["get_weather"]},
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "my_agent.py").write_text(AGENT)
    _write_set(tmp_path, CASES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_run_writes_the_offline_reports_and_the_captured_runs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "my_agent.py:agent", "cases.jsonl", "--timeout", "1",
                 "--concurrency", "5", "--reports-dir", "out"])
    assert code == 0
    out = project / "out"
    names = sorted(p.name for p in out.iterdir())
    assert {"_aggregate.json", "results.jsonl", "runs.jsonl", "evalset.jsonl",
            ".assay_reports"} <= set(names)
    aggregate = json.loads((out / "_aggregate.json").read_text())
    live = aggregate["live"]
    assert (live["runs"], live["passed"]) == (5, 2)
    assert live["pass_rate"] == pytest.approx(0.4)
    assert live["errors"]["timeout"] == 1 and live["errors"]["agent_error"] == 1
    assert aggregate["options"]["live"]["agent"].endswith("agent")
    assert aggregate["totals"]["errors"] == 2
    results = {line["run_id"]: line for line in _lines(out / "results.jsonl")}
    assert set(results) == {"paris", "oslo-time", "wrong", "slow", "broken"}
    assert results["slow"]["score"]["details"]["reason"] == "timeout"
    runs = {line["run_id"]: line for line in _lines(out / "runs.jsonl")}
    calls = runs["paris"]["trajectory"]["turns"][0]["tool_calls"]
    assert calls[0]["name"] == "get_weather" and calls[0]["input"] == {"city": "Paris"}
    assert calls[0]["output"] == "sunny"
    printed = capsys.readouterr().out
    assert "Evaluated 5 runs: 2 passed (pass rate 40%)" in printed


def test_rescoring_runs_jsonl_offline_gives_the_same_scores(project: Path) -> None:
    (project / "config.json").write_text(json.dumps({"criteria": {
        "tool_name_match": {"scorer_name": "tool_name_match"},
        "trajectory": {"scorer_name": "trajectory", "options": {"mode": "subsequence"}},
    }}))
    assert main(["run", "my_agent.py:agent", "cases.jsonl", "--config", "config.json",
                 "--timeout", "1", "--reports-dir", "live", "-q"]) == 0
    assert main(["evaluate", "--trajectories", "live/runs.jsonl", "--scenarios",
                 "live/evalset.jsonl", "--scorer", "tool_name_match", "--scorer", "trajectory",
                 "-S", "trajectory.mode=subsequence", "--reports-dir", "offline", "-q"]) == 0
    live = {line["run_id"]: line for line in _lines(project / "live" / "results.jsonl")}
    offline = {line["run_id"]: line for line in _lines(project / "offline" / "results.jsonl")}
    scored = {rid for rid, line in live.items() if line["score"]["status"] != "error"}
    assert scored == {"paris", "oslo-time", "wrong"}
    for run_id in scored:
        mine = [(p["scorer"], p["status"], p["score"], p["passed"]) for p in live[run_id]["scores"]]
        theirs = [
            (p["scorer"], p["status"], p["score"], p["passed"]) for p in offline[run_id]["scores"]
        ]
        assert mine == theirs, run_id


def test_bad_inputs_are_said_with_their_exit_codes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "my_agent.py:nothing", "cases.jsonl"]) == 3
    assert "has no attribute 'nothing'" in capsys.readouterr().err
    assert main(["run", "missing.py:agent", "cases.jsonl"]) == 3
    (project / "not_agent.py").write_text("AGENT = 42\n")
    assert main(["run", "not_agent.py:AGENT", "cases.jsonl"]) == 3
    assert "cannot run 'int' as an agent" in capsys.readouterr().err
    (project / "broken.py").write_text("raise RuntimeError('import-time failure')\n")
    assert main(["run", "broken.py:agent", "cases.jsonl"]) == 3
    assert "raised RuntimeError: import-time failure" in capsys.readouterr().err
    assert main(["run", "my_agent.py:agent", "nope.jsonl"]) == 3
    (project / "bad.jsonl").write_text('{"eval_id": "a"}\n{"eval_id": "b", "user_query": 3}\n')
    assert main(["run", "my_agent.py:agent", "bad.jsonl"]) == 3
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and "needs `user_query` or `turns`" in err
    assert "bad.jsonl:2: user_query" in err
    (project / "dup.jsonl").write_text('{"eval_id": "a", "user_query": "x"}\n' * 2)
    assert main(["run", "my_agent.py:agent", "dup.jsonl"]) == 3
    assert "more than one case: a" in capsys.readouterr().err
    (project / "c.json").write_text('{"criteria": {"x": {"scorer_name": "no_such"}}}')
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "my_agent.py:agent", "cases.jsonl", "--config", "c.json"])
    assert exit_info.value.code == 2
    assert "unknown scorer 'no_such'" in capsys.readouterr().err
    (project / "j.json").write_text('{"criteria": {"q": {"scorer_name": "llm_judge"}}}')
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "my_agent.py:agent", "cases.jsonl", "--config", "j.json",
              "--judge-model", "nowhere/model"])
    assert exit_info.value.code == 2
    assert "cannot use criterion 'q' (scorer 'llm_judge')" in capsys.readouterr().err
    assert not (project / "reports").exists()


@pytest.mark.slow
def test_fail_under_counts_failed_runs_as_not_passed(project: Path) -> None:
    args = ["run", "my_agent.py:agent", "cases.jsonl", "--timeout", "1", "-q",
            "--reports-dir", "out"]
    assert main([*args, "--fail-under", "0.4"]) == 0
    assert main([*args, "--fail-under", "0.41"]) == 1
    assert main(["report", "out", "--fail-under", "0.41"]) == 1


def _stable(aggregate: dict[str, Any]) -> dict[str, Any]:
    """The aggregate without what differs between two runs of the same evaluation: times,
    durations and the paths of the reports directory."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: strip(item)
                for key, item in value.items()
                if key not in ("generated_at", "reports_dir", "trajectories", "scenarios")
                and "duration" not in key
                and "latency" not in key
            }
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(aggregate)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_kill_9_then_resume_gives_the_uninterrupted_aggregate(project: Path) -> None:
    cases = [
        {"eval_id": f"c{i:02d}", "user_query": f"weather in {'Paris' if i % 3 else 'Oslo'}?",
         "expected_trajectory": [{"name": "get_weather", "args": {"city": "Paris"}}]}
        for i in range(24)
    ]
    _write_set(project, cases)
    command = [sys.executable, "-m", "assay", "run", "my_agent.py:agent",
               "cases.jsonl", "--concurrency", "3", "--repeat", "2", "-q", "--no-progress"]
    env = {**os.environ, "AGENT_DELAY": "0.05", "AGENT_LOG": str(project / "calls.log")}
    assert subprocess.run([*command, "--reports-dir", "whole"], env=env, check=False,
                          timeout=120).returncode == 0
    (project / "calls.log").unlink()

    process = subprocess.Popen([*command, "--reports-dir", "cut"], env=env)
    results = project / "cut" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    finished_before = {line["run_id"] for line in _lines(results)}
    assert 10 <= len(finished_before) < 48
    assert not (project / "cut" / "_aggregate.json").exists()
    ran_before = (project / "calls.log").read_text().count("\n")
    (project / "calls.log").unlink()

    assert subprocess.run([*command, "--reports-dir", "cut", "--resume"], env=env,
                          check=False, timeout=120).returncode == 0
    rerun = (project / "calls.log").read_text().count("\n")
    # Every unit that finished before the kill is kept, never run again.
    assert rerun == 48 - len(finished_before) and rerun <= 48 - ran_before + 3
    whole = json.loads((project / "whole" / "_aggregate.json").read_text())
    cut = json.loads((project / "cut" / "_aggregate.json").read_text())
    assert _stable(cut) == _stable(whole)
    run_ids = [line["run_id"] for line in _lines(project / "cut" / "runs.jsonl")]
    assert sorted(run_ids) == sorted(line["run_id"] for line in _lines(results))
    assert len(run_ids) == len(set(run_ids)) == 48


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_or_ctrl_c_keeps_what_finished_and_resume_finishes(
    project: Path, signum: int
) -> None:
    cases = [{"eval_id": f"c{i:02d}", "user_query": "weather in Paris?",
              "expected_tools": ["get_weather"]} for i in range(40)]
    _write_set(project, cases)
    command = [sys.executable, "-m", "assay", "run", "my_agent.py:agent", "cases.jsonl",
               "--concurrency", "2", "-q", "--no-progress", "--reports-dir", "out"]
    env = {**os.environ, "AGENT_DELAY": "0.1"}
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE)
    results = project / "out" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= 4:
            break
        time.sleep(0.01)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err  # 130 (Ctrl-C) or 143 (SIGTERM)
    assert b"--resume" in err
    aggregate = json.loads((project / "out" / "_aggregate.json").read_text())
    finished = len(_lines(results))
    assert aggregate["interrupted"] is True
    assert aggregate["live"]["finished"] == aggregate["live"]["runs"] == finished < 40
    assert subprocess.run([*command, "--resume"], env=env, check=False,
                          timeout=120).returncode == 0
    aggregate = json.loads((project / "out" / "_aggregate.json").read_text())
    assert aggregate["interrupted"] is False and aggregate["live"]["passed"] == 40


def test_hostile_ids_and_replies_stay_data(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as Python runs by default
    (project / "loud.py").write_text(
        "def agent(messages):\n"
        "    return '\\x1b[31mred\\x1b[0m [bold]x[/bold] \\u202e' + messages[-1]['content']\n"
    )
    _write_set(project, [
        {"eval_id": "../../escape", "user_query": "q", "expected_response": "nope"},
        {"eval_id": "\x1b[2Jclear", "user_query": "\x1b]0;title\x07", "expected_response": "no"},
        {"eval_id": "con", "user_query": "q", "expected_response": "red"},
    ])
    before = sorted(p.name for p in project.iterdir())
    assert main(["run", "loud.py:agent", "cases.jsonl", "--reports-dir", "out", "-v"]) == 0
    printed = capsys.readouterr()
    assert "\x1b" not in printed.out + printed.err and "\u202e" not in printed.out
    assert "\\x1b[2Jclear" in printed.out
    assert sorted(p.name for p in project.iterdir()) == sorted([*before, "out"])
    assert all(p.parent == project / "out" for p in (project / "out").rglob("*"))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_a_run_whose_agent_blocks_the_event_loop(
    project: Path, signum: int
) -> None:
    (project / "blocking.py").write_text(
        "import asyncio, time\n"
        "async def agent(messages):\n"
        "    if messages[-1]['content'] == 'block':\n"
        "        time.sleep(600)  # blocks the event loop, with no timeout to stop it\n"
        "    return 'yes'\n"
    )
    _write_set(project, [{"eval_id": "a", "user_query": "a", "expected_response": "yes"},
                         {"eval_id": "b", "user_query": "block", "expected_response": "yes"}])
    command = [sys.executable, "-m", "assay", "run", "blocking.py:agent", "cases.jsonl",
               "--concurrency", "1", "-q", "--no-progress", "--reports-dir", "out"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    results = project / "out" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_bytes()):
        time.sleep(0.01)
    time.sleep(0.3)  # the agent is asleep in the loop by now
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err  # 130 (Ctrl-C) or 143 (SIGTERM)
    assert b"--resume" in err
    aggregate = json.loads((project / "out" / "_aggregate.json").read_text())
    assert aggregate["interrupted"] is True
    assert [line["scenario_id"] for line in _lines(results)] == ["a"]


def test_the_reply_and_tool_result_caps_are_flags_recorded_in_the_aggregate(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "long.py").write_text(
        "def agent(messages):\n"
        "    return 'yes ' * 500 if 'long' in messages[-1]['content'] else 'yes'\n"
    )
    _write_set(project, [{"eval_id": "short", "user_query": "q", "expected_response": "yes"},
                         {"eval_id": "long", "user_query": "long", "expected_response": "yes"}])
    code = main(["run", "long.py:agent", "cases.jsonl", "--max-reply-size", "1K",
                 "--max-tool-result-size", "2K", "--reports-dir", "out", "-q"])
    assert code == 0
    results = _lines(project / "out" / "results.jsonl")
    by_case = {line["scenario_id"]: line["score"] for line in results}
    assert by_case["short"]["passed"] is True
    assert by_case["long"]["details"]["reason"] == "agent_error"
    assert "a reply of 2,000 characters in turn 1, over the cap of 1,024" in (
        by_case["long"]["rationale"]
    )
    live = json.loads((project / "out" / "_aggregate.json").read_text())["options"]["live"]
    assert (live["max_reply_chars"], live["max_tool_result_chars"]) == (1024, 2048)
    with pytest.raises(SystemExit) as usage:
        main(["run", "long.py:agent", "cases.jsonl", "--max-reply-size", "lots"])
    assert usage.value.code == 2
