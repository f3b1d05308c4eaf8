"""The benchmark lifecycle: per task and repetition, set up an environment, a user, agents
and evaluators; let the agents and the user talk; gather the traces; evaluate; report.

A `Benchmark` names its parts in hooks (`setup_environment`, `setup_user`, `setup_agents`,
`setup_evaluators`, `run_agents`, and optionally `evaluate` and `execution_loop`), with the
names and arguments MASEval uses, so that a benchmark written for it runs here after an
import change. Every (task, repetition) is a unit of assay's live runner: `num_workers`
at a time, under a timeout that really ends a hung agent (`TaskProtocol.timeout_seconds`, or
the benchmark's `timeout`), retried after a failure that is not the agent's
(`TaskProtocol.max_retries`), and scored by the one scoring step from its evaluators'
metrics (`Evaluator.verdict`).

**Statuses** (`TaskExecutionStatus`), and how they count. A component raises `AgentError`,
`EnvironmentError` or `UserError` to say whose fault a failure is:

| status | when | assay's verdict |
|---|---|---|
| `success` | the task ran and was evaluated | the evaluators' verdicts |
| `agent_error` | `AgentError` while the agents ran | `agent_error`: the agent's |
| `unknown_execution_error` | any other exception then | `agent_error`: the agent's |
| `task_timeout` | past the task's timeout | `timeout`: the agent's |
| `environment_error` | `EnvironmentError` then | `infrastructure_error`, retried |
| `user_error` | `UserError` then | `infrastructure_error`, retried |
| `setup_failed` | a setup hook raised | `infrastructure_error` |
| `evaluation_failed` | an evaluator raised | the check's `scorer_error` |

An `infrastructure_error` is not the agent's fault: it is retried up to the task's
`max_retries`, and counted apart from the agent's failures. So is any failure of the
infrastructure while the agents ran (a connection, a model's 429 or 5xx), whatever its
status says (`unknown_execution_error`, as MASEval gives it).

None of them is ever a pass. With `fail_on_setup_error`, `fail_on_task_error` or
`fail_on_evaluation_error`, the matching failure is raised from `run` instead (what is in
flight is cancelled). Callbacks' errors are logged, never fatal.

Example:
    >>> from assay.benchmark import AgentAdapter, Environment, Evaluator, Task
    >>> class Echo(AgentAdapter):
    ...     def _run_agent(self, query):
    ...         return query.upper()
    >>> class Plain(Environment):
    ...     def setup_state(self, data):
    ...         return data
    ...     def create_tools(self):
    ...         return {}
    >>> class Shouted(Evaluator):
    ...     def filter_traces(self, traces):
    ...         return traces
    ...     def __call__(self, traces, final_answer=None):
    ...         return {"passed": final_answer == final_answer.upper()}
    >>> class Loud(Benchmark):
    ...     def setup_environment(self, agent_data, task, seed_generator=None):
    ...         return Plain(task.environment_data)
    ...     def setup_agents(self, agent_data, environment, task, user, seed_generator=None):
    ...         agent = Echo(None, "echo")
    ...         return [agent], {"echo": agent}
    ...     def setup_evaluators(self, environment, task, agents, user, seed_generator=None):
    ...         return [Shouted(task, environment, user)]
    ...     def run_agents(self, agents, task, environment, query):
    ...         return agents[0].run(query)
    >>> reports = Loud(n_task_repeats=2).run([Task("hello", id="t1")])
    >>> [(r["task_id"], r["repeat_idx"], r["status"], r["eval"]) for r in reports]
    [('t1', 0, 'success', [{'passed': True}]), ('t1', 1, 'success', [{'passed': True}])]
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.benchmark.agent import AgentAdapter
from assay.benchmark.environment import Environment
from assay.benchmark.evaluator import Evaluator
from assay.benchmark.lifecycle import COMPONENTS, Lifecycle
from assay.benchmark.repetition import (
    TaskExecutionStatus,
)
from assay.benchmark.scorer_evaluator import (
    judge_settings,
)
from assay.benchmark.seeding import SeedGenerator
from assay.benchmark.task import Task, TaskQueue, tasks_of
from assay.benchmark.user import User
from assay.live._loop import run_to_end
from assay.live.executors import Executor, executor_of
from assay.results import CaseResult, RunSummary

__all__ = ["Benchmark", "BenchmarkCallback", "TaskExecutionStatus", "judge_settings"]

_log = logging.getLogger("assay.benchmark")


class BenchmarkCallback:
    """Hooks called around a benchmark run, each a no-op until overridden. An exception in a
    hook is logged and the run goes on."""

    def on_run_start(self, benchmark: Benchmark) -> None:
        """Before the first task."""

    def on_run_end(self, benchmark: Benchmark, results: list[dict[str, Any]]) -> None:
        """After the last task, with every report."""

    def on_task_start(self, benchmark: Benchmark, task: Task) -> None:
        """Before a task's first repetition."""

    def on_task_end(self, benchmark: Benchmark, task: Task, result: dict[str, Any]) -> None:
        """After a task's last repetition, with its report."""

    def on_task_repeat_start(self, benchmark: Benchmark, task: Task, repeat_idx: int) -> None:
        """Before one repetition."""

    def on_task_repeat_end(self, benchmark: Benchmark, report: dict[str, Any]) -> None:
        """After one repetition, with its report."""


