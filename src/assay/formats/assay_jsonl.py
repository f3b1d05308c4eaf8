"""assay JSONL: runs written one per line, in the saved-run shape `assay evaluate` reads.

Every converter in `assay.formats` produces `Trajectory` records; this module writes them
back out as AssetOpsBench-compatible run objects, so that a converted file is read by the same
reader as runs saved by the AssetOpsBench harness:

    {"run_id", "scenario_id", "runner", "model", "question", "answer",
     "trajectory": {"turns": [{"text", "tool_calls": [{"name", "input", "id", "output"}],
                               "input_tokens", "output_tokens", "duration_ms", "node"}]},
     "tokens_in", "tokens_out", "duration_ms"}

Reading a written line back with `assay.formats.read_run_file` gives the same steps, calls,
arguments, results, token usage, nodes and conversation turns (`"conversation_turn"`, written
for steps that have one). `tokens_in` / `tokens_out` are written only when
the steps carry no token counts (the reader uses them only then); `duration_ms` is the run's.

Values orjson cannot write (integers beyond 64 bits, tuples as keys, SDK objects, nesting
deeper than orjson allows) never stop the writer: they are written as the nearest JSON value,
or as text when there is none.

Example:
    >>> from assay.records import Step, ToolCall, Trajectory, Usage
    >>> run = Trajectory(run_id="r1", scenario_id="11", answer="3", steps=[
    ...     Step(index=0, tool_calls=[ToolCall("sites", {}, "c1", ["MAIN"])],
    ...          usage=Usage(90, 12), node="planner")])
    >>> trajectory_to_line(run)[:64]
    b'{"run_id":"r1","scenario_id":"11","runner":null,"model":null,"qu'
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from assay._jsonable import dumps_lenient
from assay.records import Message, Step, Trajectory

__all__ = ["trajectory_to_line", "trajectory_to_record", "write_runs_jsonl"]

_OPTIONS = orjson.OPT_NON_STR_KEYS

# Temporary files share the reports' naming, so `remove_temporaries` cleans up after a crash.
_TEMPORARY_PREFIX = ".assay-"


def trajectory_to_record(trajectory: Trajectory) -> dict[str, Any]:
    """The run as a saved-run object (the shape `assay evaluate` reads).

    Values are placed as they are; `trajectory_to_line` makes them writable.

    Args:
        trajectory: The run.

    Returns:
        A dict with `run_id`, `scenario_id`, `runner`, `model`, `question`, `answer`,
        `trajectory` (`{"turns": [...]}`, one turn per step), and `duration_ms`; plus
        `tokens_in` and `tokens_out` when the steps carry no token counts but the run does,
        `error` when the run recorded a failure (with `error_kind` when assay's live runner
        made it), `repeat` for a repeated live run, `conversation` (the messages of a
        live run's conversation), and `source_verdicts` (the verdicts its source recorded).

    Example:
        >>> from assay.records import Trajectory, Usage
        >>> record = trajectory_to_record(Trajectory(run_id="r2", usage=Usage(300, 40)))
        >>> record["trajectory"], record["tokens_in"], record["tokens_out"]
        ({'turns': []}, 300, 40)
    """
    record: dict[str, Any] = {
        "run_id": trajectory.run_id,
        "scenario_id": trajectory.scenario_id,
        "runner": trajectory.runner,
        "model": trajectory.model,
        "question": trajectory.question,
        "answer": trajectory.answer,
        "trajectory": {"turns": [_turn(step) for step in trajectory.steps]},
    }
    steps_count = any(s.usage.input_tokens or s.usage.output_tokens for s in trajectory.steps)
    usage = trajectory.usage
    if not steps_count and (usage.input_tokens or usage.output_tokens):
        record["tokens_in"] = usage.input_tokens
        record["tokens_out"] = usage.output_tokens
    record["duration_ms"] = trajectory.duration_ms
    if trajectory.error is not None:
        record["error"] = trajectory.error
    if trajectory.messages:
        # Not `messages`: a line with messages is a chat log, which the chat readers claim.
        record["conversation"] = [_message(message) for message in trajectory.messages]
    if trajectory.error_kind is not None:
        record["error_kind"] = str(trajectory.error_kind)
    if trajectory.repeat is not None:
        record["repeat"] = trajectory.repeat
    if trajectory.source_verdicts is not None:
        record["source_verdicts"] = trajectory.source_verdicts
    if trajectory.notes:
        record["notes"] = list(trajectory.notes)
    return record


def trajectory_to_line(trajectory: Trajectory) -> bytes:
    """The run as one JSONL line (no trailing newline), whatever values it holds.

    Example:
        >>> from assay.records import Trajectory
        >>> line = trajectory_to_line(Trajectory(run_id="big", answer=2**70))
        >>> orjson.loads(line)["answer"]  # beyond 64 bits: written as its digits
        '1180591620717411303424'
    """
    record = trajectory_to_record(trajectory)
    try:
        return orjson.dumps(record, option=_OPTIONS)
    except TypeError:
        # Only when something in the run is not plain JSON: each value is made writable on
        # its own, so one odd result costs that value its exact form and nothing else.
        return orjson.dumps(_writable_record(record), option=_OPTIONS)


def write_runs_jsonl(
    runs: Iterable[Trajectory], path: str | Path, *, keep_empty: bool = True
) -> int:
    """Write runs to `path` as assay JSONL, atomically: readers never see a partial file.

    Lines go to a temporary file beside `path`, which replaces `path` once every run is
    written. If writing fails (or `runs` raises), the temporary file is removed, `path` is
    left as it was, and the error propagates. A `path` that is a symbolic link, a FIFO, a
    device or a directory is never replaced (OSError).

    Args:
        runs: The runs, written in order; an iterator is consumed one run at a time.
        path: The file to write.
        keep_empty: When False and `runs` held no run, nothing is written and `path` is left
            untouched.

    Returns:
        How many runs were written.

    Example:
        >>> import tempfile
        >>> from assay.records import Trajectory
        >>> out = Path(tempfile.mkdtemp()) / "runs.jsonl"
        >>> write_runs_jsonl([Trajectory(run_id="a"), Trajectory(run_id="b")], out)
        2
        >>> len(out.read_bytes().splitlines())
        2
    """
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."  # noqa: PTH120
    temporary, handle = _open_temporary(directory)
    written = 0
    try:
        with handle:
            for run in runs:
                handle.write(trajectory_to_line(run))
                handle.write(b"\n")
                written += 1
        if written == 0 and not keep_empty:
            os.unlink(temporary)  # noqa: PTH108
            return 0
        _refuse_irregular(target)
        os.replace(temporary, target)  # noqa: PTH105
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108
        raise
    return written


def _refuse_irregular(target: str) -> None:
    """OSError if `target` exists and is not a regular file: renaming over a FIFO, a device
    or a link would replace it, not write into it or where it points."""
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISREG(os.lstat(target).st_mode):
            raise OSError(errno.EEXIST, "not a regular file, refusing to replace it", target)


def _open_temporary(directory: str) -> tuple[str, Any]:
    while True:
        name = f"{_TEMPORARY_PREFIX}{os.getpid()}-{secrets.token_hex(6)}.tmp"
        temporary = os.path.join(directory, name)  # noqa: PTH118
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        return temporary, os.fdopen(descriptor, "wb")


def _message(message: Message) -> dict[str, Any]:
    record: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        record["tool_calls"] = [
            {"name": call.name, "input": call.args, "id": call.call_id}
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        record["tool_call_id"] = message.tool_call_id
    return record


def _turn(step: Step) -> dict[str, Any]:
    record = {
        "text": step.text,
        "tool_calls": [
            {"name": call.name, "input": call.args, "id": call.call_id, "output": call.result}
            for call in step.tool_calls
        ],
        "input_tokens": step.usage.input_tokens,
        "output_tokens": step.usage.output_tokens,
        "duration_ms": step.duration_ms,
        "node": step.node,
    }
    if step.turn is not None:  # the conversation turn (`Step.turn`), for formats with turns
        record["conversation_turn"] = step.turn
    return record


def _writable_record(record: dict[str, Any]) -> dict[str, Any]:
    safe = {key: _writable(value) for key, value in record.items() if key != "trajectory"}
    turns = []
    for turn in record["trajectory"]["turns"]:
        safe_turn = {key: _writable(value) for key, value in turn.items() if key != "tool_calls"}
        safe_turn["tool_calls"] = [
            {key: _writable(value) for key, value in call.items()} for call in turn["tool_calls"]
        ]
        turns.append(safe_turn)
    safe["trajectory"] = {"turns": turns}
    # Keep the field order of the plain path, so both write the same shape.
    return {key: safe[key] for key in record}


def _writable(value: Any) -> Any:
    """`value` as the nearest JSON value orjson can write (see `dumps_lenient`)."""
    return orjson.loads(dumps_lenient(value, _OPTIONS))
