"""Evaluators: what a benchmark concludes from a task's traces and the agent's answer.

An evaluator filters the traces down to what it needs (`filter_traces`), then computes
metrics from them (`__call__`), a dict of JSON values. The benchmark runs both and turns the
metrics into a verdict with `Evaluator.verdict`:

- a number under `score` or `accuracy` (in 0..1) is the score;
- a boolean under `passed`, `success` or `task_completed` says whether the run passed; with
  a score and no such boolean, the run passes on a score of 1;
- with a boolean and no score, the score is 1.0 or 0.0;
- otherwise the metrics are kept, and the run is unscored with the reason `no_verdict`.

Override `verdict` in an evaluator to read its metrics otherwise. An unexpected failure of an
evaluator should raise: the benchmark records it (`evaluation_failed`) or re-raises it
(`fail_on_evaluation_error`).

Example:
    >>> class Exact(Evaluator):
    ...     def filter_traces(self, traces):
    ...         return traces
    ...     def __call__(self, traces, final_answer=None):
    ...         return {"accuracy": 1.0 if final_answer == "42" else 0.0}
    >>> exact = Exact(task=None, environment=None)
    >>> score = exact.verdict(exact(exact.filter_traces({}), "42"))
    >>> score.value, score.passed
    (1.0, True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from assay.results import Score
from assay.scoring import verdict_of

__all__ = ["Evaluator", "verdict_of"]


class Evaluator(ABC):
    """Assesses one task repetition: subclass it and implement `filter_traces` and
    `__call__` (the seed's API)."""

    def __init__(self, task: Any, environment: Any, user: Any = None) -> None:
        self.task = task
        self.environment = environment
        self.user = user

    @abstractmethod
    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        """The part of the traces this evaluator reads (all of them when it needs no
        filtering)."""

    @abstractmethod
    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        """The metrics, from the filtered traces and the agent's final answer."""

    @property
    def name(self) -> str:
        """The evaluator's name in the reports (its class name)."""
        return type(self).__name__

    def verdict(self, metrics: dict[str, Any]) -> Score:
        """The verdict the metrics give (see the module for the rule)."""
        return verdict_of(self.name, metrics)
