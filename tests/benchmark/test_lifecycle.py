"""The benchmark lifecycle: hooks in order, every status as MASEval assigns it, each
`fail_on_*` both ways, timeouts that really end a hung agent, callbacks, traces, parallel
runs equal to sequential ones, and the reports assay writes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from assay.benchmark import (
    AgentAdapter,
    AgentError,
    Benchmark,
    BenchmarkCallback,
    Environment,
    EnvironmentError,
    Evaluator,
    ScriptedUser,
    Task,
    TaskProtocol,
    User,
    UserError,
)

REPORT_KEYS = {"task_id", "repeat_idx", "status", "error", "traces", "config", "usage", "eval",
               "task"}


class Calculator(Environment):
    """Two tools that add: `calculator` and `math_api`."""

    def setup_state(self, environment_data: dict[str, Any]) -> Any:
        return dict(environment_data)

    def create_tools(self) -> dict[str, Any]:
        def calculator(a: int, b: int) -> int:
            return a + b

        def math_api(a: int, b: int) -> int:
            return a + b

        return {"calculator": calculator, "math_api": math_api}


class Adder(AgentAdapter):
    """Calls the tool named in `agent_data["tool"]` on the numbers of the query; a query
    naming a failure raises it."""

    def __init__(self, environment: Environment, tool: str, name: str = "adder") -> None:
        super().__init__(None, name)
        self.environment = environment
        self.tool = tool

    def _run_agent(self, query: str) -> Any:
        for word, error in (
            ("agent-error", AgentError("bad tool call", component="adder")),
            ("environment-error", EnvironmentError("bank is down", component="bank")),
            ("user-error", UserError("user fell over")),
            ("crash", RuntimeError("boom")),
        ):
            if word in query:
                raise error
        if "hang" in query:
            time.sleep(30)
        numbers = [int(w) for w in query.split() if w.isdigit()]
        tool = self.environment.get_tool(self.tool)
        assert tool is not None
        return str(tool(*numbers[:2]))


# The seed's evaluators, as written there.
class ToolUsageEvaluator(Evaluator):
    def __init__(self, task: Any, environment: Any, user: Any = None) -> None:
        super().__init__(task, environment, user)
        self.expected_tool = "calculator"
        self.expected_result = task.evaluation_data["correct_answer"]

    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        # Extract only calculator tool invocations
        return traces.get("tools", {}).get(self.expected_tool, {})

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        # Evaluate using filtered calculator traces
        invocations = traces.get("invocations", [])
        if not invocations:
            return {"tool_used": False, "correct_result": False}
        tool_output = invocations[0].get("outputs", [])
        correct = tool_output == self.expected_result
        return {
            "tool_used": True,
            "correct_result": correct,
            "accuracy": 1.0 if correct else 0.0,
        }


class AlternativeToolEvaluator(ToolUsageEvaluator):
    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        # Only change: filter for alternative API instead
        return traces.get("tools", {}).get("math_api", {})


class Sums(Benchmark):
    """Adding two numbers with a tool; the seed's evaluators check it."""

    def __init__(self, **kwargs: Any) -> None:
        self.failing_setup = kwargs.pop("failing_setup", False)
        self.failing_evaluator = kwargs.pop("failing_evaluator", False)
        self.calls: list[str] = []
        super().__init__(**kwargs)

    def setup_environment(self, agent_data: dict[str, Any], task: Task,
                          seed_generator: Any = None) -> Environment:
        self.calls.append("setup_environment")
        if self.failing_setup:
            raise ValueError("no environment today")
        return Calculator(task.environment_data)

    def setup_agents(self, agent_data: dict[str, Any], environment: Environment, task: Task,
                     user: User | None, seed_generator: Any = None) -> Any:
        self.calls.append("setup_agents")
        agent = Adder(environment, agent_data.get("tool", "calculator"))
        return [agent], {"adder": agent}

    def setup_evaluators(self, environment: Environment, task: Task, agents: Any,
                         user: User | None, seed_generator: Any = None) -> Any:
        self.calls.append("setup_evaluators")
        if self.failing_evaluator:
            return [Exploding(task, environment, user)]
        return [ToolUsageEvaluator(task, environment, user),
                AlternativeToolEvaluator(task, environment, user)]

    def run_agents(self, agents: Any, task: Task, environment: Environment, query: str) -> Any:
        self.calls.append("run_agents")
        return agents[0].run(query)


