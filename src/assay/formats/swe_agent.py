"""SWE-agent and mini-swe-agent trajectories (`.traj`, `.traj.json`): one run per file.

SWE-agent (0.x and 1.x) saves `<instance_id>.traj`:

    {"environment": "main",
     "trajectory": [{"thought": ..., "action": "find_file x.py", "observation": ...,
                     "response": ..., "execution_time": 0.28, "state": ..., "query": [...]}],
     "history": [{"role": "system" | "user" | "assistant" | "tool", "content": ...,
                  "agent": "main", "message_type": ..., "is_demo": ...}],
     "info": {"exit_status": "submitted", "submission": "diff --git ...",
              "model_stats": {"instance_cost": ..., "tokens_sent": ..., "tokens_received": ...,
                              "api_calls": ...},
              "swe_agent_version": "1.1.0", "review": ...},
     "replay_config": {"problem_statement": {"id": ...}, "agent": {"model": {"name": ...}}}}

(`replay_config`, 1.x only, is an object or JSON text of one; a file of the retry agent also
holds its `attempts`, each of that shape, and the chosen one at the top: a file saved before
the choice has only the attempts, and the last one is read.)

mini-swe-agent saves `<instance_id>.traj.json`:

    {"trajectory_format": "mini-swe-agent-1.1",
     "info": {"exit_status": "Submitted", "submission": ..., "mini_version": "2.0.0",
              "model_stats": {"instance_cost": ..., "api_calls": ...},
              "config": {"model": {"model_name": ...}, ...}},
     "messages": [{"role": "system" | "user" | "assistant" | "tool" | "exit", "content": ...,
                   "extra": {"actions": [{"command": ..., "tool_call_id": ...}],
                             "response": {"usage": ...}, "timestamp": ...}}],
     "instance_id": ...}

(format `mini-swe-agent-1`, of mini-swe-agent 1.x, has plain messages: the command is the one
bash code block of an assistant message, and the next user message is its output; a 2.x
message without `actions` is read the same way.)

Each file becomes a run:
- `run_id` and `scenario_id` the instance id: SWE-agent's `replay_config.problem_statement.id`,
  mini-swe-agent's `instance_id`, else the file name without `.traj` / `.traj.json`;
- `runner` `SWE-agent` or `mini-swe-agent`, with the version recorded; `model` the config's;
- `question` the first user message (a demonstration's left aside), `answer` the submission
  (the patch) when there is one, else the last assistant text;
- a step per trajectory entry (SWE-agent) or per assistant message (mini-swe-agent): its
  thought (the message's text) and the command it ran as one call, named by the command's
  first word, with `{"command": the command}` as arguments and the observation as result; a
  step that ran nothing (a format error, `exit`, SWE-agent 0.x's `exit_cost` and other exit
  actions) has no call; SWE-agent's `execution_time` is the step's time;
- `usage`: SWE-agent's `model_stats` (`tokens_sent` in, `tokens_received` out; a count of 0,
  as a replayed demonstration records, is none); for
  mini-swe-agent, the sum of each model response's `usage` (its stats count no tokens), with
  each step's own; `duration_ms` for mini-swe-agent the span of the messages' timestamps;
- `error` the exit status, when it is not a submission (`exit_cost`, `submitted (exit_cost)`,
  `LimitsExceeded`, none at all: a run saved before it finished);
- `source_verdicts` only what the file says itself: a `resolved` field (at the top or in
  `info`), and SWE-agent's reviewer verdict (`info.review`, without the reviewer's messages).

Not kept: the model's full prompts (`query`, `history`, the raw responses), the environment
state, costs, and the attempts not chosen. A file whose parts are not of their type (a
`trajectory` that is not a list, a step that is not an object) or of a mini-swe-agent format
other than 1.x is a problem naming the format and what is wrong.

Example:
    >>> (run,) = _read({"environment": "main", "trajectory": [
    ...     {"thought": "Find it.", "action": "find_file x.py", "observation": "x.py"},
    ...     {"thought": "Done.", "action": "submit", "observation": "diff --git a/x.py"}],
    ...     "history": [{"role": "user", "content": "Fix x.py"}],
    ...     "info": {"exit_status": "submitted", "submission": "diff --git a/x.py",
    ...              "model_stats": {"tokens_sent": 900, "tokens_received": 40}}},
    ...     "runs/django__django-1.traj")
    >>> run.run_id, run.runner, run.question, run.answer, run.error
    ('django__django-1', 'SWE-agent', 'Fix x.py', 'diff --git a/x.py', None)
    >>> run.tool_names(), run.steps[0].text
    (['find_file', 'submit'], 'Find it.')
    >>> run.steps[0].tool_calls[0].args, run.usage
    ({'command': 'find_file x.py'}, Usage(input_tokens=900, output_tokens=40))
    >>> (mini,) = _read({"trajectory_format": "mini-swe-agent-1", "messages": [
    ...     {"role": "user", "content": "Fix x.py"},
    ...     {"role": "assistant", "content": "Look.\\n```bash\\ncat x.py\\n```"},
    ...     {"role": "user", "content": "<returncode>0</returncode>"}],
    ...     "info": {"exit_status": "LimitsExceeded", "mini_version": "1.9.1"}}, "a.traj.json")
    >>> mini.run_id, mini.runner, mini.tool_calls()[0].result
    ('a', 'mini-swe-agent 1.9.1', '<returncode>0</returncode>')
    >>> mini.error
    'mini-swe-agent exit status LimitsExceeded: the step or cost limit was reached'
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from typing import Any

from assay._jsonable import json_type_phrase
from assay.formats._common import (
    ReadProblem,
    count,
    describe,
    parse_json,
    record_id,
    source_id,
)
from assay.formats.openai_chat import content_text, usage_of
from assay.formats.registry import register_reader
from assay.records import Step, ToolCall, Trajectory, Usage

__all__ = ["NAME"]

NAME = "swe-agent"
"""The reader's name (`--from swe-agent`)."""

