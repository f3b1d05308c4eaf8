"""A benchmark evaluator as a check of a live run (`CriterionConfig.evaluator`): the run's
traces as a benchmark gathers them, the case as the evaluator's task, its metrics as the
verdict (`assay.scoring.verdict_of`, or the evaluator's own `verdict`).

Example:
    >>> from assay.records import Step, ToolCall, Trajectory
    >>> run = Trajectory(runner="bot", steps=[Step(0, tool_calls=[ToolCall("add", {"a": 1},
    ...                                                              result=2)])])
    >>> traces_of(run)["tools"]["add"]["invocations"][0]["outputs"]
    2
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.records import Trajectory
from assay.results import Score
from assay.schema.evalconfig import EVALUATOR_CLASSES
from assay.schema.evalset import EvalCase
from assay.scoring import verdict_of

__all__ = ["evaluator_class_of", "evaluator_verdict", "traces_of"]


def evaluator_verdict(
    name: str, options: Mapping[str, Any], case: EvalCase, run: Trajectory
) -> Score:
    """The verdict, named `name`, of the evaluator a criterion's `options` name on `run`
    (the user's code: the runner calls this in a thread under the run's timeout).

    Raises:
        Exception: whatever the evaluator raised (the criterion's error).
    """
    evaluator_class = evaluator_class_of(str(options["evaluator"]))
    own = dict(options.get("options") or {})
    evaluator = evaluator_class(_TaskView.of(case), None, None, **own)
    metrics = evaluator(evaluator.filter_traces(traces_of(run)), run.answer)
    verdict = getattr(evaluator, "verdict", None)
    score: Score = verdict(metrics) if callable(verdict) else verdict_of(name, metrics)
    score.scorer = name
    return score


@dataclass(frozen=True, slots=True)
class _TaskView:
    """An eval case as a benchmark evaluator sees a task."""

    id: str
    query: str | None
    evaluation_data: dict[str, Any]
    metadata: dict[str, Any]

    @classmethod
    def of(cls, case: EvalCase) -> _TaskView:
        extra = dict(case.model_extra or {})
        expected = case.model_dump(
            include={"expected_response", "expected_tools", "expected_trajectory"},
            exclude_none=True,
        )
        own = extra.get("evaluation_data")
        return cls(
            case.eval_id,
            case.user_query,
            {**expected, **(own if isinstance(own, dict) else {})},
            dict(extra.get("metadata") or {}) if isinstance(extra.get("metadata"), dict) else {},
        )


def traces_of(run: Trajectory) -> dict[str, Any]:
    """A captured run as a benchmark's traces: each tool's invocations (`inputs`, `outputs`,
    `status`) and the agent's conversation.

    """
    tools: dict[str, dict[str, Any]] = {}
    for step in run.steps:
        for call in step.tool_calls:
            entry = tools.setdefault(call.name, {"invocations": [], "total_invocations": 0})
            entry["invocations"].append(
                {"id": entry["total_invocations"], "inputs": call.args, "outputs": call.result,
                 "status": "success"}
            )
            entry["total_invocations"] += 1
    messages = [{"role": m.role, "content": m.content} for m in run.messages]
    return {
        "tools": tools,
        "agents": {run.runner or "agent": {"messages": messages,
                                          "message_count": len(messages)}},
        "metadata": {"run_id": run.run_id},
    }


def evaluator_class_of(path: str) -> Any:
    """The evaluator class a criterion names (`module:qualname`): the one given to
    `CriterionConfig.evaluator` in this process, else imported.

    Raises:
        ValueError: no such class.
    """
    found = EVALUATOR_CLASSES.get(path)
    if found is not None:
        return found
    module_name, _, qualname = path.partition(":")
    try:
        found = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"no evaluator {path!r}: {exc}") from None
    if not (isinstance(found, type) and callable(getattr(found, "filter_traces", None))):
        raise ValueError(f"{path!r} is not an evaluator class")
    return found