class Exploding(Evaluator):
    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        return traces

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        raise KeyError("the evaluator has a bug")


def _task(query: str = "add 2 3", task_id: str = "t1", **protocol: Any) -> Task:
    return Task(query, id=task_id, evaluation_data={"correct_answer": 5},
                protocol=TaskProtocol(**protocol))


def test_the_seeds_evaluators_run_as_written_on_the_traces_of_the_tools() -> None:
    bench = Sums()
    [report] = bench.run([_task()], {"tool": "calculator"})
    assert set(report) == REPORT_KEYS and report["status"] == "success" and report["error"] is None
    tool_usage, alternative = report["eval"]
    assert tool_usage == {"tool_used": True, "correct_result": True, "accuracy": 1.0}
    assert alternative == {"tool_used": False, "correct_result": False}
    invocation = report["traces"]["environment"]["tools"]["calculator"]["invocations"][0]
    assert invocation["inputs"] == {"a": 2, "b": 3} and invocation["outputs"] == 5
    # Through assay's scoring: the second evaluator gives no verdict, so not a pass.
    [result] = bench.results
    assert result.score.passed is None
    assert [(p.scorer, p.value) for p in result.scores] == [
        ("ToolUsageEvaluator", 1.0), ("AlternativeToolEvaluator", None)
    ]
    # The other API: the alternative evaluator reads it, with the same logic.
    [other] = Sums().run([_task()], {"tool": "math_api"})
    assert [e.get("accuracy") for e in other["eval"]] == [None, 1.0]


@pytest.mark.parametrize(
    ("query", "status", "error_type"),
    [
        ("agent-error 1 2", "agent_error", "AgentError"),
        ("environment-error 1 2", "environment_error", "EnvironmentError"),
        ("user-error 1 2", "user_error", "UserError"),
        ("crash 1 2", "unknown_execution_error", "RuntimeError"),
    ],
)
def test_a_failing_component_gives_its_status_or_raises_with_fail_on_task_error(
    query: str, status: str, error_type: str
) -> None:
    bench = Sums()
    reports = bench.run([_task(query), _task(task_id="ok")])
    assert [r["status"] for r in reports] == [status, "success"]
    failed = reports[0]
    assert failed["error"]["error_type"] == error_type and failed["eval"] is None
    assert failed["traces"]["agents"]["adder"]["message_count"] == 1  # gathered all the same
    kind = "infrastructure_error" if status in ("environment_error", "user_error") else (
        "agent_error"
    )
    assert bench.results[0].score.details["reason"] == kind
    assert bench.results[1].scores[0].passed is True  # the other task ran and passed its check
    if status == "agent_error":
        assert failed["error"]["component"] == "adder"
    with pytest.raises(Exception, match=r"bad tool|bank is down|fell over|boom"):
        Sums(fail_on_task_error=True).run([_task(query)])


def test_setup_and_evaluation_failures_both_ways() -> None:
    [report] = Sums(failing_setup=True).run([_task()])
    assert report["status"] == "setup_failed" and report["error"]["error_type"] == "ValueError"
    with pytest.raises(ValueError, match="no environment today"):
        Sums(failing_setup=True, fail_on_setup_error=True).run([_task()])
    bench = Sums(failing_evaluator=True)
    [report] = bench.run([_task()])
    assert report["status"] == "evaluation_failed" and report["eval"] is None
    assert bench.results[0].score.details["reason"] == "scorer_error"
    with pytest.raises(KeyError, match="the evaluator has a bug"):
        Sums(failing_evaluator=True, fail_on_evaluation_error=True).run([_task()])


