"""MASEval benchmark reports: each task repetition's traces in, one `Trajectory` out.

MASEval's result logger writes one JSON object per task repetition (a JSONL line):
`{"task_id", "repeat_idx", "status", "traces", "config", "eval", "error"}`. `traces` holds
what every registered component gathered:

- `agents`: `{name: {"name", "agent_type", "messages": [...], ...}}`, where `messages` is the
  agent's own history in OpenAI chat format (`role`, `content`, `tool_calls`, `tool_call_id`,
  `name`), each message stamped with an ISO `timestamp`;
- `tools`: `{name: {"name", "invocations": [{"id", "inputs", "outputs", "status",
  "timestamp", "meta"}]}}`;
- `models`, `simulators`, `callbacks`, `environment`, `user`, `other`, `metadata`.

Each agent's messages are read as an OpenAI conversation, with the agent's name as
`Step.node`, and the agents' histories are merged into one timeline by timestamp (when every
message has one; otherwise agent by agent, in the order the report lists them). Calls pair
with their results within each agent's own history. When no agent message records a tool call
but tools recorded invocations, each invocation becomes a step of its own (its `inputs` as
arguments, its `outputs` as result), placed by timestamp.

MASEval keeps the final answer out of the report (it goes straight to the evaluators), so
`answer` is the last assistant text in the timeline, and `question` the first user text.

Example:
    >>> report = {"task_id": "t-7", "repeat_idx": 0, "status": "success", "traces": {"agents": {
    ...     "orchestrator": {"name": "orchestrator", "messages": [
    ...         {"role": "user", "content": "Book a room", "timestamp": "2025-01-01T10:00:00"},
    ...         {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
    ...          "function": {"name": "book", "arguments": "{}"}}],
    ...          "timestamp": "2025-01-01T10:00:01"},
    ...         {"role": "tool", "tool_call_id": "c1", "content": "ok",
    ...          "timestamp": "2025-01-01T10:00:02"},
    ...         {"role": "assistant", "content": "Booked.", "timestamp": "2025-01-01T10:00:03"}]}}}}
    >>> run = trajectories_from_maseval(report, "results.jsonl:1")[0]
    >>> (run.run_id, run.scenario_id, run.tool_names(), run.steps[0].node, run.answer)
    ('t-7#0', 't-7', ['book'], 'orchestrator', 'Booked.')
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from assay._jsonable import json_type
from assay.formats._common import ReadProblem, first_item, id_text, named, tool_args
from assay.formats.openai_chat import ChatItem, chat_trajectory, openai_item
from assay.formats.registry import register_reader
from assay.records import ToolCall, Trajectory

__all__ = ["trajectories_from_maseval"]

# Pseudo-turns built from tool invocations pair with nothing in the agents' histories.
_TOOLS_SCOPE = "\x00tools"


def trajectories_from_maseval(
    data: Any, source: str, *, model: str | None = None
) -> list[Trajectory | ReadProblem]:
    """One run per MASEval report (task repetition).

    `run_id` is `TASK_ID#REPEAT_IDX`, `scenario_id` the task id. See the module notes for how
    agents' messages and tool invocations become steps.

    Never raises: a report that is not an object, or one whose traces hold no agent message
    and no tool invocation (a failed setup, say: its status and error are in the reason), is a
    `ReadProblem`.

    Args:
        data: One report (a JSONL line), a list of reports, or a bare `traces` object.
        source: Where it was read from; the items of a list are `source#INDEX`.
        model: The model that drove the agents (MASEval records it only in free-form config).

    Returns:
        A `Trajectory` per report and a `ReadProblem` per unusable one.

    Example:
        >>> trajectories_from_maseval({"task_id": "t-1", "status": "setup_failed",
        ...     "traces": {}, "error": {"error_type": "KeyError", "error_message": "'hotels'"}},
        ...     "results.jsonl:4")[0].reason
        "no agent messages or tool invocations (status setup_failed; KeyError: 'hotels')"
    """
    if isinstance(data, list):
        if not data:
            return [ReadProblem(source, "empty list: no reports")]
        return [_report(item, f"{source}#{i}", model) for i, item in enumerate(data)]
    return [_report(data, source, model)]


def _report(report: Any, source: str, model: str | None) -> Trajectory | ReadProblem:
    if not isinstance(report, dict):
        return ReadProblem(source, f"expected a MASEval report object, got {json_type(report)}")
    if "agents" in report and "traces" not in report:
        report = {"traces": report}  # a bare traces object
    traces = report.get("traces")
    if not isinstance(traces, dict):
        return ReadProblem(source, "not a MASEval report: no traces object")

    entries = _agent_entries(traces.get("agents"))
    if not any(item.calls for _, _, item in entries if item.role == "assistant"):
        entries.extend(_invocation_entries(traces.get("tools"), start=len(entries)))
    if not entries:
        return ReadProblem(source, f"no agent messages or tool invocations{_status(report)}")
    moments = [moment for moment, _, _ in entries]
    if all(moment is not None for moment in moments):
        entries.sort(key=lambda entry: (entry[0], entry[1]))

    task_id = id_text(report.get("task_id"))
    repeat = report.get("repeat_idx")
    run_id = task_id
    if task_id is not None and isinstance(repeat, int) and not isinstance(repeat, bool):
        run_id = f"{task_id}#{repeat}"
    run = chat_trajectory(
        (item for _, _, item in entries),
        run_id=run_id,
        scenario_id=task_id,
        model=model or _model_id(traces.get("models")),
        source=source,
    )
    status = report.get("status")
    if isinstance(status, str) and status in _FAILED:
        error = _error_text(report)
        run.error = f"MASEval status {status}" + (f": {error}" if error else "")
        run.error_kind = _FAILED[status]  # a failed run is never scored
    verdicts = {key: report[key] for key in ("status", "eval") if report.get(key) is not None}
    run.source_verdicts = verdicts or None
    return run


_FAILED = {
    "agent_error": "agent_error",
    "unknown_execution_error": "agent_error",
    "task_timeout": "timeout",
    "environment_error": "infrastructure_error",
    "user_error": "infrastructure_error",
    "setup_failed": "infrastructure_error",
}
"""MASEval's statuses of a repetition whose run failed, and the kind of failure each is for
assay (as `assay bench` counts them): such a run is never scored. `evaluation_failed` is the
check's failure, not the run's: the run is kept whole, its status among its source's
verdicts."""


def _model_id(models: Any) -> str | None:
    """The model the report's model adapters name (`traces.models.<name>.model_id`), the
    first that names one."""
    if not isinstance(models, dict):
        return None
    for trace in models.values():
        if isinstance(trace, dict) and isinstance(trace.get("model_id"), str):
            found: str = trace["model_id"]
            return found
    return None


def _agent_entries(agents: Any) -> list[tuple[datetime | None, int, ChatItem]]:
    entries: list[tuple[datetime | None, int, ChatItem]] = []
    if not isinstance(agents, dict):
        return entries
    for key, trace in agents.items():
        if not isinstance(trace, dict):
            continue
        messages = trace.get("messages")
        if not isinstance(messages, list):
            continue
        name = trace.get("name")
        node = name if isinstance(name, str) and name else str(key)
        for message in messages:
            item = openai_item(message, scope=str(key), node=node)
            if item is not None:
                stamp = message.get("timestamp") if isinstance(message, dict) else None
                entries.append((_moment(stamp), len(entries), item))
    return entries


def _invocation_entries(tools: Any, *, start: int) -> list[tuple[datetime | None, int, ChatItem]]:
    entries: list[tuple[datetime | None, int, ChatItem]] = []
    if not isinstance(tools, dict):
        return entries
    for key, trace in tools.items():
        if not isinstance(trace, dict):
            continue
        invocations = trace.get("invocations")
        if not isinstance(invocations, list):
            continue
        name = trace.get("name")
        tool = name if isinstance(name, str) and name else str(key)
        for invocation in invocations:
            if not isinstance(invocation, dict):
                continue
            call = ToolCall(
                name=tool,
                args=tool_args(invocation.get("inputs")),
                call_id=id_text(invocation.get("id")),
                result=invocation.get("outputs"),
            )
            item = ChatItem(role="assistant", calls=[call], scope=_TOOLS_SCOPE)
            entries.append((_moment(invocation.get("timestamp")), start + len(entries), item))
    return entries


def _moment(stamp: Any) -> datetime | None:
    if not isinstance(stamp, str) or len(stamp) > 64:
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    # MASEval stamps local time without an offset; naive and aware stamps must still compare.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _status(report: dict[str, Any]) -> str:
    details = []
    status = report.get("status")
    if isinstance(status, str) and status:
        details.append(f"status {status}")
    error = _error_text(report)
    if error is not None:
        details.append(error)
    return f" ({'; '.join(details)})" if details else ""


def _error_text(report: dict[str, Any]) -> str | None:
    """`Type: message` of the report's error, cut to 200 characters; None without one."""
    error = report.get("error")
    if isinstance(error, dict):
        kind, message = error.get("error_type"), error.get("error_message")
        if isinstance(kind, str) and isinstance(message, str):
            return f"{kind}: {message}"[:200]
    return None


# --- reading files -------------------------------------------------------------------------

NAME = "maseval"
"""The reader's name (`--from maseval`)."""


def _sniff(name: str, value: Any) -> bool:
    if isinstance(value, list):
        first = first_item(value)
        return isinstance(first, dict) and isinstance(first.get("traces"), dict)
    if not isinstance(value, dict):
        return False
    traces = value.get("traces")
    if isinstance(traces, dict) and ("task_id" in value or "agents" in traces):
        return True
    agents = value.get("agents")
    return isinstance(agents, dict) and any(
        isinstance(agent, dict) and "messages" in agent for agent in agents.values()
    )


def _read(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    return named(trajectories_from_maseval(value, source))


register_reader(NAME, _sniff, _read, description="MASEval benchmark reports (task_id, traces)")
