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
import contextvars
import copy
import functools
import inspect
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay._jsonable import dumps_lenient
from assay._text import path_text, text_of
from assay.benchmark.agent import AgentAdapter
from assay.benchmark.environment import Environment
from assay.benchmark.evaluator import Evaluator, verdict_of
from assay.benchmark.repetition import (
    Repetition,
    TaskExecutionStatus,
    error_of,
    gather,
    kept_report,
    report_of,
    status_of,
    usage_of,
)
from assay.benchmark.scorer_evaluator import (
    DEFERRED,
    JUDGE_SETTINGS,
    Deferred,
    judge_settings,
    metrics_of,
)
from assay.benchmark.seeding import SeedGenerator
from assay.benchmark.task import Task, TaskQueue, tasks_of
from assay.benchmark.user import User
from assay.live._loop import run_to_end
from assay.live._threads import in_thread
from assay.live.capture import TrajectoryCollector
from assay.live.executors import Executor, LocalExecutor, executor_of
from assay.live.output import EVALSET_FILE, RUNS_FILE, LiveReports
from assay.live.runner import (
    Recipe,
    RunSettings,
    Unit,
    UnitOutcome,
    UnitRunner,
    is_infrastructure_error,
)
from assay.records import Case, Trajectory
from assay.reports.red_flags import RedFlagThresholds
from assay.results import CaseResult, ErrorKind, RunSummary, Score
from assay.schema.evalset import EvalCase
from assay.scoring import Scoring

__all__ = ["Benchmark", "BenchmarkCallback", "TaskExecutionStatus", "judge_settings"]

_log = logging.getLogger("assay.benchmark")


_KIND_OF_STATUS = {
    TaskExecutionStatus.AGENT_ERROR: ErrorKind.AGENT_ERROR,
    TaskExecutionStatus.UNKNOWN_EXECUTION_ERROR: ErrorKind.AGENT_ERROR,
    TaskExecutionStatus.TASK_TIMEOUT: ErrorKind.TIMEOUT,
    TaskExecutionStatus.ENVIRONMENT_ERROR: ErrorKind.INFRASTRUCTURE_ERROR,
    TaskExecutionStatus.USER_ERROR: ErrorKind.INFRASTRUCTURE_ERROR,
    TaskExecutionStatus.SETUP_FAILED: ErrorKind.INFRASTRUCTURE_ERROR,
}
_RETRIED = (TaskExecutionStatus.ENVIRONMENT_ERROR, TaskExecutionStatus.USER_ERROR)


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


class _FatalError(Exception):
    """A failure the benchmark was told to raise (a `fail_on_*` flag), carried out of the
    repetition's thread."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


_registry: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "assay_benchmark_registry", default=None
)
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
        registry = _registry.get()
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
        runner = _Lifecycle(self, data, self.executor)
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


@dataclass(slots=True)
class _Done:
    """A finished repetition: its report (the MASEval shape) and assay's outcome."""

    report: dict[str, Any]
    outcome: UnitOutcome


@dataclass(slots=True)
class _Performed:
    """The agents' side of one repetition (`_Lifecycle.execute`), as plain data that travels
    back from a worker of a remote executor: the repetition without its evaluators, their
    verdicts, and the capture."""

    done: Repetition
    verdicts: list[Score | None]
    """The evaluators' verdicts in order; None for a model-judged check a worker left to
    the driver (its metrics in `done.eval` say what to judge)."""
    collector: TrajectoryCollector
    duration_ms: float
    attempts: int


