"""One task repetition's record and its report in MASEval's shape: the status it ended
with, the error, the traces and configs its components gave, and what its model calls used
and cost, by component.

Example:
    >>> gather({"agents:a": ("agents", "a", None)}, "gather_traces")["metadata"]["total_components"]
    1
"""

from __future__ import annotations

import contextlib
import enum
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assay._text import text_of
from assay.benchmark.errors import AgentError, EnvironmentError, UserError
from assay.benchmark.task import Task
from assay.live.capture import TrajectoryCollector
from assay.live.runner import Unit
from assay.models.pricing import estimate_cost_usd
from assay.reports.files import inside, read_regular

__all__ = [
    "Repetition",
    "TaskExecutionStatus",
    "error_of",
    "gather",
    "kept_report",
    "report_of",
    "status_of",
    "usage_of",
]


class TaskExecutionStatus(enum.StrEnum):
    """How a task repetition ended (see the module for how each counts)."""

    SUCCESS = "success"
    AGENT_ERROR = "agent_error"
    ENVIRONMENT_ERROR = "environment_error"
    USER_ERROR = "user_error"
    TASK_TIMEOUT = "task_timeout"
    UNKNOWN_EXECUTION_ERROR = "unknown_execution_error"
    EVALUATION_FAILED = "evaluation_failed"
    SETUP_FAILED = "setup_failed"


@dataclass(slots=True)
class Repetition:
    """What one repetition gave, before it is scored."""

    status: TaskExecutionStatus = TaskExecutionStatus.SUCCESS
    error: dict[str, Any] | None = None
    final_answer: Any = None
    traces: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    eval: list[dict[str, Any]] | None = None
    names: list[str] = field(default_factory=list)
    """The evaluators' names, in the order of `eval`."""
    infrastructure: bool = False
    """The failure was the infrastructure's (a connection, a model's 429 or 5xx): retried,
    and counted as an `infrastructure_error`, whatever its status."""
    evaluators: list[Any] = field(default_factory=list)


def kept_report(directory: Path, line: Mapping[str, Any], unit: Unit) -> dict[str, Any]:
    """The benchmark's report of a repetition an earlier run finished: from its per-run
    report (where `run` saved it whole), else what its `results.jsonl` line keeps."""
    report_file = line.get("report_file")
    whole: Any = None
    if isinstance(report_file, str):
        with contextlib.suppress(OSError, ValueError):
            saved = orjson.loads(read_regular(inside(directory, report_file)))
            whole = saved.get("benchmark") if isinstance(saved, dict) else None
    if not isinstance(whole, dict):
        whole = dict(line.get("benchmark") or {})
        whole.setdefault("task_id", unit.case.eval_id)
        whole.setdefault("repeat_idx", unit.repeat - 1)
    return {**whole, "kept": True}


def status_of(exc: BaseException) -> TaskExecutionStatus:
    if isinstance(exc, AgentError):
        return TaskExecutionStatus.AGENT_ERROR
    if isinstance(exc, EnvironmentError):
        return TaskExecutionStatus.ENVIRONMENT_ERROR
    if isinstance(exc, UserError):
        return TaskExecutionStatus.USER_ERROR
    return TaskExecutionStatus.UNKNOWN_EXECUTION_ERROR


def error_of(exc: BaseException) -> dict[str, Any]:
    error: dict[str, Any] = {
        "error_type": type(exc).__name__,
        "error_message": text_of(exc),
        "traceback": "".join(traceback.format_exception(exc))[-4000:],
    }
    component = getattr(exc, "component", None)
    if component is not None:
        error["component"] = component
        error["details"] = getattr(exc, "details", {})
    return error


def gather(registry: dict[str, Any], method: str) -> dict[str, Any]:
    """The registered components' traces (or configs) by category: `environment` and `user`
    as one dict each, the others by name; a component whose gathering raises leaves an
    error entry."""
    gathered: dict[str, Any] = {"metadata": {"timestamp": time.time(),
                                             "total_components": len(registry)}}
    for category, name, component in list(registry.values()):
        gather = getattr(component, method, None)
        if gather is None:
            continue
        try:
            value = gather()
        except Exception as exc:
            value = {"error": f"failed to gather: {text_of(exc)}", "error_type": type(exc).__name__}
        if category in ("environment", "user"):
            gathered[category] = value
        else:
            gathered.setdefault(category, {})[name] = value
    return gathered


def usage_of(
    collector: TrajectoryCollector, traces: dict[str, Any], metrics: Sequence[Any] | None
) -> dict[str, Any]:
    """What the repetition's model calls used and cost, by component: the agents' (the model
    calls their capture recorded, by model), a model-played user's, and the judges' of its
    evaluators (a `ScorerEvaluator` of a judge reports them). A cost is None when a model's
    price is unknown."""
    by_model: dict[str | None, list[int]] = {}
    for call in collector.model_calls:
        counts = by_model.setdefault(call.model, [0, 0, 0])
        counts[0] += 1
        counts[1] += call.usage.input_tokens or 0
        counts[2] += call.usage.output_tokens or 0
    agents = {
        str(model): _priced(model, calls, tokens_in, tokens_out)
        for model, (calls, tokens_in, tokens_out) in by_model.items()
    }
    usage: dict[str, Any] = {"agents": agents}
    user = traces.get("user")
    simulated = user.get("simulated_user") if isinstance(user, dict) else None
    if isinstance(simulated, dict):
        usage["user"] = _priced(
            simulated.get("model"),
            int(simulated.get("calls") or 0),
            int(simulated.get("input_tokens") or 0),
            int(simulated.get("output_tokens") or 0),
        )
    judges = [m["judge"] for m in metrics or [] if isinstance(m, dict)
              and isinstance(m.get("judge"), dict)]
    if judges:
        usage["judges"] = judges
    return usage


def _priced(model: str | None, calls: int, tokens_in: int, tokens_out: int) -> dict[str, Any]:
    return {
        "model": model,
        "calls": calls,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cost_usd": estimate_cost_usd(model, tokens_in, tokens_out),
    }


def report_of(
    task: Task, repeat_idx: int, done: Repetition, usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The repetition's report, in MASEval's shape."""
    return {
        "task_id": task.id,
        "repeat_idx": repeat_idx,
        "status": done.status.value,
        "error": done.error,
        "traces": done.traces,
        "config": done.config,
        "usage": usage,
        "eval": done.eval,
        "task": {"query": task.query, "metadata": dict(task.metadata),
                 "protocol": task.protocol.to_dict()},
    }
