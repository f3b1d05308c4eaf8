"""Saved AssetOpsBench runs: files of run objects in, `Trajectory` records out.

A saved run is a JSON object with `run_id`, `scenario_id`, `runner`, `model`, `question`,
`answer` and `trajectory`. Runs come one per `.json` file, as a JSON list of runs, or one per
line of a `.jsonl` file. The `trajectory` field has two shapes in the wild:

- SDK-style agents write `{"turns": [...]}`: each turn has text, tool calls and its own token
  counts and duration.
- The plan-execute runner writes a list of step results (`step`, `server`, `tool`, `tool_args`,
  `response`) with no per-step tokens; the run's totals sit on the record as `tokens_in` and
  `tokens_out`.

This is the edge where messy input meets the records, so nothing here raises on bad data: a
file that cannot be used becomes a `ReadProblem`, and a run with odd fields keeps whatever is
usable (see `trajectory_from_record` for the rules).

Example:
    >>> run = trajectory_from_record(
    ...     {"run_id": 7, "scenario_id": "11", "answer": "3",
    ...      "trajectory": {"turns": [{"text": "checking", "input_tokens": 90,
    ...                                "output_tokens": 12, "duration_ms": 400,
    ...                                "tool_calls": [{"name": "sensors", "input": "{}"}]}]}},
    ...     "runs/11.json")
    >>> (run.run_id, run.tool_names(), run.usage.input_tokens, run.duration_ms)
    ('7', ['sensors'], 90, 400.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from assay._jsonable import json_type
from assay._text import path_text
from assay.formats._common import (
    ReadProblem,
    count,
    first_item,
    id_text,
    is_lines_file,
    jsonl_run_lines,
    load_json,
    parse_json,
    record_id,
    tool_args,
    walk_inputs,
)
from assay.formats.registry import register_reader
from assay.records import Message, Step, ToolCall, Trajectory, Usage

__all__ = [
    "ReadProblem",
    "iter_input_files",
    "jsonl_run_lines",
    "read_run_file",
    "read_runs",
    "run_from_line",
    "trajectory_from_record",
    "walk_run_files",
]

NAME = "assetopsbench"
"""The reader's name (`--from assetopsbench`)."""


# What a plan-execute step result or an SDK turn carries, and what other harnesses' steps do.
_STEP_FIELDS = frozenset({"step", "server", "tool", "tool_args", "tool_calls"})
_FOREIGN_STEP_FIELDS = frozenset({"logs", "task_number", "action"})

_IN_KEYS = ("input_tokens", "prompt_tokens")
_OUT_KEYS = ("output_tokens", "completion_tokens")
_RECORD_IN_KEYS = ("tokens_in", *_IN_KEYS)
_RECORD_OUT_KEYS = ("tokens_out", *_OUT_KEYS)

# Durations arrive as text now and then; anything longer than this is not a number.
_MAX_COUNT_TEXT = 32


def is_own_run(obj: dict[str, Any]) -> bool:
    """Whether an object is a run in assay's own (AssetOpsBench-compatible) shape.

    It names itself by `run_id`, `scenario_id` or `answer`, or its `trajectory` is SDK turns
    (`{"turns": [...]}`), plan-execute step results, or either as JSON text. Anything else (a
    scenario file or a report dropped into the runs directory, another harness's file with a
    `trajectory` of its own) is reported, not read as a run with no id, answer or steps.

    Example:
        >>> is_own_run({"run_id": "r1"}), is_own_run({"trajectory": {"turns": []}})
        (True, True)
        >>> is_own_run({"id": 1, "trajectory": [{"task_number": 1, "logs": {}}]})
        False
    """
    # Spelt out rather than any() over a tuple: this runs once per run file read.
    if "run_id" in obj or "scenario_id" in obj or "answer" in obj:
        return True
    return _own_trajectory(obj.get("trajectory"))


