"""`assay bench` end to end: the example benchmark with no key, its reports and outputs, and
kill -9 then `--resume` (nothing finished is run again, the aggregate is the uninterrupted
one)."""

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

from _cli import assay, explain

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "benchmark"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.slow
def test_the_example_runs_with_no_key_and_writes_the_reports(tmp_path: Path) -> None:
    proc = assay(
        "bench", EXAMPLE / "bank.py:BankBenchmark", EXAMPLE / "tasks.jsonl", "--repeat", "3",
        "--workers", "3", "--reports-dir", "out", "--html", "page.html", "--junit", "j.xml",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, explain(proc)
    results = _lines(tmp_path / "out" / "results.jsonl")
    verdicts = sorted((r["scenario_id"], r["repeat"], r["score"]["passed"]) for r in results)
    assert verdicts == sorted(
        [(task, k, True) for task in ("save", "save-and-ask") for k in (1, 2, 3)]
        + [("slow", k, None) for k in (1, 2, 3)]
    )
    aggregate = json.loads((tmp_path / "out" / "_aggregate.json").read_text())
    assert aggregate["live"]["errors"]["timeout"] == 3
    assert aggregate["repeats"]["pass_hat_k"]["3"] == pytest.approx(2 / 3, abs=1e-6)
    assert (tmp_path / "page.html").stat().st_size > 0 and (tmp_path / "j.xml").exists()
    rescored = assay("rescore", "out", "--reports-dir", "again", cwd=tmp_path)
    assert rescored.returncode == 3 and "holds the runs of the benchmark BankBenchmark" in (
        rescored.stderr
    )
    hasty = assay(
        "bench", EXAMPLE / "bank.py:BankBenchmark", EXAMPLE / "tasks.jsonl",
        "--agent-data", EXAMPLE / "hasty.json", "--reports-dir", "hasty", "-q",
        "--fail-under", "0.5", cwd=tmp_path,
    )
    assert hasty.returncode == 1, explain(hasty)
    failed = {r["scenario_id"]: r for r in _lines(tmp_path / "hasty" / "results.jsonl")}
    assert failed["save"]["score"]["passed"] is False
    assert [(p["scorer"], p["passed"]) for p in failed["save"]["scores"]] == [
        ("FinalBalances", False), ("OneTransfer", True)
    ]


@pytest.mark.slow
def test_bad_inputs_are_said_and_nothing_runs(tmp_path: Path) -> None:
    (tmp_path / "notbench.py").write_text("class NotABenchmark:\n    pass\n")
    (tmp_path / "tasks.jsonl").write_text('{"query": "q", "id": "a"}\n')
    cases = [
        (("notbench.py:NotABenchmark", "tasks.jsonl"), "not a subclass"),
        ((f"{EXAMPLE / 'bank.py'}:BankBenchmark", "missing.jsonl"), "missing.jsonl"),
        ((f"{EXAMPLE / 'bank.py'}:BankBenchmark", "tasks.jsonl", "--agent-data", "nope.json"),
         "nope.json"),
    ]
    for args, said in cases:
        proc = assay("bench", *args, "--reports-dir", "out", cwd=tmp_path)
        assert proc.returncode == 3, explain(proc)
        assert said in proc.stderr
        assert not (tmp_path / "out").exists()


COUNTING = '''
import os, time
from assay.benchmark import AgentAdapter, Benchmark, Environment, Evaluator


class Plain(Environment):
    def setup_state(self, data):
        return data

    def create_tools(self):
        return {}


class Slow(AgentAdapter):
    def _run_agent(self, query):
        with open("calls.log", "a") as log:
            log.write(query + "\\n")
        time.sleep(0.05)
        return query


class Same(Evaluator):
    def filter_traces(self, traces):
        return traces

    def __call__(self, traces, final_answer=None):
        return {"passed": final_answer == self.task.query}


class Counting(Benchmark):
    def setup_environment(self, agent_data, task, seed_generator=None):
        return Plain(task.environment_data)

    def setup_agents(self, agent_data, environment, task, user, seed_generator=None):
        agent = Slow(None, "slow")
        return [agent], {"slow": agent}

    def setup_evaluators(self, environment, task, agents, user, seed_generator=None):
        return [Same(task, environment, user)]

    def run_agents(self, agents, task, environment, query):
        return agents[0].run(query)
'''


@pytest.mark.slow
def test_kill_9_then_resume_never_reruns_a_finished_repetition(tmp_path: Path) -> None:
    (tmp_path / "counting.py").write_text(COUNTING)
    tasks = "".join(json.dumps({"id": f"t{i:02d}", "query": f"q{i:02d}"}) + "\n" for i in range(30))
    (tmp_path / "tasks.jsonl").write_text(tasks)
    command = [sys.executable, "-m", "assay", "bench", "counting.py:Counting", "tasks.jsonl",
               "--repeat", "2", "-q", "--reports-dir", "out"]
    process = subprocess.Popen(command, cwd=tmp_path)
    results = tmp_path / "out" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    finished = {(r["scenario_id"], r["repeat"]) for r in _lines(results)}
    assert 10 <= len(finished) < 60
    calls_before = (tmp_path / "calls.log").read_text().splitlines()
    resumed = subprocess.run([*command, "--resume"], cwd=tmp_path, timeout=120, check=False)
    assert resumed.returncode == 0
    calls = (tmp_path / "calls.log").read_text().splitlines()[len(calls_before):]
    # Each repetition still to run was run once; none that had finished was run again.
    assert len(calls) == 60 - len(finished)
    fresh = subprocess.run([*command[:-2], "--reports-dir", "fresh"], cwd=tmp_path,
                           timeout=120, check=False, env={**os.environ})
    assert fresh.returncode == 0
    out = json.loads((tmp_path / "out" / "_aggregate.json").read_text())
    whole = json.loads((tmp_path / "fresh" / "_aggregate.json").read_text())
    assert out["live"] == whole["live"] and out["repeats"] == whole["repeats"]
    assert out["interrupted"] is False and out["live"]["passed"] == 60


JUDGED = '''
from assay.benchmark import AgentAdapter, Benchmark, Environment, ScorerEvaluator


class Plain(Environment):
    def setup_state(self, data):
        return data

    def create_tools(self):
        return {}


class Echo(AgentAdapter):
    def _run_agent(self, query):
        return "Paris"


class Judged(Benchmark):
    def setup_environment(self, agent_data, task, seed_generator=None):
        return Plain(task.environment_data)

    def setup_agents(self, agent_data, environment, task, user, seed_generator=None):
        agent = Echo(None, "echo")
        return [agent], {"echo": agent}

    def setup_evaluators(self, environment, task, agents, user, seed_generator=None):
        return [ScorerEvaluator(task, environment, user, scorer="llm_judge")]

    def run_agents(self, agents, task, environment, query):
        return agents[0].run(query)
'''


@pytest.mark.slow
def test_the_judge_flags_reach_a_judged_scorer_evaluator(tmp_path: Path, chat_server: Any) -> None:
    from chat_server import Reply

    (tmp_path / "judged.py").write_text(JUDGED)
    (tmp_path / "tasks.jsonl").write_text(
        '{"id": "capital", "query": "Capital of France?", '
        '"evaluation_data": {"expected_answer": "Paris"}}\n'
    )
    chat_server.handler = lambda request: Reply.ok(
        {"score": 1.0, "passed": True, "rationale": "it is Paris"}
    )
    proc = assay(
        "bench", "judged.py:Judged", "tasks.jsonl", "--judge-model", "local/judge-1",
        "--reports-dir", "out", "-q", cwd=tmp_path,
        env={"LOCAL_BASE_URL": chat_server.base_url, "ASSAY_CACHE_DIR": str(tmp_path / "c")},
    )
    assert proc.returncode == 0, explain(proc)
    [line] = _lines(tmp_path / "out" / "results.jsonl")
    assert (line["score"]["scorer"], line["score"]["passed"]) == ("llm_judge", True)
    assert chat_server.requests[0].body["model"] == "judge-1"
    saved = json.loads((tmp_path / "out" / line["report_file"]).read_text())
    [judge] = saved["benchmark"]["usage"]["judges"]
    assert (judge["model"], judge["calls"]) == ("local/judge-1", 1)
    # Without a model, a judge is not built: the repetition's setup says why.
    none = assay("bench", "judged.py:Judged", "tasks.jsonl", "--reports-dir", "none", "-q",
                 cwd=tmp_path)
    assert none.returncode == 0, explain(none)
    [failed] = _lines(tmp_path / "none" / "results.jsonl")
    assert failed["score"]["details"]["reason"] == "infrastructure_error"
    assert "model" in failed["score"]["rationale"]
