"""A benchmark written the way MASEval's own test fixture (`DummyBenchmark`) is written runs
here with only its imports changed: the same hooks called, the same statuses, the same
report keys and per-repeat results; and assay's pass^k is MASEval's tau2 `pass_hat_k`."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

import pytest

from assay.benchmark import AgentAdapter, Benchmark, Environment, Evaluator, Task, TaskQueue


class DummyAgent:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def run(self, query: str) -> str:
        self.calls.append(query)
        return f"Response to: {query}"


class DummyAgentAdapter(AgentAdapter):
    def _run_agent(self, query: str) -> Any:
        return self.agent.run(query)


class DummyEnvironment(Environment):
    def setup_state(self, environment_data: dict[str, Any]) -> Any:
        return environment_data.copy()

    def create_tools(self) -> dict[str, Any]:
        return {}


class DummyEvaluator(Evaluator):
    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        return traces

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        return {"score": 1.0, "passed": True}


class DummyBenchmark(Benchmark):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.setup_environment_calls: list[Any] = []
        self.setup_agents_calls: list[Any] = []
        self.setup_evaluators_calls: list[Any] = []
        self.run_agents_calls: list[Any] = []
        self.evaluate_calls: list[Any] = []

    def setup_environment(self, agent_data: dict[str, Any], task: Task,
                          seed_generator: Any = None) -> Environment:
        self.setup_environment_calls.append((agent_data, task))
        return DummyEnvironment(task.environment_data)

    def setup_user(self, agent_data: dict[str, Any], environment: Environment, task: Task,
                   seed_generator: Any = None) -> Any:
        return None

    def setup_agents(self, agent_data: dict[str, Any], environment: Environment, task: Task,
                     user: Any, seed_generator: Any = None) -> Any:
        self.setup_agents_calls.append(task)
        agent = DummyAgentAdapter(DummyAgent(), "test_agent")
        return [agent], {"test_agent": agent}

    def setup_evaluators(self, environment: Environment, task: Task, agents: Any, user: Any,
                         seed_generator: Any = None) -> Any:
        self.setup_evaluators_calls.append(task)
        return [DummyEvaluator(task, environment, user)]

    def run_agents(self, agents: Any, task: Task, environment: Environment, query: str) -> Any:
        self.run_agents_calls.append(query)
        return agents[0].run(query)

    def evaluate(self, evaluators: Any, agents: Any, final_answer: Any,
                 traces: dict[str, Any]) -> list[dict[str, Any]]:
        self.evaluate_calls.append(final_answer)
        return [ev(ev.filter_traces(traces), final_answer) for ev in evaluators]


QUERIES = ["What is 2+2?", "Name a colour", "Say hi"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_maseval_shaped_benchmark_runs_unchanged(workers: int) -> None:
    bench = DummyBenchmark(n_task_repeats=3, num_workers=workers)
    tasks = TaskQueue.from_list([{"query": q, "id": f"task-{i}"} for i, q in enumerate(QUERIES)])
    reports = bench.run(tasks, {"model": "test"})
    assert len(reports) == 9 and len(bench.run_agents_calls) == 9
    assert len(bench.setup_environment_calls) == len(bench.evaluate_calls) == 9
    for report in reports:
        assert set(report) == {"task_id", "repeat_idx", "status", "error", "traces", "config",
                               "usage", "eval", "task"}
        assert report["status"] == "success" and report["error"] is None
        assert report["eval"] == [{"score": 1.0, "passed": True}]
        agent = report["traces"]["agents"]["test_agent"]
        assert agent["messages"][0] == {"role": "user", "content": report["task"]["query"]}
    assert [(r["task_id"], r["repeat_idx"]) for r in reports] == [
        (f"task-{i}", k) for i in range(3) for k in range(3)
    ]
    assert all(r.score.passed for r in bench.results)


def test_pass_hat_k_is_tau2s(tmp_path: Path) -> None:
    class Sometimes(DummyBenchmark):
        def setup_evaluators(self, environment: Environment, task: Task, agents: Any,
                             user: Any, seed_generator: Any = None) -> Any:
            outcome = task.metadata["passes"][len(self.setup_evaluators_calls) % 4]
            self.setup_evaluators_calls.append(task)

            class Fixed(Evaluator):
                def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
                    return traces

                def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> Any:
                    return {"passed": outcome}

            return [Fixed(task, environment, user)]

    bench = Sometimes(n_task_repeats=4)
    bench.run([Task("q", id="t", metadata={"passes": [True, False, True, False]})],
              reports_dir=tmp_path)
    repeats = json.loads((tmp_path / "_aggregate.json").read_text())["repeats"]
    for k in range(1, 5):
        tau2 = comb(2, k) / comb(4, k) if k <= 2 else 0.0
        assert repeats["pass_hat_k"][str(k)] == pytest.approx(tau2, abs=1e-6)  # 6 places kept


def test_get_failed_tasks_gives_the_tasks_to_run_again() -> None:
    class Flaky(DummyBenchmark):
        def run_agents(self, agents: Any, task: Task, environment: Environment,
                       query: str) -> Any:
            if task.id == "bad":
                raise RuntimeError("no")
            return super().run_agents(agents, task, environment, query)

    bench = Flaky(n_task_repeats=2)
    with pytest.raises(RuntimeError, match="after run"):
        bench.get_failed_tasks()
    bench.run([Task("a", id="good"), Task("b", id="bad")])
    assert [t.id for t in bench.get_failed_tasks()] == ["bad"]
    assert [t.id for t in bench.get_failed_tasks("agent_error")] == []
    assert [t.id for t in bench.get_failed_tasks(["unknown_execution_error"])] == ["bad"]