_SWE = "SWE-agent"
_MINI = "mini-swe-agent"
_MINI_FORMAT = "mini-swe-agent-1"
"""The mini-swe-agent format read here: `mini-swe-agent-1` and its `.N` revisions."""

_SUBMITTED = "submitted"

# Actions that stop the run rather than run a command: `exit` (the agent's or the
# environment's to handle, never the shell's), and SWE-agent 0.x's exit actions (from 1.x on,
# a step that stops the run records no action).
_EXIT_ACTIONS = frozenset(
    {"exit", "skip", "exit_forfeit", "exit_context", "exit_cost", "exit_error", "exit_format",
     "exit_api"}
)

_EXITS = {
    "exit_cost": "the cost limit was reached",
    "exit_context": "the model's context window was exceeded",
    "exit_format": "the model's output could not be parsed, repeatedly",
    "exit_error": "the agent or its environment failed",
    "exit_api": "the model's API failed, retries included",
    "exit_forfeit": "the agent gave up",
    "exit_command": "the agent exited without submitting",
    "exit_command_timeout": "commands timed out, repeatedly",
    "exit_total_execution_time": "the limit on execution time was reached",
    "exit_environment_error": "the environment failed",
    "early_exit": "the run ended early",
    "skipped": "the instance was skipped",
    "LimitsExceeded": "the step or cost limit was reached",
    "TimeExceeded": "the time limit was reached",
    "RepeatedFormatError": "the model's output could not be parsed, repeatedly",
}

_BASH_BLOCK = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
_MAX_ERROR = 1000


