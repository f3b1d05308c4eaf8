"""The Ray executor on a real local cluster (`ray start --head` on 127.0.0.1, once per
session): the same verdicts as the local executor, no unit lost or scored twice when a
worker dies, deadlines that hold on workers, a driver killed and resumed, the benchmark
lifecycle, and the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from _cli import assay, explain, popen
from assay.live.api import AgentEvaluator
from assay.live.criteria import CriterionConfig, EvalConfig
from assay.live.executors import RayExecutor
from assay.schema.evalset import EvalCase
from chat_server import ChatServer, RecordedRequest, Reply
from conftest import Cluster

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[2] / "examples"


def _lines(directory: Path, name: str = "results.jsonl") -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (directory / name).read_bytes().splitlines()]


def _verdicts(directory: Path) -> dict[tuple[str, Any], Any]:
    """Each run's verdict as the reports give it: passed, status, score and each scorer's."""
    found = {}
    for line in _lines(directory):
        found[(line["scenario_id"], line.get("repeat"))] = (
            line["score"], line.get("scores"), line.get("answer"), line.get("error")
        )
    return found


def _figures(directory: Path) -> dict[str, Any]:
    aggregate = orjson.loads((directory / "_aggregate.json").read_bytes())
    keys = ("totals", "by_scorer", "live", "repeats", "not_scored", "interrupted")
    figures = {key: aggregate[key] for key in keys}
    figures["red_flags"] = aggregate["red_flags"]["flags"]  # their figures hold latencies
    return figures


def _slow_project(folder: Path, prefix: str, count: int, delay: float) -> None:
    """An agent answering `yes` after `delay` seconds, and `count` cases expecting it."""
    (folder / "agent.py").write_text(
        f"import asyncio\n\nasync def agent(messages):\n    await asyncio.sleep({delay})\n"
        "    return 'yes'\n"
    )
    with (folder / "cases.jsonl").open("w") as out:
        for i in range(count):
            out.write(orjson.dumps({"eval_id": f"{prefix}{i}", "user_query": "q",
                                    "expected_response": "yes"}).decode() + "\n")


def _wait_for_lines(driver: subprocess.Popen[Any], results: Path, count: int) -> None:
    """Until `results` holds `count` lines (the driver still running)."""
    deadline = time.monotonic() + 120
    while not (results.exists() and results.read_bytes().count(b"\n") >= count):
        assert driver.poll() is None, driver.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _cases(count: int) -> list[EvalCase]:
    cities = ["fr", "de", "it"]
    return [
        EvalCase(
            eval_id=f"c{i}",
            user_query=f"capital of {cities[i % 3]}" + ("?!" if i % 4 == 0 else "?"),
            expected_response={"fr": "Paris", "de": "Berlin", "it": "Rome"}[cities[i % 3]],
            expected_tools=["lookup"],
        )
        for i in range(count)
    ]


def test_the_same_verdicts_and_aggregate_as_the_local_executor(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    cases = _cases(24)
    config = EvalConfig(criteria={
        "tools": CriterionConfig.tool_name_match(),
        "answer": CriterionConfig.response_match(),
    })

    def run(executor: Any, out: Path) -> Any:
        evaluator = AgentEvaluator("ray_agents:capital", config=config, concurrency=3,
                                   num_runs=2, executor=executor)
        return evaluator.evaluate_sync(cases, reports_dir=out)

    local = run(None, tmp_path / "local")
    executor = RayExecutor(ray_cluster.address, workers=2)
    remote = run(executor, tmp_path / "ray")
    assert _verdicts(tmp_path / "ray") == _verdicts(tmp_path / "local")
    assert _figures(tmp_path / "ray") == _figures(tmp_path / "local")
    assert 0 < local.pass_rate < 1 and remote.pass_rate == local.pass_rate
    # The runs came back whole: the same records the local runner writes, timings aside.
    runs = {line["run_id"]: line for line in _lines(tmp_path / "ray", "runs.jsonl")}
    assert len(runs) == 48
    local_runs = {line["run_id"]: line for line in _lines(tmp_path / "local", "runs.jsonl")}
    for run in [*runs.values(), *local_runs.values()]:
        del run["duration_ms"]
    assert runs == local_runs
    turns = [t for t in runs["c1#1"]["trajectory"]["turns"] if t["tool_calls"]]
    assert turns[0]["tool_calls"][0] == {"name": "lookup", "input": {"city": "de"}, "id": None,
                                         "output": "Berlin"}
    live = orjson.loads((tmp_path / "ray" / "_aggregate.json").read_bytes())["options"]["live"]
    assert live["executor"]["name"] == "ray" and live["executor"]["workers"] == 2
    assert live["executor"]["units_rerun"] == 0


def test_a_worker_killed_mid_run_loses_no_unit_and_scores_none_twice(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    executor = RayExecutor(ray_cluster.address, workers=2)
    killed: list[int] = []

    def kill_one(result: Any) -> None:
        if not killed and len(executor.pids) == 2:
            killed.append(executor.pids[0])
            os.kill(executor.pids[0], signal.SIGKILL)

    cases = [EvalCase(eval_id=f"s{i}", user_query="go", expected_response="done")
             for i in range(80)]
    # 16 in flight per worker: units travel to the workers in batches (of 2 here).
    evaluator = AgentEvaluator("ray_agents:slow", concurrency=16, executor=executor)
    report = evaluator.evaluate_sync(cases, reports_dir=tmp_path / "out", on_result=kill_one)

    assert killed
    lines = _lines(tmp_path / "out")
    assert Counter(line["scenario_id"] for line in lines) == {f"s{i}": 1 for i in range(80)}
    assert report.pass_rate == 1.0 and len(report.cases) == 80
    stats = executor.describe()
    assert stats["workers_lost"] >= 1 and stats["units_rerun"] >= 1
    assert stats["units_lost"] == 0
    assert killed[0] not in executor.pids  # replaced (and the run over: all gone)
    aggregate = orjson.loads((tmp_path / "out" / "_aggregate.json").read_bytes())
    assert aggregate["options"]["live"]["executor"]["workers_lost"] >= 1


@pytest.mark.parametrize("agent", ["sleeper", "sync_sleeper"])
def test_timeouts_hold_on_workers(ray_cluster: Cluster, tmp_path: Path, agent: str) -> None:
    cases = [
        EvalCase(eval_id="hang", user_query="hang", expected_response="done"),
        EvalCase(eval_id="fine", user_query="fine", expected_response="done"),
    ]
    evaluator = AgentEvaluator(f"ray_agents:{agent}", concurrency=2, timeout=2.0,
                               executor=RayExecutor(ray_cluster.address, workers=1))
    report = evaluator.evaluate_sync(cases)
    by_id = {case.eval_id: case for case in report.cases}
    assert by_id["fine"].passed
    assert not by_id["hang"].passed
    assert by_id["hang"].error_kind == "timeout"


def test_an_agent_holding_its_worker_loop_is_a_timeout_and_the_others_run_again(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    cases = [EvalCase(eval_id="block", user_query="block", expected_response="done")] + [
        EvalCase(eval_id=f"ok{i}", user_query="ok", expected_response="done") for i in range(3)
    ]
    # The timeout leaves the others (0.2 s each) room on a fresh worker of a busy machine.
    executor = RayExecutor(ray_cluster.address, workers=1, grace_s=1.0)
    evaluator = AgentEvaluator("ray_agents:blocker", concurrency=4, timeout=2.0, retries=0,
                               executor=executor)
    report = evaluator.evaluate_sync(cases, reports_dir=tmp_path / "out")
    by_id = {case.eval_id: case for case in report.cases}
    assert by_id["block"].error_kind == "timeout"
    assert "held its Ray worker's event loop" in (by_id["block"].error or "")
    assert all(by_id[f"ok{i}"].passed for i in range(3)), [
        (by_id[f"ok{i}"].error_kind, by_id[f"ok{i}"].error) for i in range(3)
    ]
    assert executor.stats.workers_lost == 1 and executor.stats.units_lost == 1
    assert Counter(line["scenario_id"] for line in _lines(tmp_path / "out")) == {
        "block": 1, "ok0": 1, "ok1": 1, "ok2": 1
    }


def test_workers_that_cannot_load_the_agent_stop_the_run_before_it_starts(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    from assay.live.executors import ExecutorError

    # The driver has the agent; the workers are told to load a module they cannot import.
    evaluator = AgentEvaluator(lambda messages: "hi", spec="no_such_module_here:agent",
                               executor=RayExecutor(ray_cluster.address, workers=1))
    with pytest.raises(ExecutorError, match="cannot run the agent") as raised:
        evaluator.evaluate_sync([EvalCase(eval_id="a", user_query="q", expected_response="hi")],
                                reports_dir=tmp_path / "out")
    assert raised.value.before_run
    assert "no_such_module_here" in str(raised.value)
    assert not (tmp_path / "out" / "results.jsonl").read_bytes()


def test_a_module_in_the_drivers_folder_loads_on_workers_of_this_machine(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    (tmp_path / "my_agent.py").write_text("def agent(messages):\n    return 'hi'\n")
    (tmp_path / "cases.jsonl").write_text(
        '{"eval_id": "a", "user_query": "q", "expected_response": "hi"}\n'
    )
    proc = assay("run", "my_agent:agent", "cases.jsonl", "--executor", "ray",
                 "--ray-address", ray_cluster.address, "--ray-workers", "1", cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert "pass rate 100%" in proc.stdout


def test_the_cli_on_a_cluster_started_apart_and_a_driver_killed_then_resumed(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    _slow_project(tmp_path, "k", 24, 0.4)
    args = ["run", "agent.py:agent", "cases.jsonl", "--executor", "ray", "--ray-address",
            ray_cluster.address, "--ray-workers", "2", "--concurrency", "2",
            "--reports-dir", "out"]
    driver = popen(*args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_lines(driver, tmp_path / "out" / "results.jsonl", 4)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    before = len(_lines(tmp_path / "out"))
    assert 4 <= before < 24

    proc = assay(*args, "--resume", cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    lines = _lines(tmp_path / "out")
    assert Counter(line["scenario_id"] for line in lines) == {f"k{i}": 1 for i in range(24)}
    assert all(line["score"]["passed"] for line in lines)
    runs = _lines(tmp_path / "out", "runs.jsonl")
    assert sorted(r["scenario_id"] for r in runs) == sorted(f"k{i}" for i in range(24))
    aggregate = orjson.loads((tmp_path / "out" / "_aggregate.json").read_bytes())
    assert aggregate["totals"]["runs_read"] == 24 and aggregate["totals"]["pass_rate"] == 1.0


def test_sigterm_on_the_driver_cancels_the_remote_units_and_writes_the_aggregate(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    _slow_project(tmp_path, "t", 40, 0.5)
    driver = popen("run", "agent.py:agent", "cases.jsonl", "--executor", "ray",
                   "--ray-address", ray_cluster.address, "--ray-workers", "1",
                   "--concurrency", "2", "--reports-dir", "out", cwd=tmp_path,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_lines(driver, tmp_path / "out" / "results.jsonl", 2)
    driver.send_signal(signal.SIGTERM)
    _, err = driver.communicate(timeout=60)
    assert driver.returncode == 143, err  # SIGTERM
    assert "interrupted" in err
    aggregate = orjson.loads((tmp_path / "out" / "_aggregate.json").read_bytes())
    finished = aggregate["totals"]["runs_read"]
    assert aggregate["interrupted"] is True and 2 <= finished < 40
    assert finished == len(_lines(tmp_path / "out"))


def test_the_benchmark_lifecycle_on_ray_gives_the_local_verdicts(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    bench = str(EXAMPLES / "benchmark" / "bank.py") + ":BankBenchmark"
    tasks = str(EXAMPLES / "benchmark" / "tasks.jsonl")
    common = ["bench", bench, tasks, "--repeat", "2", "--workers", "2"]
    local = assay(*common, "--reports-dir", "local", cwd=tmp_path)
    assert local.returncode in (0, 1), explain(local)
    remote = assay(*common, "--reports-dir", "ray", "--executor", "ray",
                   "--ray-address", ray_cluster.address, "--ray-workers", "2", cwd=tmp_path)
    assert remote.returncode == local.returncode, explain(remote)
    assert _verdicts(tmp_path / "ray") == _verdicts(tmp_path / "local")
    assert _figures(tmp_path / "ray") == _figures(tmp_path / "local")
    reports = {
        (line["scenario_id"], line.get("repeat")): line["benchmark"]["status"]
        for line in _lines(tmp_path / "ray")
    }
    assert set(reports.values()) <= {"success", "agent_error", "task_timeout"}


def test_the_benchmark_api_on_ray_keeps_its_callbacks_on_the_driver(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    from assay.benchmark import BenchmarkCallback, load_tasks
    from assay.live.loading import load_agent

    bank = load_agent(str(EXAMPLES / "benchmark" / "bank.py") + ":BankBenchmark")
    seen: list[str] = []

    class Seen(BenchmarkCallback):
        def on_task_repeat_end(self, benchmark: Any, report: dict[str, Any]) -> None:
            seen.append(report["task_id"])

    tasks = load_tasks(EXAMPLES / "benchmark" / "tasks.jsonl")
    benchmark = bank(callbacks=[Seen()], num_workers=2,
                     executor=RayExecutor(ray_cluster.address, workers=2))
    reports = benchmark.run(tasks)
    assert sorted(seen) == sorted(task.id for task in tasks)
    assert [r["task_id"] for r in reports] == [task.id for task in tasks]


def test_a_cluster_that_goes_away_ends_the_run_with_the_aggregate_of_what_finished(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    from assay.live.executors import ExecutorError

    doomed = Cluster()  # a cluster of its own: this test kills it
    try:
        executor = RayExecutor(doomed.address, workers=2)
        finished: list[Any] = []

        def kill_the_cluster(result: Any) -> None:
            finished.append(result)
            if len(finished) == 4:
                doomed.kill()

        cases = [EvalCase(eval_id=f"g{i}", user_query="go", expected_response="done")
                 for i in range(40)]
        evaluator = AgentEvaluator("ray_agents:slow", concurrency=2, executor=executor)
        with pytest.raises(ExecutorError, match="the Ray cluster went away") as raised:
            evaluator.evaluate_sync(cases, reports_dir=tmp_path / "out",
                                    on_result=kill_the_cluster)
    finally:
        doomed.stop()
    assert not raised.value.before_run
    lines = _lines(tmp_path / "out")
    assert 4 <= len(lines) < 40
    assert len({line["scenario_id"] for line in lines}) == len(lines)
    aggregate = orjson.loads((tmp_path / "out" / "_aggregate.json").read_bytes())
    assert aggregate["interrupted"] is True
    assert aggregate["totals"]["runs_read"] == len(lines)
    assert f"{40 - len(lines)} units did not finish" in str(raised.value)


def test_the_judges_are_called_by_the_driver_once_per_run(
    ray_cluster: Cluster, tmp_path: Path, chat_server: ChatServer
) -> None:
    def judge(request: RecordedRequest) -> Reply:
        right = "no idea" not in orjson.dumps(request.body["messages"]).decode()
        return Reply.ok({"score": 1.0 if right else 0.0, "passed": right, "rationale": "ok"})

    chat_server.handler = judge
    options = {"llm_judge": {"model": "local/judge", "client_options": {
        "base_url": chat_server.base_url, "cache": "off", "cache_dir": str(tmp_path / "cache"),
        "max_retries": 0,
    }}}
    config = EvalConfig(criteria={"quality": CriterionConfig.llm_judge(prompt="Right?")})
    cases = [c for c in _cases(9) if "fr" in (c.user_query or "")]
    evaluator = AgentEvaluator("ray_agents:capital", config=config, concurrency=2,
                               num_runs=2, judge_options=options,
                               executor=RayExecutor(ray_cluster.address, workers=2))
    report = evaluator.evaluate_sync(cases)
    assert len(chat_server.requests) == len(report.cases) == 2 * len(cases)
    # A wrong answer ("no idea", for c0) is judged so; the right ones pass.
    assert {(c.eval_id, c.passed) for c in report.cases} == {
        (c.eval_id, "?!" not in (c.user_query or "")) for c in cases
    }


def test_a_run_whose_record_cannot_travel_back_is_an_agent_error_saying_why(
    ray_cluster: Cluster,
) -> None:
    case = EvalCase(eval_id="lock", user_query="open", expected_response="done")
    local = AgentEvaluator("ray_agents:locker").evaluate_sync([case])
    assert local.cases[0].passed  # nothing wrong with it here
    remote = AgentEvaluator(
        "ray_agents:locker", executor=RayExecutor(ray_cluster.address, workers=1)
    ).evaluate_sync([case])
    result = remote.cases[0]
    assert not result.passed and result.error_kind == "agent_error"
    assert "cannot be sent back from the Ray worker" in (result.error or "")
    assert "lock" in (result.error or "")


def test_a_benchmarks_model_judged_checks_are_judged_by_the_driver(
    ray_cluster: Cluster, tmp_path: Path, chat_server: ChatServer
) -> None:
    from ray_agents import JudgedBench

    from assay.benchmark import Task

    def judge(request: RecordedRequest) -> Reply:
        right = "Paris" in orjson.dumps(request.body["messages"]).decode()
        return Reply.ok({"score": 1.0 if right else 0.0, "passed": right, "rationale": "ok"})

    chat_server.handler = judge
    options = {"llm_judge": {"model": "local/judge", "client_options": {
        "base_url": chat_server.base_url, "cache": "off", "cache_dir": str(tmp_path / "cache"),
        "max_retries": 0,
    }}}
    tasks = [Task("Capital of France?", id="fr"), Task("Capital of Peru?", id="pe")]
    # The workers get no judge settings: only the driver can judge.
    benchmark = JudgedBench(n_task_repeats=2, num_workers=2, judge_options=options,
                            executor=RayExecutor(ray_cluster.address, workers=2))
    reports = benchmark.run(tasks)
    assert len(chat_server.requests) == 4  # once per repetition
    assert [(r["task_id"], r["eval"][0]["passed"]) for r in reports] == [
        ("fr", True), ("fr", True), ("pe", False), ("pe", False)
    ]
    assert [result.score.passed for result in benchmark.results] == [True, True, False, False]