def test_a_hung_agent_is_ended_by_its_task_timeout() -> None:
    started = time.monotonic()
    bench = Sums()
    reports = bench.run([_task("hang 1 2", timeout_seconds=0.3), _task(task_id="ok")])
    assert [r["status"] for r in reports] == ["task_timeout", "success"]
    assert reports[0]["error"]["timeout"] == 0.3
    assert bench.results[0].score.details["reason"] == "timeout"
    assert time.monotonic() - started < 20  # the agent asked for 30 s and was left behind


def test_environment_errors_are_retried_up_to_max_retries() -> None:
    class Flaky(Sums):
        def __init__(self) -> None:
            super().__init__()
            self.attempts = 0

        def run_agents(self, agents: Any, task: Task, environment: Environment,
                       query: str) -> Any:
            self.attempts += 1
            if self.attempts < 3:
                raise EnvironmentError("try again")
            return agents[0].run(query)

    bench = Flaky()
    [report] = bench.run([_task(max_retries=2)])
    assert report["status"] == "success" and bench.attempts == 3
    bench = Flaky()
    [report] = bench.run([_task(max_retries=1)])
    assert report["status"] == "environment_error" and bench.attempts == 2


def test_callbacks_in_order_and_their_errors_never_fatal(caplog: pytest.LogCaptureFixture) -> None:
    events: list[str] = []

    class Recorder(BenchmarkCallback):
        def on_run_start(self, benchmark: Benchmark) -> None:
            events.append("run_start")

        def on_task_start(self, benchmark: Benchmark, task: Task) -> None:
            events.append(f"task_start {task.id}")

        def on_task_repeat_start(self, benchmark: Benchmark, task: Task, repeat_idx: int) -> None:
            events.append(f"repeat_start {task.id} {repeat_idx}")

        def on_task_repeat_end(self, benchmark: Benchmark, report: dict[str, Any]) -> None:
            events.append(f"repeat_end {report['task_id']} {report['repeat_idx']}")

        def on_task_end(self, benchmark: Benchmark, task: Task, result: dict[str, Any]) -> None:
            events.append(f"task_end {task.id}")

        def on_run_end(self, benchmark: Benchmark, results: list[dict[str, Any]]) -> None:
            events.append(f"run_end {len(results)}")

    class Broken(BenchmarkCallback):
        def on_task_start(self, benchmark: Benchmark, task: Task) -> None:
            raise RuntimeError("Intentional failure")

    reports = Sums(callbacks=[Broken(), Recorder()], n_task_repeats=2).run(
        [_task(task_id="a"), _task(task_id="b")]
    )
    assert events == [
        "run_start",
        "task_start a", "repeat_start a 0", "repeat_end a 0", "repeat_start a 1",
        "repeat_end a 1", "task_end a",
        "task_start b", "repeat_start b 0", "repeat_end b 0", "repeat_start b 1",
        "repeat_end b 1", "task_end b",
        "run_end 4",
    ]
    assert {r["status"] for r in reports} == {"success"}
    assert "Intentional failure" in caplog.text


def test_parallel_reports_equal_sequential_ones() -> None:
    tasks = [_task(f"add {i} {i}", task_id=f"t{i}") for i in range(6)]
    tasks += [_task("crash 1 1", task_id="c"), _task("agent-error 1 1", task_id="e")]

    def shape(reports: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(r["task_id"], r["repeat_idx"], r["status"], json.dumps(r["eval"]))
                for r in reports]

    one = Sums(n_task_repeats=2).run(tasks)
    many = Sums(n_task_repeats=2, num_workers=5).run(tasks)
    assert shape(one) == shape(many)
    assert [r["repeat_idx"] for r in one[:4]] == [0, 1, 0, 1]