def _own_trajectory(trajectory: Any) -> bool:
    if isinstance(trajectory, str):
        return True
    if isinstance(trajectory, dict):
        return isinstance(trajectory.get("turns"), list)
    if isinstance(trajectory, list):
        first = trajectory[0] if trajectory else None
        if isinstance(first, str):
            return True
        return (
            isinstance(first, dict)
            and not _FOREIGN_STEP_FIELDS.intersection(first)
            and not _STEP_FIELDS.isdisjoint(first)
        )
    return False


def _sniff(name: str, value: Any) -> bool:
    # Chat logs may carry a run_id too; their messages are for the chat readers.
    if isinstance(value, list):
        value = first_item(value)
    return isinstance(value, dict) and "messages" not in value and is_own_run(value)


def read_value(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    """The runs in a parsed file (or line): one run object, or a list of them.

    Example:
        >>> [type(item).__name__ for item in read_value([{"run_id": "a"}, 3], "runs.json")]
        ['Trajectory', 'ReadProblem']
    """
    if isinstance(value, dict):
        yield _run_or_problem(value, source)
    elif isinstance(value, list):
        if not value:
            yield ReadProblem(source, "empty list: no runs")
        for index, item in enumerate(value):
            item_source = f"{source}#{index}"
            if isinstance(item, dict):
                yield _run_or_problem(item, item_source)
            else:
                yield ReadProblem(item_source, f"expected a run object, got {json_type(item)}")
    else:
        yield ReadProblem(
            source, f"expected a run object or a list of runs, got {json_type(value)}"
        )


def iter_input_files(path: Path, *, exclude: Sequence[Path] = ()) -> Iterator[Path]:
    """The run files under `path`: the file itself, or every JSON/JSONL file in a directory.

    A directory is searched recursively for `*.json` and `*.jsonl` (suffix in any case),
    skipping hidden files and directories (names starting with `.`), and the files come out
    sorted so that runs are read in a stable order. Any other path is yielded as is, so that
    reading it reports what is wrong with it. Directories that cannot be listed are left out
    here; `read_runs` reports them.

    Args:
        path: A run file or a directory of run files.

    Yields:
        Paths of the files to read.

    Example:
        >>> list(iter_input_files(Path("runs/11.json")))
        [PosixPath('runs/11.json')]
    """
    for item in walk_inputs(path, exclude):
        if isinstance(item, str):
            yield Path(item)


def read_runs(path: Path, *, exclude: Sequence[Path] = ()) -> Iterator[Trajectory | ReadProblem]:
    """Read every saved run under `path`, one at a time, never raising.

    A `.json` file holds one run object or a list of them; a `.jsonl` file holds one run per
    non-blank line. A file, line or list item that cannot be used becomes a `ReadProblem`
    and reading carries on with the next one. A directory with no run files at all is a
    problem too.

    Args:
        path: A run file or a directory of run files (see `iter_input_files`).

    Yields:
        A `Trajectory` per run and a `ReadProblem` per unusable input, in file order.

    Example:
        >>> for item in read_runs(Path("does/not/exist.json")):
        ...     print(item.reason)
        cannot read file: No such file or directory
    """
    for item in walk_inputs(path, exclude):
        if isinstance(item, ReadProblem):
            yield item
        else:
            yield from read_run_file(item)


def walk_run_files(path: Path, *, exclude: Sequence[Path] = ()) -> Iterator[str | ReadProblem]:
    """The run files under `path`, and a problem for each directory that cannot be read.

    The same walk as `iter_input_files`, with its problems: for callers that read the files
    themselves (one by one, or in parallel) with `read_run_file`. Paths come as strings:
    pathlib interns every name it parses, which adds up over many thousand files.
    """
    return walk_inputs(path, exclude)


def read_run_file(path: str | Path) -> Iterator[Trajectory | ReadProblem]:
    """The runs in one `.json` or `.jsonl` file, and a problem for each part that is unusable."""
    if is_lines_file(path):
        return _read_jsonl(path)
    return _read_json(path)


def trajectory_from_record(record: dict[str, Any], source: str) -> Trajectory:
    """Convert one saved run object into a `Trajectory`.

    Ids that are numbers become text (`11` -> `"11"`, `11.0` -> `"11.0"`); text ids are kept
    as written, since the join normalises them later. `answer` is kept exactly as recorded,
    including non-strings and a missing key (None): whether that counts as an answer is the
    pipeline's call. Steps come from `trajectory` (turns or plan-execute step results).

    Malformed parts are tolerated rather than rejected: token counts that are absent or not
    numbers are unknown (None; numeric text like `"12"` is used, booleans are not counts), a
    tool call without a string name is kept with name `""` (it happened, so it counts), turns
    that are neither objects nor text are dropped.

    `usage` is the sum over steps, or the record's own `tokens_in` / `tokens_out` when the
    steps carry none. `duration_ms` is the sum of step durations when any step has one, else
    the record's `duration_ms` (or `duration_s` x 1000), else None.

    Args:
        record: One run object as parsed from JSON.
        source: Where it came from, for messages and reports.

    Returns:
        The run as a `Trajectory`.

    Example:
        >>> run = trajectory_from_record(
        ...     {"run_id": "r1", "scenario_id": 11, "answer": "14", "tokens_in": 300,
        ...      "tokens_out": 40, "trajectory": [{"step": 1, "server": "iot",
        ...      "tool": "sites", "tool_args": {}, "response": ["MAIN"]}]}, "runs.jsonl:3")
        >>> (run.scenario_id, run.tool_names(), run.usage)
        ('11', ['sites'], Usage(input_tokens=300, output_tokens=40))
    """
    if not isinstance(record, dict):  # typed callers cannot get here; untyped ones can
        return Trajectory(source=source)
    items, as_turns = _step_items(record.get("trajectory"))
    steps = _build_steps(items, as_turns)
    usage = sum((step.usage for step in steps), Usage())
    if not usage.recorded:
        usage = _usage_of(record, _RECORD_IN_KEYS, _RECORD_OUT_KEYS)
    durations = [step.duration_ms for step in steps if step.duration_ms is not None]

    run = Trajectory(
        run_id=record_id(record.get("run_id")),
        scenario_id=record_id(record.get("scenario_id")),
        runner=_text(record.get("runner")),
        model=_text(record.get("model")),
        question=_text(record.get("question")),
        answer=record.get("answer"),
        usage=usage,
        steps=steps,
        duration_ms=sum(durations) if durations else _duration_of(record),
        source=source,
        error=_error_text(record.get("error")),
        messages=_conversation(record.get("conversation")),
        error_kind=_error_kind(record.get("error_kind")),
        repeat=_repeat(record.get("repeat")),
        source_verdicts=_verdicts(record.get("source_verdicts")),
        notes=_notes(record.get("notes")),
    )
    return run


def _notes(value: Any) -> list[str]:
    """A converted run's notes (`notes`: what its first reader could not read)."""
    return [note for note in value if isinstance(note, str)] if isinstance(value, list) else []


def _verdicts(value: Any) -> dict[str, Any] | None:
    """The source's verdicts of a converted run (`source_verdicts`): an object, else none."""
    return value if isinstance(value, dict) and value else None


_RUN_FAILURES = frozenset({"agent_error", "timeout", "infrastructure_error"})
"""The `error_kind` values of assay's own run lines (`assay.results.RUN_FAILURES`)."""


def _error_kind(value: Any) -> str | None:
    """The kind of a failed live run, as assay wrote it; anything else is no kind."""
    return value if isinstance(value, str) and value in _RUN_FAILURES else None


def _conversation(value: Any) -> list[Message]:
    """The messages of a live run's `conversation` (assay's own run lines); an item that is
    not a message (a role and text) ends the conversation there, so no reply is misplaced."""
    messages: list[Message] = []
    for item in value if isinstance(value, list) else ():
        if not isinstance(item, dict):
            break
        role, content = item.get("role"), item.get("content")
        if not isinstance(role, str) or not (content is None or isinstance(content, str)):
            break
        calls = [
            ToolCall(_text(call.get("name")) or "", call.get("input"), _text(call.get("id")))
            for call in item.get("tool_calls") or ()
            if isinstance(call, dict)
        ]
        messages.append(Message(role, content, calls, _text(item.get("tool_call_id"))))
    return messages


def _repeat(value: Any) -> int | None:
    """Which repetition of its case a live run is (a whole number from 1), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1_000_000:
        return value
    return None


def _error_text(value: Any) -> str | None:
    """A recorded failure as one line: text as is, an object by its message and type."""
    if value is None or value is False or value == "":
        return None
    if isinstance(value, dict):
        parts = [value.get(key) for key in ("type", "code", "message")]
        text = ": ".join(str(part) for part in parts if part not in (None, ""))
        return (text or str(value))[:500]
    return str(value)[:500]


# --- files ---------------------------------------------------------------------------------


def _read_json(path: str | Path) -> Iterator[Trajectory | ReadProblem]:
    value, problem = load_json(path)
    if problem is not None:
        yield problem
    else:
        yield from read_value(value, path_text(path))


def run_from_line(line: bytes, source: str) -> Trajectory | ReadProblem:
    """One line of a `.jsonl` run file as a run, or why it is not one.

    Example:
        >>> run_from_line(b'{"run_id": "r1", "answer": "4"}', "runs.jsonl:1").answer
        '4'
        >>> run_from_line(b"[1, 2]", "runs.jsonl:2").reason
        'expected a run object, got array'
    """
    value, reason = parse_json(line)
    if reason is not None:
        return ReadProblem(source, reason)
    if isinstance(value, dict):
        return _run_or_problem(value, source)
    return ReadProblem(source, f"expected a run object, got {json_type(value)}")


def _read_jsonl(path: str | Path) -> Iterator[Trajectory | ReadProblem]:
    for item in jsonl_run_lines(path):
        yield item if isinstance(item, ReadProblem) else run_from_line(*item)


def _run_or_problem(obj: dict[str, Any], source: str) -> Trajectory | ReadProblem:
    if not is_own_run(obj):
        return ReadProblem(
            source,
            "not a run: no run_id, scenario_id or answer, and no trajectory of turns or "
            "step results",
        )
    return trajectory_from_record(obj, source)


register_reader(
    NAME,
    _sniff,
    read_value,
    description="saved AssetOpsBench runs, assay's own run shape (run_id, answer, trajectory)",
)


# --- steps ---------------------------------------------------------------------------------


def _step_items(trajectory: Any) -> tuple[list[Any], bool]:
    """The raw steps of a run's `trajectory`, and whether they are turns (else plan-execute
    step results); no steps for a trajectory of any other shape."""
    if isinstance(trajectory, str):
        # Some harnesses store the trajectory as JSON text inside the record.
        try:
            trajectory = orjson.loads(trajectory)
        except orjson.JSONDecodeError:
            return [], True
    if isinstance(trajectory, dict):
        items = trajectory.get("turns")
        return (items, True) if isinstance(items, list) else ([], True)
    if isinstance(trajectory, list):
        return trajectory, False
    return [], True


def _build_steps(items: list[Any], as_turns: bool) -> list[Step]:
    steps: list[Step] = []
    for item in items:
        index = len(steps)
        if isinstance(item, dict):
            # A bare list is normally plan-execute step results, but an item that carries
            # `tool_calls` is a turn whatever list it sits in.
            if as_turns or "tool_calls" in item:
                steps.append(_turn(item, index))
            else:
                steps.append(_plan_step(item, index))
        elif isinstance(item, str):
            steps.append(Step(index=index, text=item))
        # Anything else (null, a number, a nested list) says nothing about what the agent did.
    return steps


def _turn(turn: dict[str, Any], index: int) -> Step:
    # Step.index is defined as the position in the run from 0; a recorded `index` may be
    # 1-based, repeated or missing, so the position is used instead.
    text = _content_text(turn.get("text"))
    if text is None:
        text = _content_text(turn.get("content"))
    calls: list[ToolCall] = []
    raw_calls = turn.get("tool_calls")
    if isinstance(raw_calls, list):
        for raw in raw_calls:
            call = _tool_call(raw)
            if call is not None:
                calls.append(call)
    node = turn.get("node")
    conversation = turn.get("conversation_turn")  # written by assay_jsonl for `Step.turn`
    return Step(
        index=index,
        text=text,
        tool_calls=calls,
        usage=_usage_of(turn, _IN_KEYS, _OUT_KEYS),
        duration_ms=_duration_of(turn),
        # The agent or graph node that took the turn (multi-agent runs); only text names one.
        node=node if isinstance(node, str) else None,
        turn=conversation if type(conversation) is int and conversation >= 0 else None,
    )


def _plan_step(item: dict[str, Any], index: int) -> Step:
    name = _plan_tool_name(item)
    result = item["response"] if "response" in item else item.get("result")
    task = _text(item.get("task"))
    if name is None:
        # No tool ran: the response is what the model itself wrote for this step.
        text = result if isinstance(result, str) else task
        calls: list[ToolCall] = []
    else:
        text = task
        # `server` has no place in a ToolCall and is dropped; tools are matched by name.
        calls = [
            ToolCall(
                name=name,
                args=tool_args(_first_present(item, ("tool_args", "args", "arguments"))),
                result=result,
            )
        ]
    return Step(
        index=index,
        text=text,
        tool_calls=calls,
        usage=_usage_of(item, _IN_KEYS, _OUT_KEYS),
        duration_ms=_duration_of(item),
    )


def _plan_tool_name(item: dict[str, Any]) -> str | None:
    """The tool a plan-execute step ran ("" for a name that is not text), or None."""
    tool = item.get("tool")
    if tool is None or tool == "":
        return None
    return tool if isinstance(tool, str) else ""


def _call_name(raw: Any) -> str | None:
    """The name of a recorded tool call, "" when it has none; None for what is no call."""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, dict):
        return None
    name = raw.get("name")
    if isinstance(name, str):
        return name
    # Chat-completions style nests name and arguments under "function". A call whose name
    # is missing or not text still happened: it is kept with name "" so that call counts
    # stay true and a trajectory check sees an unidentifiable call, rather than the call
    # vanishing without a trace.
    function = raw.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else ""


def _tool_call(raw: Any) -> ToolCall | None:
    name = _call_name(raw)
    if name is None:
        return None
    if isinstance(raw, str):
        return ToolCall(name=raw)
    function = raw.get("function")
    if not isinstance(function, dict):
        function = {}
    args = _first_present(raw, ("input", "args", "arguments"))
    if args is None:
        args = function.get("arguments")
    result = raw["output"] if "output" in raw else raw.get("result")
    return ToolCall(
        name=name,
        args=tool_args(args),
        call_id=id_text(_first_present(raw, ("id", "call_id"))),
        result=result,
    )


# --- fields --------------------------------------------------------------------------------


def _first_present(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = obj.get(key)
        if value is not None:
            return value
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _content_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        # Content-part lists ([{"type": "text", "text": ...}, ...]): keep the text parts.
        parts = [
            part if isinstance(part, str) else part.get("text")
            for part in value
            if isinstance(part, str | dict)
        ]
        texts = [part for part in parts if isinstance(part, str)]
        return "".join(texts) if texts else None
    return None


def _count_at(obj: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    return count(_first_present(obj, keys))


def _usage_of(obj: dict[str, Any], in_keys: tuple[str, ...], out_keys: tuple[str, ...]) -> Usage:
    return Usage(*_token_counts(obj, in_keys, out_keys))


def _token_counts(
    obj: dict[str, Any], in_keys: tuple[str, ...], out_keys: tuple[str, ...]
) -> tuple[int | None, int | None]:
    tokens_in = _count_at(obj, in_keys)
    tokens_out = _count_at(obj, out_keys)
    if tokens_in is None and tokens_out is None:
        nested = obj.get("usage")
        if isinstance(nested, dict):
            tokens_in = _count_at(nested, in_keys)
            tokens_out = _count_at(nested, out_keys)
    return tokens_in, tokens_out


def _duration(value: Any, scale: float) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and len(value) <= _MAX_COUNT_TEXT:
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return number * scale


def _duration_of(obj: dict[str, Any]) -> float | None:
    duration = _duration(obj.get("duration_ms"), 1.0)
    if duration is None:
        duration = _duration(obj.get("duration_s"), 1000.0)
    return duration