class _Lifecycle(UnitRunner[Unit, _Performed, _Done]):
    """The benchmark's repetitions as units of the live runner: the setup, the agents and
    the evaluators run wherever the executor runs units; the scoring and the callbacks run
    here."""

    def __init__(
        self,
        benchmark: Benchmark,
        agent_data: dict[str, dict[str, Any]],
        executor: Executor | None = None,
    ) -> None:
        super().__init__(
            RunSettings(concurrency=max(1, benchmark.num_workers), timeout_s=benchmark.timeout),
            executor,
        )
        self.benchmark = benchmark
        self.agent_data = agent_data
        self.scoring = Scoring(verdicts_given=True)  # the evaluators give them
        self._judges: dict[tuple[str, str], Any] = {}
        """The scorers of model-judged checks left to the driver, by scorer and options."""
        self._tasks: dict[str, Task] = {}
        self._left_in_task: dict[str, int] = {}

    def units(self, tasks: Sequence[Task]) -> list[Unit]:
        """Every (task, repetition), task by task."""
        count = self.benchmark.n_task_repeats
        units = []
        for task in tasks:
            self._tasks[task.id] = task
            self._left_in_task[task.id] = count
            # The whole task goes into evalset.jsonl: a task changed since is run again on
            # resume.
            case = EvalCase.model_validate(
                {"eval_id": task.id, "user_query": task.query, "task": task.to_dict()}
            )
            for k in range(1, count + 1):
                run_id = task.id if count == 1 else f"{task.id}#{k}"
                units.append(Unit(case, k, run_id, count))
        return units

    def starting(self, unit: Unit) -> None:
        task = self._tasks[unit.case.eval_id]
        if unit.repeat == 1:
            self.benchmark._invoke("on_task_start", self.benchmark, task)
        self.benchmark._invoke("on_task_repeat_start", self.benchmark, task, unit.repeat - 1)

    async def execute(self, unit: Unit) -> _Performed:
        task = self._tasks[unit.case.eval_id]
        attempts = 0
        while True:
            attempts += 1
            collector = TrajectoryCollector()
            started = time.perf_counter()
            done = await self._repetition(task, unit.repeat - 1, collector)
            failed_outside = done.status in _RETRIED or done.infrastructure
            retry = attempts <= task.protocol.max_retries and failed_outside
            if not retry:
                break
        duration_ms = (time.perf_counter() - started) * 1000.0
        verdicts: list[Score | None] = []
        for index, metrics in enumerate(done.eval or []):
            if isinstance(metrics, dict) and DEFERRED in metrics:
                verdicts.append(None)  # judged on the driver (`finish`)
                continue
            name = done.names[index] if index < len(done.names) else f"evaluator_{index + 1}"
            evaluator = done.evaluators[index] if index < len(done.evaluators) else None
            verdicts.append(_verdict(evaluator, name, metrics))
        done.evaluators = []  # they hold the environment: judged here, not sent on
        return _Performed(done, verdicts, collector, duration_ms, attempts)

    async def finish(self, unit: Unit, part: _Performed) -> _Done:
        task = self._tasks[unit.case.eval_id]
        done = part.done
        for index, verdict in enumerate(part.verdicts):
            if verdict is None:
                part.verdicts[index] = await self._judge(done, index)
        report = report_of(task, unit.repeat - 1, done,
                           usage_of(part.collector, done.traces, done.eval))
        outcome = await self._scored(unit, task, part)
        outcome.result.benchmark = report
        finished = _Done(report, outcome)
        self.benchmark._invoke("on_task_repeat_end", self.benchmark, report)
        self._left_in_task[task.id] -= 1
        if self._left_in_task[task.id] == 0:
            self.benchmark._invoke("on_task_end", self.benchmark, task, report)
        return finished

    async def aclose(self) -> None:
        """Close the model clients of the checks judged here."""
        for scorer in self._judges.values():
            close = getattr(scorer, "aclose", None)
            if close is not None:
                await close()

    async def _judge(self, done: Repetition, index: int) -> Score:
        """A model-judged check a worker left to the driver, judged here: its metrics put in
        the repetition's `eval`, its verdict returned. One scorer per check and options for
        the whole run, so that its cache, budget and limits are shared."""
        deferred: Deferred = done.eval[index][DEFERRED]  # type: ignore[index]
        name = done.names[index] if index < len(done.names) else deferred.scorer
        key = (deferred.scorer, repr(sorted(deferred.options.items())))
        scorer: Any = self._judges.get(key)
        try:
            if scorer is None:
                from assay.scorers.registry import create_scorer

                options = {**self.benchmark.judge_options.get(deferred.scorer, {}),
                           **deferred.options}
                scorer = self._judges[key] = create_scorer(deferred.scorer, **options)
            metrics = metrics_of(deferred.scorer, await scorer.score_async(deferred.case,
                                                                           deferred.run))
        except Exception as exc:  # the check's failure, never the run's, never a score
            reason = f"evaluator raised {type(exc).__name__}: {text_of(exc)}"[:500]
            assert done.eval is not None
            done.eval[index] = {"error": reason}
            return Score.error(name, reason, {"reason": ErrorKind.SCORER_ERROR})
        assert done.eval is not None
        done.eval[index] = metrics
        return verdict_of(name, metrics)

    def lost(self, unit: Unit, kind: ErrorKind, reason: str) -> _Performed:
        status = (
            TaskExecutionStatus.TASK_TIMEOUT if kind is ErrorKind.TIMEOUT
            else TaskExecutionStatus.UNKNOWN_EXECUTION_ERROR
        )
        error = {"error_type": "WorkerLost", "error_message": reason, "traceback": ""}
        done = Repetition(status, error, infrastructure=kind is ErrorKind.INFRASTRUCTURE_ERROR)
        return _Performed(done, [], TrajectoryCollector(), 0.0, 0)

    def recipe(self) -> Recipe:
        # The callbacks stay here (they may hold a console); so do the results.
        sent = copy.copy(self.benchmark)
        sent.callbacks, sent.reports, sent.results, sent.summary = [], [], [], None
        # Model-judged checks are judged here (`_judge`): the judges' settings stay here too.
        sent.judge_options = {}
        sent.executor = LocalExecutor()
        return Recipe(functools.partial(
            _lifecycle_on_worker, sent, self.agent_data, list(self._tasks.values())
        ))

    def longest_unit_s(self) -> float | None:
        longest = 0.0
        for task in self._tasks.values():
            limit = task.protocol.timeout_seconds or self.benchmark.timeout
            if limit is None:
                return None
            longest = max(longest, limit * (task.protocol.max_retries + 1))
        return longest

    async def _repetition(
        self, task: Task, repeat_idx: int, collector: TrajectoryCollector
    ) -> Repetition:
        """Run one repetition's hooks in a thread of its own, under the task's deadline."""
        registry: dict[str, Any] = {}
        timeout = task.protocol.timeout_seconds or self.benchmark.timeout

        async def work() -> Repetition:
            return await in_thread(self._hooks, task, repeat_idx, registry)

        ended = await self._bounded(work(), collector, timeout_s=timeout)
        if ended.timed_out:
            done = Repetition(
                TaskExecutionStatus.TASK_TIMEOUT,
                {
                    "error_type": "TaskTimeoutError",
                    "error_message": f"the task ran past its timeout of {timeout:g} s",
                    "traceback": "",
                    "timeout": timeout,
                },
            )
            done.traces = gather(registry, "gather_traces")
            done.config = gather(registry, "gather_config")
            return done
        if isinstance(ended.failure, _FatalError):
            raise ended.failure.error
        if ended.failure is not None:  # the thread itself failed: not a hook's doing
            return Repetition(
                TaskExecutionStatus.UNKNOWN_EXECUTION_ERROR, error_of(ended.failure)
            )
        assert ended.value is not None
        return ended.value

    def _hooks(self, task: Task, repeat_idx: int, registry: dict[str, Any]) -> Repetition:
        """The repetition, in its own thread: setup, the execution loop, traces, evaluation."""
        bench = self.benchmark
        _registry.set(registry)
        JUDGE_SETTINGS.set(bench.judge_options)
        seeds = bench.seed_generator.for_task(task.id).for_repetition(repeat_idx)
        data = self.agent_data.get(task.id, {})
        done = Repetition()
        try:
            environment = bench.setup_environment(data, task, seed_generator=seeds)
            user = bench.setup_user(data, environment, task, seed_generator=seeds)
            agents_to_run, agents = bench.setup_agents(
                data, environment, task, user, seed_generator=seeds
            )
            evaluators = list(
                bench.setup_evaluators(environment, task, agents_to_run, user, seed_generator=seeds)
            )
        except Exception as exc:
            if bench.fail_on_setup_error:
                raise _FatalError(exc) from exc
            return Repetition(TaskExecutionStatus.SETUP_FAILED, error_of(exc))
        bench.register("environment", "env", environment)
        if isinstance(environment, Environment):  # each tool's invocations, by its name
            for name, tool in environment.get_tools().items():
                bench.register("tools", name, tool)
        if user is not None:
            bench.register("user", "user", user)
        for name, agent in dict(agents).items():
            bench.register("agents", name, agent)
        try:
            done.final_answer = bench.execution_loop(agents_to_run, task, environment, user)
        except Exception as exc:
            if bench.fail_on_task_error:
                raise _FatalError(exc) from exc
            done.status = status_of(exc)
            done.error = error_of(exc)
            done.infrastructure = is_infrastructure_error(exc)
        done.traces = gather(registry, "gather_traces")
        done.config = gather(registry, "gather_config")
        done.evaluators = evaluators
        done.names = _names(evaluators)
        if done.status is TaskExecutionStatus.SUCCESS:
            try:
                done.eval = list(bench.evaluate(evaluators, dict(agents), done.final_answer,
                                                done.traces))
            except Exception as exc:
                if bench.fail_on_evaluation_error:
                    raise _FatalError(exc) from exc
                done.status = TaskExecutionStatus.EVALUATION_FAILED
                done.error = error_of(exc)
        return done

    async def _scored(self, unit: Unit, task: Task, part: _Performed) -> UnitOutcome:
        """The repetition through the one scoring step: its evaluators' verdicts."""
        done = part.done
        kind = ErrorKind.INFRASTRUCTURE_ERROR if done.infrastructure else (
            _KIND_OF_STATUS.get(done.status)
        )
        message = None if done.error is None else done.error.get("error_message")
        run = Trajectory(
            run_id=unit.run_id,
            scenario_id=task.id,
            runner=self.benchmark.name,
            question=task.query,
            answer=_answer_text(done.final_answer),
            steps=part.collector.to_steps(),
            usage=part.collector.usage(),
            duration_ms=round(part.duration_ms, 3),
            source=f"benchmark {self.benchmark.name}: {unit.run_id}",
            error=None if kind is None else f"{done.status}: {message}"[:1000],
            repeat=unit.repeat if unit.of > 1 else None,
        )
        run.error_kind = kind
        verdicts: list[Score] = []
        if done.status is TaskExecutionStatus.EVALUATION_FAILED:
            verdicts.append(
                Score.error("evaluation", f"evaluation_failed: {message}"[:500],
                            {"reason": ErrorKind.SCORER_ERROR})
            )
        verdicts.extend(verdict for verdict in part.verdicts if verdict is not None)
        case = Case(id=task.id, question=task.query)
        result = await self.scoring.score_case(case, run, verdicts=verdicts)
        return UnitOutcome(unit, run, result, part.collector, kind, part.attempts)

    async def run_into(self, directory: Path, units: list[Unit], resume: bool) -> list[_Done]:
        """Run the units not finished in `directory` yet, saving each as it ends; the reports
        of every unit, kept ones read back."""
        cases = list({unit.case.eval_id: unit.case for unit in units}.values())
        reports = LiveReports(
            directory,
            resume=resume,
            cases=cases,
            keys=[unit.key for unit in units],
            settings=self.scoring.document(),
        )
        finished: dict[Any, _Done] = {}
        interrupted = True
        with reports:
            reports.write_cases(cases)
            todo = [unit for unit in units if unit.key not in reports.finished]

            def save(done: _Done) -> None:
                reports.save(done.outcome)
                finished[done.outcome.unit.key] = done

            try:
                await self.run_all(todo, save)
                interrupted = False
            finally:
                self.benchmark.summary = reports.finish(
                    units,
                    cases=len(cases),
                    weights={},
                    interrupted=interrupted,
                    options=_options(self.benchmark, directory, units, len(cases)),
                    scorers=[],
                    problems=[],
                )
        result: list[_Done] = []
        for unit in units:
            if unit.key in finished:
                result.append(finished[unit.key])
            elif unit.key in reports.results:
                kept = reports.results[unit.key]
                report = kept_report(directory, reports.lines[unit.key], unit)
                run = Trajectory(run_id=unit.run_id, scenario_id=unit.case.eval_id)
                outcome = UnitOutcome(unit, run, kept, TrajectoryCollector())
                result.append(_Done(report, outcome))
        return result