def test_a_user_talks_until_it_is_done_within_max_invocations() -> None:
    queries: list[str] = []

    class Talk(Sums):
        def setup_user(self, agent_data: dict[str, Any], environment: Environment, task: Task,
                       seed_generator: Any = None) -> User | None:
            return ScriptedUser(["add 3 4", "add 5 6", "add 7 8"], initial_query=task.query)

        def run_agents(self, agents: Any, task: Task, environment: Environment,
                       query: str) -> Any:
            queries.append(query)
            return agents[0].run(query)

    [report] = Talk(max_invocations=3).run([_task()])
    assert queries == ["add 2 3", "add 3 4", "add 5 6"]
    user = report["traces"]["user"]
    assert user["message_count"] == 7 and user["messages"][0]["content"] == "add 2 3"
    queries.clear()
    Talk(max_invocations=10).run([_task()])
    assert len(queries) == 4  # until the agent answered the user's last line


def test_a_component_whose_traces_fail_leaves_an_error_entry() -> None:
    class Unreadable(Adder):
        def gather_traces(self) -> dict[str, Any]:
            raise RuntimeError("no traces for you")

    class Odd(Sums):
        def setup_agents(self, agent_data: dict[str, Any], environment: Environment,
                         task: Task, user: User | None, seed_generator: Any = None) -> Any:
            agent = Unreadable(environment, "calculator")
            return [agent], {"adder": agent}

    [report] = Odd().run([_task()])
    assert report["status"] == "success"
    assert "no traces for you" in report["traces"]["agents"]["adder"]["error"]


def test_seeds_are_derived_per_task_and_repetition() -> None:
    seen: list[int | None] = []

    class Seeded(Sums):
        def setup_environment(self, agent_data: dict[str, Any], task: Task,
                              seed_generator: Any = None) -> Environment:
            seen.append(seed_generator.derive_seed("environment"))
            return super().setup_environment(agent_data, task, seed_generator)

    Seeded(seed=7, n_task_repeats=2).run([_task(task_id="a"), _task(task_id="b")])
    first = list(seen)
    seen.clear()
    Seeded(seed=7, n_task_repeats=2).run([_task(task_id="a"), _task(task_id="b")])
    assert seen == first and len(set(first)) == 4


