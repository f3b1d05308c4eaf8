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

import math
from abc import ABC, abstractmethod
from typing import Any

from assay.results import Score

__all__ = ["Evaluator", "verdict_of"]

SCORE_KEYS = ("score", "accuracy")
PASSED_KEYS = ("passed", "success", "task_completed")


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


def verdict_of(name: str, metrics: Any) -> Score:
    """The verdict of metrics by the module's rule, named `name`; the metrics are the
    score's details.

    Example:
        >>> verdict_of("e", {"success": False}).passed
        False
        >>> verdict_of("e", {"precision": 0.8}).details["reason"]
        'no_verdict'
    """
    if not isinstance(metrics, dict):
        return Score.error(
            name,
            f"the evaluator returned {type(metrics).__name__}, not a dict of metrics",
            {"reason": "scorer_error"},
        )
    value = next((metrics[k] for k in SCORE_KEYS if _is_number(metrics.get(k))), None)
    flag = next((metrics[k] for k in PASSED_KEYS if isinstance(metrics.get(k), bool)), None)
    details = {**metrics}
    if value is not None and not 0.0 <= float(value) <= 1.0:
        return Score.unscored(
            name, f"score {value} is outside 0..1", {**details, "reason": "no_verdict"}
        )
    if value is None and flag is None:
        keys = ", ".join(sorted(map(str, metrics))) or "none"
        return Score.unscored(
            name,
            f"no score or pass/fail among the metrics ({keys}); they are kept",
            {**details, "reason": "no_verdict"},
        )
    score = float(value) if value is not None else (1.0 if flag else 0.0)
    passed = bool(flag) if flag is not None else score >= 1.0
    return Score.scored(name, score, passed=passed, rationale=_rationale(metrics), details=details)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _rationale(metrics: dict[str, Any]) -> str:
    shown = [f"{k}={v}" for k, v in metrics.items() if isinstance(v, bool | int | float)]
    return ", ".join(shown[:6])
