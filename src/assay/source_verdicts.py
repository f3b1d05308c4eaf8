"""A run's source verdict as pass or fail: what the tool that made a file said of each run
(`Trajectory.source_verdicts`), read so that `assay evaluate` can say how often its own
verdicts agree with it.

The readers keep the source's verdicts as written; this module reads them, by the first rule
that applies:
- `final_eval_status` (Google ADK's eval results): `PASSED` passes, `FAILED` fails;
- `resolved` (SWE-bench, SWE-agent's reviewer): true or false;
- `reward` (tau-bench, tau2-bench): 1 passes, 0 fails;
- `eval` (MASEval's evaluators' metrics): each evaluator's `passed` / `success` /
  `task_completed`, else a `score` of 1 or 0; the run passes when every one passes;
- otherwise the verdicts by check name (Inspect AI's scores: `{"match": {"value": "C"}}`):
  `C` (correct) and true pass, `I` (incorrect) and false fail, a number of 1 or 0 passes or
  fails; the run passes when every readable one passes.
Anything else (a partial credit, a graded score, a status without a verdict) says neither:
None, and the run is not compared.

Example:
    >>> source_passed({"includes": {"value": "C"}}), source_passed({"reward": 0.0})
    (True, False)
    >>> source_passed({"final_eval_status": "NOT_EVALUATED"}) is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["source_passed"]

_ADK = {"PASSED": True, "FAILED": False, 1: True, 2: False}


def source_passed(verdicts: Mapping[str, Any] | None) -> bool | None:
    """Whether the run's source passed it; None when its verdicts do not say."""
    if not verdicts:
        return None
    if "final_eval_status" in verdicts:
        status = verdicts["final_eval_status"]
        return _ADK.get(status) if isinstance(status, str | int) else None
    if "resolved" in verdicts:
        return _flag(verdicts["resolved"])
    if "reward" in verdicts:
        return _number(verdicts["reward"])
    if "eval" in verdicts:
        found = [_metrics(item) for item in verdicts["eval"] or ()] if isinstance(
            verdicts["eval"], list
        ) else []
        return _all(found)
    return _all([_value(verdict) for verdict in verdicts.values()])


def _all(found: list[bool | None]) -> bool | None:
    known = [verdict for verdict in found if verdict is not None]
    if not known:
        return None
    return all(known)


def _metrics(metrics: Any) -> bool | None:
    """One evaluator's metrics (MASEval)."""
    if not isinstance(metrics, Mapping):
        return None
    for key in ("passed", "success", "task_completed"):
        if key in metrics:
            return _flag(metrics[key])
    return _number(metrics.get("score"))


def _value(verdict: Any) -> bool | None:
    """One check's verdict (Inspect AI's `Score`: its `value`)."""
    value = verdict.get("value") if isinstance(verdict, Mapping) else verdict
    if isinstance(value, str):
        return {"C": True, "I": False}.get(value)
    flag = _flag(value)
    return flag if flag is not None else _number(value)


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _number(value: Any) -> bool | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return True if value == 1 else False if value == 0 else None