class Benchmark(ABC):
    """A benchmark: subclass it, implement the setup hooks and `run_agents`, and `run` it on
    tasks (see the module).

    Args:
        callbacks: `BenchmarkCallback`s.
        n_task_repeats: Repetitions of each task (pass@k, pass^k, flaky tasks in the report).
        max_invocations: Most calls of `run_agents` in one repetition: the user answers each
            and the loop stops when the user is done.
        num_workers: Repetitions run at once.
        fail_on_setup_error: Raise a setup hook's exception instead of recording
            `setup_failed`.
        fail_on_task_error: Raise an exception of the agents, environment or user instead of
            recording it.
        fail_on_evaluation_error: Raise an evaluator's exception instead of recording
            `evaluation_failed`.
        seed: The global seed; each task and repetition derives its own (`SeedGenerator`).
        timeout: Seconds one repetition may take where its task's protocol sets none.
        name: The benchmark's name in the reports (default: its class name).
        judge_options: Options by scorer name for the model-judged scorers a
            `ScorerEvaluator` runs (model, `client_options`, ...; `assay bench`'s judge
            flags set them); an evaluator's own options win.
        executor: Where repetitions run: `"local"` (this process, the default), `"ray"` or
            a `RayExecutor` (the workers of a Ray cluster; the benchmark object is pickled
            to them).
    """

    def __init__(
        self,
        *,
        callbacks: Sequence[BenchmarkCallback] | None = None,
        n_task_repeats: int = 1,
        max_invocations: int = 1,
        num_workers: int = 1,
        fail_on_setup_error: bool = False,
        fail_on_task_error: bool = False,
        fail_on_evaluation_error: bool = False,
        seed: int | None = None,
        timeout: float | None = None,
        name: str | None = None,
        progress_bar: bool | str = False,
        judge_options: Mapping[str, Mapping[str, Any]] | None = None,
        executor: Executor | str | None = None,
    ) -> None:
        if n_task_repeats < 1:
            raise ValueError("n_task_repeats must be at least 1")
        if max_invocations < 1:
            raise ValueError("max_invocations must be at least 1")
        self.callbacks = list(callbacks or [])
        self.n_task_repeats = n_task_repeats
        self.max_invocations = max_invocations
        self.num_workers = num_workers
        self.fail_on_setup_error = fail_on_setup_error
        self.fail_on_task_error = fail_on_task_error
        self.fail_on_evaluation_error = fail_on_evaluation_error
        self.seed_generator = SeedGenerator(seed)
        self.timeout = timeout
        self.name = name or type(self).__name__
        self.progress_bar = progress_bar
        """Accepted as MASEval takes it; `assay bench` shows its own progress."""
        self.judge_options: dict[str, dict[str, Any]] = {
            name: dict(options) for name, options in (judge_options or {}).items()
        }
        self.executor: Executor = executor_of(executor)
        """Where repetitions run: this process (`"local"`, the default), or the workers of
        a Ray cluster (`"ray"` or a `RayExecutor`): there the setup, agents, user and
        evaluators run, the scoring and callbacks stay here."""
        self.tasks: list[Task] = []
        self.reports: list[dict[str, Any]] = []
        """One report per task repetition, in task order then repetition order."""
        self.results: list[CaseResult] = []
        """The same runs as assay scored them, in the same order."""
        self.summary: RunSummary | None = None
        """The aggregate, when the run wrote a reports directory."""

    # The hooks.

    @abstractmethod
    def setup_environment(
        self, agent_data: dict[str, Any], task: Task, seed_generator: SeedGenerator
    ) -> Environment:
        """The task's environment."""

    def setup_user(
        self,
        agent_data: dict[str, Any],
        environment: Environment,
        task: Task,
        seed_generator: SeedGenerator,
    ) -> User | None:
        """The task's user, or None (the agents then get the task's query, once)."""
        return None

    @abstractmethod
    def setup_agents(
        self,
        agent_data: dict[str, Any],
        environment: Environment,
        task: Task,
        user: User | None,
        seed_generator: SeedGenerator,
    ) -> tuple[Sequence[AgentAdapter], Mapping[str, AgentAdapter]]:
        """The agents to run, and every agent by name (for the traces)."""

    @abstractmethod
    def setup_evaluators(
        self,
        environment: Environment,
        task: Task,
        agents: Sequence[AgentAdapter],
        user: User | None,
        seed_generator: SeedGenerator,
    ) -> Sequence[Evaluator]:
        """The task's evaluators."""

    @abstractmethod
    def run_agents(
        self,
        agents: Sequence[AgentAdapter],
        task: Task,
        environment: Environment,
        query: str,
    ) -> Any:
        """Run the agents on `query`; their final answer."""

    def evaluate(
        self,
        evaluators: Sequence[Evaluator],
        agents: Mapping[str, AgentAdapter],
        final_answer: Any,
        traces: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """Each evaluator's metrics: its `filter_traces`, then its `__call__`."""
        return [ev(ev.filter_traces(traces), final_answer) for ev in evaluators]

    def execution_loop(
        self,
        agents: Sequence[AgentAdapter],
        task: Task,
        environment: Environment,
        user: User | None,
    ) -> Any:
        """The agents and the user, turn by turn: the user opens (else the task's query),
        answers each final answer, and the loop ends when the user is done or after
        `max_invocations` calls of `run_agents`. The last final answer."""
        query = user.get_initial_query() if user is not None else task.query
        final: Any = None
        for _ in range(self.max_invocations):
            final = _resolved(self.run_agents(agents, task, environment, query))
            if user is None:
                break
            query = user.respond(str(final) if final is not None else "")
            if user.is_done():
                break
        return final

    def register(self, category: str, name: str, component: Any) -> Any:
        """Trace `component` (anything with `gather_traces()`) under `category` and `name`
        in the current repetition; returns it."""
        registry = COMPONENTS.get()
        if registry is not None:
            registry[f"{category}:{name}"] = (category, name, component)
        return component

    # Running.

    def run(
        self,
        tasks: Task | Iterable[Task | Mapping[str, Any]],
        agent_data: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        reports_dir: str | Path | None = None,
        resume: bool = False,
    ) -> list[dict[str, Any]]:
        """Run every task `n_task_repeats` times; the reports, one per repetition, in task
        order then repetition order (also in `reports`; assay's results in `results`).

        Args:
            tasks: Tasks, or their dicts.
            agent_data: One dict for every task, or one per task in order.
            reports_dir: When given, write assay's reports there as repetitions finish
                (`results.jsonl`, a report per repetition, `_aggregate.json` with pass@k and
                pass^k); with `resume`, keep the repetitions that finished there and run the
                others.

        Raises:
            ValueError: tasks with one id, or `agent_data` of another length.
            Exception: a failure a `fail_on_*` flag asked to raise.
        """
        limit = self.timeout
        return run_to_end(self.run_async(tasks, agent_data, reports_dir=reports_dir,
                                         resume=resume), block_limit_s=limit)

    async def run_async(
        self,
        tasks: Task | Iterable[Task | Mapping[str, Any]],
        agent_data: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        reports_dir: str | Path | None = None,
        resume: bool = False,
    ) -> list[dict[str, Any]]:
        """`run`, from a running event loop."""
        self.tasks = tasks_of(tasks)
        data = _agent_data(agent_data, self.tasks)
        runner = Lifecycle(self, data, self.executor)
        units = runner.units(self.tasks)
        self.reports, self.results = [], []
        self._invoke("on_run_start", self)
        try:
            if reports_dir is None:
                outcomes = await runner.run_all(units)
            else:
                outcomes = await runner.run_into(Path(reports_dir), units, resume)
        finally:
            await runner.aclose()
        self.reports = [o.report for o in outcomes]
        self.results = [o.outcome.result for o in outcomes]
        self._invoke("on_run_end", self, self.reports)
        return self.reports

    def get_failed_tasks(
        self, status_filter: str | Iterable[str] | None = None
    ) -> TaskQueue:
        """The tasks of the last `run` with a repetition that did not succeed (or whose
        status is in `status_filter`), in task order, once each: to run them again.

        Raises:
            RuntimeError: `run` has not run yet.
        """
        if not self.reports:
            raise RuntimeError("get_failed_tasks() must be called after run(): no reports")
        wanted = (
            None if status_filter is None
            else {status_filter} if isinstance(status_filter, str)
            else {str(s) for s in status_filter}
        )
        failed = {
            r["task_id"] for r in self.reports
            if (r["status"] != TaskExecutionStatus.SUCCESS if wanted is None
                else r["status"] in wanted)
        }
        return TaskQueue(task for task in self.tasks if task.id in failed)

    def _invoke(self, hook: str, *args: Any) -> None:
        """Call `hook` on every callback; an exception is logged, never raised."""
        for callback in self.callbacks:
            method = getattr(callback, hook, None)
            if method is None:
                continue
            try:
                method(*args)
            except Exception:
                _log.exception("callback %s.%s() failed", type(callback).__name__, hook)


def _resolved(value: Any) -> Any:
    """`value`, awaited first when an async agent gave an awaitable (in the repetition's
    thread, on a loop of its own)."""
    if inspect.isawaitable(value):

        async def wait() -> Any:
            return await value

        return asyncio.run(wait())
    return value


def _agent_data(
    agent_data: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None, tasks: Sequence[Task]
) -> dict[str, dict[str, Any]]:
    if agent_data is None or isinstance(agent_data, Mapping):
        return {task.id: dict(agent_data or {}) for task in tasks}
    items = list(agent_data)
    if len(items) != len(tasks):
        raise ValueError(
            f"agent_data has {len(items)} entries for {len(tasks)} tasks: give one per task, "
            "or one dict for all"
        )
    return {task.id: dict(item) for task, item in zip(tasks, items, strict=True)}