def test_reports_are_written_and_resume_never_reruns_a_finished_repetition(
    tmp_path: Path,
) -> None:
    bench = Sums(n_task_repeats=3)
    tasks = [_task(task_id="a"), _task("crash 1 2", task_id="b")]
    bench.run(tasks, reports_dir=tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted((x["scenario_id"], x["repeat"]) for x in lines) == [
        ("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 2), ("b", 3)
    ]
    aggregate = json.loads((tmp_path / "_aggregate.json").read_text())
    assert aggregate["live"]["errors"]["agent_error"] == 3
    assert aggregate["repeats"]["n"] == 3
    report = json.loads((tmp_path / lines[0]["report_file"]).read_text())
    assert report["benchmark"]["status"] == "success" and report["benchmark"]["eval"]
    assert report["benchmark"]["usage"] == {"agents": {}}  # no model was called
    assert set(lines[0]["benchmark"]) == {"task_id", "repeat_idx", "status", "error"}
    again = Sums(n_task_repeats=3)
    reports = again.run(tasks, reports_dir=tmp_path, resume=True)
    assert again.calls == [] and len(reports) == 6
    assert [r["status"] for r in reports] == ["success"] * 3 + ["unknown_execution_error"] * 3
    assert all(r["kept"] for r in reports) and reports[0]["eval"] == bench.reports[0]["eval"]
    assert json.loads((tmp_path / "_aggregate.json").read_text())["live"] == aggregate["live"]


def test_the_run_keeps_going_while_a_thread_is_left_behind() -> None:
    before = threading.active_count()
    Sums().run([_task("hang 1 2", timeout_seconds=0.2)])
    assert threading.active_count() >= before  # the hung agent's thread is left, not joined


def test_a_model_played_user_talks_through_assays_model_client(chat_server: Any) -> None:
    from assay.benchmark import LLMUser
    from assay.models import OpenAICompatibleClient
    from chat_server import Reply

    def client() -> Any:
        return OpenAICompatibleClient(chat_server.base_url, max_retries=0)

    queries: list[str] = []

    class Talk(Sums):
        def setup_user(self, agent_data: dict[str, Any], environment: Environment, task: Task,
                       seed_generator: Any = None) -> User | None:
            return LLMUser("a customer adding numbers", model="local/user", goals=["a sum"],
                           initial_query=task.query, client_factory=client)

        def run_agents(self, agents: Any, task: Task, environment: Environment,
                       query: str) -> Any:
            queries.append(query)
            return agents[0].run(query)

    chat_server.enqueue(Reply.ok({"message": "add 4 4", "done": False}),
                        Reply.ok({"message": "", "done": True}))
    [report] = Talk(max_invocations=5).run([_task()])
    assert report["status"] == "success" and queries == ["add 2 3", "add 4 4"]
    user = report["traces"]["user"]
    assert user["stopped_by_user"] is True and user["simulated_user"]["calls"] == 2
    assert report["usage"]["user"]["calls"] == 2 and report["usage"]["user"]["input_tokens"] == 20
    chat_server.enqueue(Reply.error(500))
    [failed] = Talk(max_invocations=5).run([_task()])
    assert failed["status"] == "user_error" and "simulated user call failed" in (
        failed["error"]["error_message"]
    )


def test_registered_scorers_check_benchmark_tasks() -> None:
    from assay.benchmark import ScorerEvaluator

    class Checked(Sums):
        def setup_evaluators(self, environment: Environment, task: Task, agents: Any,
                             user: User | None, seed_generator: Any = None) -> Any:
            return [ScorerEvaluator(task, environment, user, scorer="static_json"),
                    ScorerEvaluator(task, environment, user, scorer="tool_name_match")]

    task = Task("add 2 3", id="t", evaluation_data={
        "expected_answer": "5", "expected_tools": ["calculator"]})
    bench = Checked()
    [report] = bench.run([task])
    assert [(m["score"], m["passed"]) for m in report["eval"]] == [(1.0, True), (1.0, True)]
    assert bench.results[0].score.passed is True
    assert [p.scorer for p in bench.results[0].scores] == ["static_json", "tool_name_match"]
    [wrong] = Checked().run([task], {"tool": "math_api"})
    assert [m["passed"] for m in wrong["eval"]] == [True, False]
    bad = Task("add 2 3", id="b", evaluation_data={"expected_tools": ["calculator"]})
    [failed] = Checked().run([bad])
    assert failed["status"] == "evaluation_failed" and "static_json" in (
        failed["error"]["error_message"]
    )


def test_usage_and_cost_by_component() -> None:
    from assay.live.capture import current_collector
    from assay.records import Usage

    class Billed(Sums):
        def run_agents(self, agents: Any, task: Task, environment: Environment,
                       query: str) -> Any:
            collector = current_collector()
            assert collector is not None
            collector.record_model_call("thinking", usage=Usage(1000, 100), model="openai/gpt-4o")
            return agents[0].run(query)

    [report] = Billed().run([_task()])
    used = report["usage"]["agents"]["openai/gpt-4o"]
    assert (used["calls"], used["input_tokens"], used["output_tokens"]) == (1, 1000, 100)
    assert used["cost_usd"] is not None and used["cost_usd"] > 0


def test_an_infrastructure_failure_is_retried_and_never_the_agents() -> None:
    class Down(Sums):
        def __init__(self) -> None:
            super().__init__()
            self.attempts = 0

        def run_agents(self, agents: Any, task: Task, environment: Environment,
                       query: str) -> Any:
            self.attempts += 1
            if self.attempts == 1:
                raise ConnectionResetError("the model server went away")
            return agents[0].run(query)

    bench = Down()
    [report] = bench.run([_task(max_retries=1)])
    assert report["status"] == "success" and bench.attempts == 2
    bench = Down()
    [report] = bench.run([_task()])
    assert report["status"] == "unknown_execution_error" and bench.attempts == 1
    assert bench.results[0].score.details["reason"] == "infrastructure_error"
