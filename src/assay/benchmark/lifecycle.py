"""The benchmark lifecycle as units of the live runner: each task repetition's hooks run
wherever the executor runs units (`execute`: setup, the agents and the user, the traces, the
evaluators), and its scoring, its report and the callbacks here, on the driver (`finish`).
`Benchmark.run` builds one `Lifecycle` per run (see `assay.benchmark.benchmark` for the
statuses and how each counts).
"""

from __future__ import annotations

import contextvars
import copy
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._jsonable import dumps_lenient
from assay._text import path_text, text_of
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
    metrics_of,
)
from assay.benchmark.task import Task
from assay.live._threads import in_thread
from assay.live.capture import TrajectoryCollector
from assay.live.executors import Executor, LocalExecutor
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
from assay.results import ErrorKind, Score
from assay.schema.evalset import EvalCase
from assay.scoring import Scoring

if TYPE_CHECKING:
    from assay.benchmark.benchmark import Benchmark

__all__ = ["COMPONENTS", "Lifecycle"]

COMPONENTS: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "assay_benchmark_registry", default=None
)
"""The components registered in the repetition running here (`Benchmark.register`)."""

_KIND_OF_STATUS = {
    TaskExecutionStatus.AGENT_ERROR: ErrorKind.AGENT_ERROR,
    TaskExecutionStatus.UNKNOWN_EXECUTION_ERROR: ErrorKind.AGENT_ERROR,
    TaskExecutionStatus.TASK_TIMEOUT: ErrorKind.TIMEOUT,
    TaskExecutionStatus.ENVIRONMENT_ERROR: ErrorKind.INFRASTRUCTURE_ERROR,
    TaskExecutionStatus.USER_ERROR: ErrorKind.INFRASTRUCTURE_ERROR,
    TaskExecutionStatus.SETUP_FAILED: ErrorKind.INFRASTRUCTURE_ERROR,
}
_RETRIED = (TaskExecutionStatus.ENVIRONMENT_ERROR, TaskExecutionStatus.USER_ERROR)


class _FatalError(Exception):
    """A failure the benchmark was told to raise (a `fail_on_*` flag), carried out of the
    repetition's thread."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(slots=True)
class _Done:
    """A finished repetition: its report (the MASEval shape) and assay's outcome."""

    report: dict[str, Any]
    outcome: UnitOutcome


@dataclass(slots=True)
class _Performed:
    """The agents' side of one repetition (`Lifecycle.execute`), as plain data that travels
    back from a worker of a remote executor: the repetition without its evaluators, their
    verdicts, and the capture."""

    done: Repetition
    verdicts: list[Score | None]
    """The evaluators' verdicts in order; None for a model-judged check a worker left to
    the driver (its metrics in `done.eval` say what to judge)."""
    collector: TrajectoryCollector
    duration_ms: float
    attempts: int


class Lifecycle(UnitRunner[Unit, _Performed, _Done]):
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
        COMPONENTS.set(registry)
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
) -> Lifecycle:
    """The agents' side of a benchmark run, on a worker of a remote executor."""
    runner = Lifecycle(benchmark, agent_data)
    runner.units(tasks)
    return runner