def _verdict(evaluator: Any, name: str, metrics: Any) -> Score:
    try:
        if isinstance(evaluator, Evaluator):
            score = evaluator.verdict(metrics)
            score.scorer = name
            return score
        return verdict_of(name, metrics)
    except Exception as exc:  # an override of `verdict` that raised: the check's error
        return Score.error(name, f"verdict raised {type(exc).__name__}: {text_of(exc)}"[:500],
                           {"reason": ErrorKind.SCORER_ERROR})


def _names(evaluators: Sequence[Any]) -> list[str]:
    """The evaluators' names, a second of one name numbered (`ToolUsage#2`)."""
    seen: dict[str, int] = {}
    names = []
    for evaluator in evaluators:
        base = getattr(evaluator, "name", None) or type(evaluator).__name__
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def _answer_text(answer: Any) -> str | None:
    if answer is None or isinstance(answer, str):
        return answer
    return dumps_lenient(answer).decode()


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


def _options(
    benchmark: Benchmark, directory: Path, units: Sequence[Unit], tasks: int
) -> dict[str, Any]:
    """What the aggregate records of the run (`options`)."""
    return {
        "trajectories": path_text(directory / RUNS_FILE),
        "scenarios": [path_text(directory / EVALSET_FILE)],
        "reports_dir": path_text(directory),
        "scorers": [],
        "red_flag_thresholds": RedFlagThresholds().to_report(),
        "live": {
            "benchmark": benchmark.name,
            "tasks": tasks,
            "repeat": benchmark.n_task_repeats,
            "concurrency": benchmark.num_workers,
            "timeout_s": benchmark.timeout,
            "max_invocations": benchmark.max_invocations,
            "seed": benchmark.seed_generator.global_seed,
            "units": len(units),
            "executor": benchmark.executor.describe(),
        },
    }


def _lifecycle_on_worker(
    benchmark: Benchmark, agent_data: dict[str, dict[str, Any]], tasks: list[Task]
) -> _Lifecycle:
    """The agents' side of a benchmark run, on a worker of a remote executor."""
    runner = _Lifecycle(benchmark, agent_data)
    runner.units(tasks)
    return runner