def _sniff(name: str, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if _is_mini(value):
        return True
    if "trajectory" in value and "info" in value:
        return "history" in value or "environment" in value
    attempts = value.get("attempts")
    if isinstance(attempts, list) and attempts:
        first = attempts[0]
        return isinstance(first, dict) and "trajectory" in first and "info" in first
    return False


def _is_mini(value: dict[str, Any]) -> bool:
    fmt = value.get("trajectory_format")
    if isinstance(fmt, str) and fmt.startswith(_MINI):
        return True
    info = value.get("info")
    return (
        "messages" in value
        and "trajectory" not in value
        and isinstance(info, dict)
        and "mini_version" in info
    )


def _read(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    if not isinstance(value, dict):
        yield ReadProblem(
            source, f"not a SWE-agent or mini-swe-agent trajectory: {describe(value)}"
        )
    elif _is_mini(value):
        yield _mini_run(value, source)
    elif "trajectory" in value or "attempts" in value:
        yield _swe_run(value, source)
    else:
        yield ReadProblem(
            source,
            "not a SWE-agent or mini-swe-agent trajectory (no trajectory, attempts or "
            f"messages): {describe(value)}",
        )


# --- SWE-agent -----------------------------------------------------------------------------


def _swe_run(value: dict[str, Any], source: str) -> Trajectory | ReadProblem:
    record = value
    if "trajectory" not in value:
        # The retry agent's file before it chose an attempt: the attempt still running.
        attempts = value.get("attempts")
        if not isinstance(attempts, list) or not attempts:
            return ReadProblem(
                source, f"a SWE-agent .traj whose attempts are {_what(attempts)}, not a list"
            )
        record = attempts[-1]
        if not isinstance(record, dict):
            return ReadProblem(
                source,
                f"a SWE-agent .traj whose last attempt is {_what(record)}, not an object",
            )
    trajectory = record.get("trajectory")
    if not isinstance(trajectory, list):
        return ReadProblem(
            source,
            f"a SWE-agent .traj whose trajectory is {_what(trajectory)}, not a list of steps",
        )
    info, history = record.get("info"), record.get("history")
    if info is not None and not isinstance(info, dict):
        return ReadProblem(source, f"a SWE-agent .traj whose info is {_what(info)}, not an object")
    if history is not None and not isinstance(history, list):
        return ReadProblem(
            source, f"a SWE-agent .traj whose history is {_what(history)}, not a list"
        )
    info = info or {}
    steps: list[Step] = []
    for index, entry in enumerate(trajectory):
        if not isinstance(entry, dict):
            return ReadProblem(
                source,
                f"a SWE-agent .traj whose trajectory[{index}] is {_what(entry)}, not a step",
            )
        action = entry.get("action")
        if action is not None and not isinstance(action, str):
            return ReadProblem(
                source,
                f"a SWE-agent .traj whose trajectory[{index}].action is {_what(action)}, "
                "not text",
            )
        steps.append(_swe_step(entry, action or "", index))
    replay = _replay_config(record.get("replay_config"))
    problem = _dict(replay.get("problem_statement"))
    identifier = record_id(problem.get("id")) if problem.get("id") is not None else None
    if identifier is None:
        identifier = _file_id(source)
    messages = [m for m in history or () if isinstance(m, dict) and m.get("is_demo") is not True]
    question = _first_text(messages, "user")
    if question is None and isinstance(problem.get("text"), str):
        question = problem["text"]
    submission = info.get("submission")
    answer: Any = submission if _nonblank(submission) else _last_text(messages, "assistant")
    if answer is None and steps:
        answer = _text(trajectory[-1].get("response"))
    stats = _dict(info.get("model_stats"))
    model = _dict(_dict(replay.get("agent")).get("model")).get("name")
    return Trajectory(
        run_id=identifier,
        scenario_id=identifier,
        runner=_runner(_SWE, info.get("swe_agent_version")),
        model=model if isinstance(model, str) and model else None,
        question=question,
        answer=answer,
        steps=steps,
        usage=Usage(count(stats.get("tokens_sent")) or None,
                    count(stats.get("tokens_received")) or None),
        source=source,
        error=_swe_error(info.get("exit_status"), _nonblank(submission)),
        source_verdicts=_verdicts(value, info, info.get("review")),
    )


def _swe_step(entry: dict[str, Any], action: str, index: int) -> Step:
    command = action.strip()
    calls: list[ToolCall] = []
    if command and command not in _EXIT_ACTIONS:
        calls.append(
            ToolCall(
                name=command.split(None, 1)[0],
                args={"command": command},
                result=entry.get("observation"),
            )
        )
    text = _text(entry.get("thought"))
    seconds = entry.get("execution_time")
    duration = None
    if (
        isinstance(seconds, int | float)
        and not isinstance(seconds, bool)
        and math.isfinite(seconds)
        and seconds >= 0
    ):
        duration = float(seconds) * 1000.0
    return Step(
        index=index,
        text=text if text is not None else _text(entry.get("response")),
        tool_calls=calls,
        duration_ms=duration,
    )


def _replay_config(value: Any) -> dict[str, Any]:
    """SWE-agent 1.x's run config: an object, or (as 1.1 writes it) JSON text of one."""
    if isinstance(value, str):
        value = parse_json(value.encode("utf-8", "replace"))[0]
    return _dict(value)


def _swe_error(status: Any, submitted: bool) -> str | None:
    if isinstance(status, str) and status.strip() == _SUBMITTED:
        return None
    if status is None or status == "":
        return f"{_SWE} recorded no exit status: the run did not finish"
    said = status if isinstance(status, str) else str(status)
    inner = said
    if said.startswith(f"{_SUBMITTED} (") and said.endswith(")"):
        inner = said[len(_SUBMITTED) + 2 : -1]
    gloss = _EXITS.get(inner.strip())
    text = f"{_SWE} exit status {said}" + (f": {gloss}" if gloss else "")
    if submitted and inner != said:
        text += "; the changes made so far were submitted"
    return text[:_MAX_ERROR]


# --- mini-swe-agent ------------------------------------------------------------------------


def _mini_run(value: dict[str, Any], source: str) -> Trajectory | ReadProblem:
    fmt = value.get("trajectory_format")
    if fmt is not None and not (
        isinstance(fmt, str) and (fmt == _MINI_FORMAT or fmt.startswith(_MINI_FORMAT + "."))
    ):
        shown = repr(fmt) if isinstance(fmt, str) else _what(fmt)
        return ReadProblem(
            source,
            f"a mini-swe-agent trajectory of format {shown[:80]}: assay reads "
            f"{_MINI_FORMAT} and its revisions ({_MINI_FORMAT}.N)",
        )
    messages, info = value.get("messages"), value.get("info")
    if not isinstance(messages, list):
        return ReadProblem(
            source,
            f"a mini-swe-agent trajectory whose messages are {_what(messages)}, not a list",
        )
    if info is not None and not isinstance(info, dict):
        return ReadProblem(
            source, f"a mini-swe-agent trajectory whose info is {_what(info)}, not an object"
        )
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            return ReadProblem(
                source,
                f"a mini-swe-agent trajectory whose messages[{index}] is {_what(message)}, "
                "not a message",
            )
    info = info or {}
    steps, usage, duration = _mini_steps(messages)
    identifier = (
        record_id(value["instance_id"]) if value.get("instance_id") is not None else None
    )
    if identifier is None:
        identifier = _file_id(source)
    status, submission = info.get("exit_status"), info.get("submission")
    submitted = isinstance(status, str) and status.strip().lower() == _SUBMITTED
    answer: Any = submission if submitted and _nonblank(submission) else None
    if answer is None:
        answer = _last_text(messages, "assistant")
    model = _dict(_dict(info.get("config")).get("model")).get("model_name")
    error = None
    if not submitted:
        # mini-swe-agent 1.x writes the exception's text as the submission of a failed run.
        detail = info.get("exception_str")
        error = _mini_error(status, detail if _nonblank(detail) else submission)
    return Trajectory(
        run_id=identifier,
        scenario_id=identifier,
        runner=_runner(_MINI, info.get("mini_version")),
        model=model if isinstance(model, str) and model else None,
        question=_first_text(messages, "user"),
        answer=answer,
        steps=steps,
        usage=usage,
        duration_ms=duration,
        source=source,
        error=error,
        source_verdicts=_verdicts(value, info, None),
    )


def _mini_steps(messages: list[dict[str, Any]]) -> tuple[list[Step], Usage, float | None]:
    """The steps of a mini-swe-agent conversation, the tokens of every model response, and
    the span of the messages' timestamps."""
    steps: list[Step] = []
    total = Usage()
    waiting: list[ToolCall] = []  # calls of the last assistant message without their output
    times: list[float] = []
    for message in messages:
        extra = _dict(message.get("extra"))
        stamp = message.get("timestamp", extra.get("timestamp"))
        if isinstance(stamp, int | float) and not isinstance(stamp, bool) and math.isfinite(stamp):
            times.append(float(stamp))
        usage = _response_usage(message, extra)
        total += usage
        role = message.get("role")
        if role == "assistant" or (role is None and "actions" in extra):
            text = _message_text(message)
            waiting = _mini_calls(extra.get("actions"), text)
            steps.append(Step(index=len(steps), text=text, tool_calls=waiting, usage=usage))
        elif waiting and "interrupt_type" not in extra:
            output = _observation(message)
            if output is None:
                continue
            call_id = message.get("tool_call_id", message.get("call_id"))
            call = next((c for c in waiting if c.call_id is not None and c.call_id == call_id),
                        waiting[0])
            call.result = output
            waiting = [c for c in waiting if c is not call]
    duration = (max(times) - min(times)) * 1000.0 if len(times) > 1 else None
    return steps, total, duration


def _mini_calls(actions: Any, text: str | None) -> list[ToolCall]:
    """The commands an assistant message ran: its parsed `actions` (2.x), else the one bash
    block of its text (1.x runs a message's command only when it has exactly one)."""
    found: list[tuple[str, str | None]] = []
    if isinstance(actions, list):
        for action in actions:
            command = action.get("command") if isinstance(action, dict) else None
            if isinstance(command, str) and command.strip():
                call_id = action.get("tool_call_id")
                found.append((command.strip(), call_id if isinstance(call_id, str) else None))
    elif text is not None:
        blocks = _BASH_BLOCK.findall(text)
        if len(blocks) == 1 and blocks[0].strip():
            found.append((blocks[0].strip(), None))
    return [
        ToolCall(name=command.split(None, 1)[0], args={"command": command}, call_id=call_id)
        for command, call_id in found
    ]


def _observation(message: dict[str, Any]) -> str | None:
    """What a message following a command says it output: a tool or user message's text, a
    Responses API `function_call_output`'s output, or the exit message of a submission."""
    role = message.get("role")
    if role in ("user", "tool", "exit"):
        return content_text(message.get("content"))
    if message.get("type") == "function_call_output":
        return _text(message.get("output"))
    return None


def _message_text(message: dict[str, Any]) -> str | None:
    """An assistant message's text: its content, or a Responses API output's message text."""
    text = content_text(message.get("content"))
    if text is None and isinstance(message.get("output"), list):
        parts = [
            content_text(item.get("content"))
            for item in message["output"]
            if isinstance(item, dict) and item.get("type") == "message"
        ]
        text = "".join(part for part in parts if part) or None
    return text or None


def _response_usage(message: dict[str, Any], extra: dict[str, Any]) -> Usage:
    response = extra.get("response")
    usage = usage_of(response.get("usage")) if isinstance(response, dict) else None
    if usage is None and isinstance(message.get("usage"), dict):  # a Responses API message
        usage = usage_of(message["usage"])
    return usage or Usage()


def _mini_error(status: Any, detail: Any) -> str:
    if status is None or status == "":
        return f"{_MINI} recorded no exit status: the run did not finish"
    said = status if isinstance(status, str) else str(status)
    gloss = _EXITS.get(said.strip())
    text = f"{_MINI} exit status {said}" + (f": {gloss}" if gloss else "")
    if isinstance(detail, str) and detail.strip():
        text += f" ({detail.strip().splitlines()[0]})"
    return text[:_MAX_ERROR]


# --- shared --------------------------------------------------------------------------------


def _runner(name: str, version: Any) -> str:
    return f"{name} {version}" if isinstance(version, str) and version.strip() else name


def _verdicts(value: dict[str, Any], info: dict[str, Any], review: Any) -> dict[str, Any] | None:
    """What the file itself says of the run: a `resolved` field, the agent's own reviewer."""
    verdicts: dict[str, Any] = {}
    for holder in (value, info):
        if "resolved" in holder:
            verdicts["resolved"] = holder["resolved"]
            break
    if isinstance(review, dict) and "accept" in review:
        verdicts["review"] = {key: item for key, item in review.items() if key != "messages"}
    return verdicts or None


def _file_id(source: str) -> str:
    """The instance id in a file's name (`<instance_id>.traj`, `<instance_id>.traj.json`)."""
    name = os.path.basename(source)  # noqa: PTH119
    for suffix in (".traj.json", ".traj"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return source_id(source)


def _first_text(messages: list[Any], role: str) -> str | None:
    for message in messages:
        if isinstance(message, dict) and message.get("role") == role:
            text = content_text(message.get("content"))
            if text:
                return text
    return None


def _last_text(messages: list[Any], role: str) -> str | None:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == role:
            text = content_text(message.get("content"))
            if text:
                return text
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _nonblank(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _what(value: Any) -> str:
    return "missing" if value is None else json_type_phrase(value)


register_reader(
    NAME,
    _sniff,
    _read,
    description="SWE-agent .traj and mini-swe-agent .traj.json trajectories: a run per file, "
    "each command a tool step, the submitted patch the answer",
)
