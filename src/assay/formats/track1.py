"""AssetOpsBench track-1 trajectory files (`Q_<n>_trajectory.json`) as runs.

The track-1 runner plans a question into sub-tasks, hands each to an agent, and saves

    {"id": 1, "text": "What IoT sites are available?",
     "trajectory": [{"task_number": 1, "task_description": ..., "agent_name": ...,
                     "response": ...,
                     "logs": {"type": "mpe-agent", "trajectroy_log": [
                                  {"step": 1, "thought": ..., "action": "sites",
                                   "action_input": "{}", "observation": ...}, ...],
                              "info": {"model_stats": {"tokens_sent": 8645,
                                                       "tokens_received": 120}},
                              "final_answer": ...}}]}

(`trajectroy_log` is the runner's own spelling; `trajectory_log` is read too.) One file is one
run: `id` is its run id and scenario id, `text` its question, the last sub-task's
`final_answer` (else its `response`) its answer. Every action of every sub-task's log is a
step, with the sub-task's agent as the step's `node`: a tool action holds one call with its
`action_input` as arguments (an object when it is JSON of one, else the text as written) and
its `observation` as result; the `Finish` action that ends a sub-task holds no call, only the
thought. `runner` is the agent type of the first sub-task's log. Token counts come from each
sub-task's `info.model_stats`, summed over the run; the runner records none per step.

Example:
    >>> (run,) = read_value({"id": 1, "text": "Which sites?", "trajectory": [
    ...     {"task_number": 1, "agent_name": "IoT", "response": "MAIN", "logs": {
    ...      "trajectroy_log": [
    ...          {"thought": "list them", "action": "sites", "action_input": "{}",
    ...           "observation": "MAIN"},
    ...          {"thought": "done", "action": "Finish", "action_input": "MAIN"}],
    ...      "info": {"model_stats": {"tokens_sent": 90, "tokens_received": 12}},
    ...      "final_answer": "The sites are: MAIN"}}]}, "Q_1_trajectory.json")
    >>> (run.run_id, run.question, run.answer, run.tool_names(), run.steps[0].node)
    ('1', 'Which sites?', 'The sites are: MAIN', ['sites'], 'IoT')
    >>> run.usage
    Usage(input_tokens=90, output_tokens=12)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.formats._common import ReadProblem, count, describe, first_item, id_text, tool_args
from assay.formats.registry import register_reader
from assay.records import Step, ToolCall, Trajectory, Usage

__all__ = ["NAME", "read_value", "trajectory_from_track1"]

NAME = "track1"
"""The reader's name (`--from track1`)."""

_LOG_KEYS = ("trajectroy_log", "trajectory_log")
_SUBTASK_FIELDS = ("task_number", "agent_name", "logs")
_FINISH = "finish"


def _sniff(name: str, value: Any) -> bool:
    if isinstance(value, list):
        value = first_item(value)
    return isinstance(value, dict) and _is_track1(value)


def _is_track1(obj: dict[str, Any]) -> bool:
    tasks = obj.get("trajectory")
    if not isinstance(tasks, list):
        return False
    first = first_item(tasks)
    if isinstance(first, dict):
        return any(key in first for key in _SUBTASK_FIELDS)
    # No sub-task at all: still the runner's file when it carries the question as it writes it.
    return not tasks and "id" in obj and "text" in obj


def read_value(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    """The run in a parsed track-1 file: one object, or a list of them (`source#INDEX`).

    Example:
        >>> [item.reason for item in read_value({"run_id": 1}, "x.json")]
        ['not a track-1 trajectory (no trajectory list of sub-tasks): an object with keys run_id']
    """
    if isinstance(value, list):
        if not value:
            yield ReadProblem(source, "empty list: no runs")
        for index, item in enumerate(value):
            yield _run_or_problem(item, f"{source}#{index}")
    else:
        yield _run_or_problem(value, source)


def _run_or_problem(value: Any, source: str) -> Trajectory | ReadProblem:
    if not isinstance(value, dict) or not _is_track1(value):
        return ReadProblem(
            source,
            f"not a track-1 trajectory (no trajectory list of sub-tasks): {describe(value)}",
        )
    return trajectory_from_track1(value, source)


def trajectory_from_track1(record: dict[str, Any], source: str) -> Trajectory:
    """One track-1 trajectory object as a run (see the module notes for the fields).

    Never raises: sub-tasks, logs and actions of the wrong type are left out, and a missing
    answer is None (the run is then scored as having none).

    Example:
        >>> run = trajectory_from_track1({"id": 7, "text": "q", "trajectory": [
        ...     {"agent_name": "FMSR", "response": "two modes", "logs": {}}]}, "Q_7.json")
        >>> (run.scenario_id, run.answer, run.steps)
        ('7', 'two modes', [])
    """
    tasks = [task for task in record.get("trajectory") or () if isinstance(task, dict)]
    steps: list[Step] = []
    usage = Usage()
    runner = None
    for task in tasks:
        logs = task.get("logs")
        if not isinstance(logs, dict):
            continue
        if runner is None and isinstance(logs.get("type"), str):
            runner = logs["type"]
        usage += _usage(logs)
        node = task.get("agent_name")
        for entry in _log(logs):
            steps.append(_step(entry, len(steps), node if isinstance(node, str) else None))
    identifier = id_text(record.get("id"))
    question = record.get("text")
    return Trajectory(
        run_id=identifier,
        scenario_id=identifier,
        runner=runner,
        question=question if isinstance(question, str) else None,
        answer=_answer(tasks[-1]) if tasks else None,
        steps=steps,
        usage=usage,
        source=source,
    )


def _log(logs: dict[str, Any]) -> list[dict[str, Any]]:
    for key in _LOG_KEYS:
        entries = logs.get(key)
        if isinstance(entries, list):
            return [entry for entry in entries if isinstance(entry, dict)]
    return []


def _step(entry: dict[str, Any], index: int, node: str | None) -> Step:
    thought = entry.get("thought")
    action = entry.get("action")
    calls: list[ToolCall] = []
    if isinstance(action, str) and action.strip() and action.strip().lower() != _FINISH:
        calls.append(
            ToolCall(
                name=action.strip(),
                args=tool_args(entry.get("action_input")),
                result=entry.get("observation"),
            )
        )
    return Step(
        index=index,
        text=thought if isinstance(thought, str) else None,
        tool_calls=calls,
        node=node,
    )


def _answer(task: dict[str, Any]) -> str | None:
    logs = task.get("logs")
    final = logs.get("final_answer") if isinstance(logs, dict) else None
    if isinstance(final, str) and final.strip():
        return final
    response = task.get("response")
    return response if isinstance(response, str) else None


def _usage(logs: dict[str, Any]) -> Usage:
    info = logs.get("info")
    stats = info.get("model_stats") if isinstance(info, dict) else None
    if not isinstance(stats, dict):
        return Usage()
    return Usage(count(stats.get("tokens_sent")), count(stats.get("tokens_received")))


register_reader(
    NAME,
    _sniff,
    read_value,
    description="AssetOpsBench track-1 trajectory files (Q_<n>_trajectory.json)",
)
