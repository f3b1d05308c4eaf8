"""Any registered scorer as a benchmark evaluator, so that the catalog (`static_json`,
`trajectory`, `tool_name_match`, the judges, ...) checks benchmark tasks too. A judge is
built with the benchmark's `judge_options` (`assay bench --judge-model ...`) under its own.

The task's `evaluation_data` is the ground truth, under the names of a case's fields
(`expected_answer`, `expected_tools`, `expected_trajectory`, ...); the run is the agents'
final answer and the tool invocations of the traces, in the order they were made.

Example:
    >>> from assay.benchmark import Task
    >>> task = Task("What is 6 x 7?", evaluation_data={"expected_answer": "42"})
    >>> check = ScorerEvaluator(task, None, scorer="static_json")
    >>> metrics = check(check.filter_traces({}), final_answer="42")
    >>> metrics["score"], metrics["passed"]
    (1.0, True)
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Mapping
from typing import Any

from assay.benchmark.evaluator import Evaluator
from assay.live.executors import on_remote_worker
from assay.records import Case, Step, ToolCall, Trajectory
from assay.results import Score, ScoreStatus

__all__ = [
    "DEFERRED",
    "JUDGE_SETTINGS",
    "Deferred",
    "ScorerEvaluator",
    "judge_settings",
    "metrics_of",
]

_CASE_FIELDS = {f.name for f in dataclasses.fields(Case)} - {"id", "question"}

JUDGE_SETTINGS: contextvars.ContextVar[Mapping[str, Mapping[str, Any]] | None] = (
    contextvars.ContextVar("assay_benchmark_judges", default=None)
)
"""The benchmark's `judge_options` in the repetition running here (the lifecycle sets it)."""


def judge_settings() -> Mapping[str, Mapping[str, Any]]:
    """The options of the model-judged scorers (`assay bench`'s judge flags, or the
    benchmark's `judge_options`) in the repetition running here: what a `ScorerEvaluator`
    of a judge is built with, below its own options.

    Example:
        >>> judge_settings()
        {}
    """
    return JUDGE_SETTINGS.get() or {}


class ScorerEvaluator(Evaluator):
    """Checks a task repetition with the registered scorer `scorer` (and its `options`)."""

    def __init__(
        self, task: Any, environment: Any, user: Any = None, *, scorer: str, **options: Any
    ) -> None:
        super().__init__(task, environment, user)
        from assay.scorers.registry import create_scorer, scorer_info

        self.scorer_name = scorer
        self.options = options
        # A judge takes its model and client from the benchmark's judge options (the command's
        # flags), below what is given here. On a worker of a remote executor a judge is not
        # built: the driver judges (`deferred`).
        self.scorer: Any = None
        if not (on_remote_worker() and scorer_info(scorer).is_async):
            self.scorer = create_scorer(scorer, **{**judge_settings().get(scorer, {}), **options})

    @property
    def name(self) -> str:
        return self.scorer_name

    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        """The tool invocations, wherever they were registered."""
        environment = traces.get("environment") or {}
        tools = {**(environment.get("tools") or {}), **(traces.get("tools") or {})}
        return {"tools": tools}

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        data = dict(getattr(self.task, "evaluation_data", {}) or {})
        case = Case(
            id=str(getattr(self.task, "id", "task")),
            question=getattr(self.task, "query", None),
            **{key: value for key, value in data.items() if key in _CASE_FIELDS},
        )
        run = Trajectory(
            answer=None if final_answer is None else str(final_answer), steps=_steps(traces)
        )
        if self.scorer is None:  # a judge, on a worker: the driver judges (one cache, budget)
            return {DEFERRED: Deferred(self.scorer_name, dict(self.options), case, run)}
        return metrics_of(self.scorer_name, self.scorer(case, run))


DEFERRED = "__assay_deferred_check__"
"""The key of the metrics a model-judged check leaves on a worker of a remote executor."""


@dataclasses.dataclass(frozen=True, slots=True)
class Deferred:
    """A model-judged check left to the driver: the scorer, its options, the case and run."""

    scorer: str
    options: dict[str, Any]
    case: Case
    run: Trajectory


def metrics_of(name: str, score: Score) -> dict[str, Any]:
    """A scorer's score as an evaluator's metrics.

    Raises:
        ValueError: the scorer gave an error (bad ground truth, a scorer's bug): no verdict.
    """
    if score.status is ScoreStatus.ERROR:
        raise ValueError(f"{name}: {score.rationale}")
    metrics = {**score.details, "rationale": score.rationale}
    if score.status is ScoreStatus.SCORED:
        metrics.update(score=score.value, passed=score.passed)
    return metrics


def _steps(traces: dict[str, Any]) -> list[Step]:
    """One step per tool invocation, in the order they were made."""
    calls = []
    for name, trace in (traces.get("tools") or {}).items():
        for invocation in (trace or {}).get("invocations") or []:
            calls.append((invocation.get("timestamp") or 0, name, invocation))
    calls.sort(key=lambda item: item[0])
    return [
        Step(index, tool_calls=[ToolCall(name, invocation.get("inputs"),
                                         result=invocation.get("outputs"))])
        for index, (_, name, invocation) in enumerate(calls)
    ]
