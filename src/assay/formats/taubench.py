"""tau-bench and tau2-bench results: one run per task trial, with the benchmark's reward kept.

tau-bench (`sierra-research/tau-bench`) saves a run as a JSON list of `EnvRunResult`s,
`{"task_id", "reward", "info", "traj", "trial"}`:

- `traj` is the agent's conversation in OpenAI's format: the policy as `system`, the
  simulated user's messages as `user`, `assistant` messages with `tool_calls` (`function`
  `{"name", "arguments"}`, the arguments a JSON string), and `tool` messages answering them
  by `tool_call_id`. The ReAct and Act agents write each action in their text instead
  (`Action: {"name": ..., "arguments": {...}}`), a tool's output coming back as a user
  message `API output: ...`, and their reply to the user as the action `respond`: read here
  as the tool calls, results and replies they are;
- `info` is what the environment said: the `task`, `source`, `user_cost`, and `reward_info`
  (`reward`; its `info`, `r_actions` and `gt_data_hash` or `r_outputs` and `outputs`; the
  expected `actions`). A task that raised has `info` `{"error", "traceback"}`, `traj` empty.

tau2-bench (`sierra-research/tau2-bench`) saves a `Results` object, `{"timestamp", "info",
"tasks", "simulations"}`, `info.agent_info` naming the agent's implementation and `llm`, each
simulation `{"id", "task_id", "trial", "messages", "reward_info", "termination_reason",
"duration", "agent_cost", "user_cost", ...}`. Its messages are `system`, `user`, `assistant`
(`tool_calls` `[{"id", "name", "arguments": {...}, "requestor"}]`, `usage`) and `tool`
(`{"id", "content", "requestor", "error"}`, answering the call of that `id`). In the
telecom domain the simulated user calls tools too (`requestor` `user`): those calls are the
user's, not the agent's, and stay on the user's message (`Trajectory.messages`), never in the
steps. Results saved in the `dir` format keep `results.json` without its simulations (read
as a problem that says where they are), each simulation in a file `simulations/<id>.json` of
its own: such a file is read as one run.

Each trial or simulation becomes a run:

- `scenario_id` the task id; `run_id` `<task_id>#<trial>`, the trial as written (tau-bench
  and tau2-bench count from 0; a tau2-bench simulation without a trial is named by its
  `id`); `repeat` the trial + 1 (as `assay run --repeat` counts, from 1) when the file holds
  more than one trial, and in a tau2-bench simulation's own file, which cannot tell;
- `question` the first user text, `answer` the last text the agent wrote, the steps, tool
  calls and results from the conversation; `model` and `runner` from tau2-bench's
  `info.agent_info` (tau-bench records no model in its results);
- `source_verdicts` the benchmark's reward as written: tau-bench's `{"reward", "reward_info"}`,
  tau2-bench's `reward_info` (`reward`, `db_check`, `action_checks`, `nl_assertions`,
  `reward_breakdown`, ...), to compare with assay's, never used to score;
- `error` tau-bench's recorded error, or a tau2-bench simulation that ended otherwise than by
  the agent or the user stopping (`max_steps`, `too_many_errors`, `agent_error`,
  `infrastructure_error`, ...), with the error its `info` recorded;
- tau2-bench's `duration` as `duration_ms`, each assistant message's
  `generation_time_seconds` as its step's, and the agent's token counts (`usage`).

A document that is not one of these, or a result or simulation without its conversation, is a
problem naming the format and what is wrong. A full-duplex (voice) tau2-bench simulation,
recorded as ticks of audio chunks without messages, is a problem too: assay reads text ones.

Example:
    >>> result = {"task_id": 3, "trial": 0, "reward": 1.0,
    ...           "info": {"reward_info": {"reward": 1.0, "info": {"r_actions": 1.0}}},
    ...           "traj": [{"role": "user", "content": "Cancel order #W1, please."},
    ...                    {"role": "assistant", "content": None, "tool_calls": [
    ...                        {"id": "c1", "type": "function", "function": {
    ...                            "name": "cancel_pending_order",
    ...                            "arguments": '{"order_id": "#W1"}'}}]},
    ...                    {"role": "tool", "tool_call_id": "c1", "content": "cancelled"},
    ...                    {"role": "assistant", "content": "Order #W1 is cancelled."}]}
    >>> (run,) = _read_taubench([result], "results.json")
    >>> run.run_id, run.tool_names(), run.steps[0].tool_calls[0].result, run.answer
    ('3#0', ['cancel_pending_order'], 'cancelled', 'Order #W1 is cancelled.')
    >>> run.source_verdicts["reward"], run.source_verdicts["reward_info"]["info"]
    (1.0, {'r_actions': 1.0})
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, TypeGuard

import orjson

from assay._jsonable import json_type, json_type_phrase
from assay.formats._common import (
    ReadProblem,
    UnusableId,
    describe,
    first_item,
    id_text,
    record_id,
    safe_text,
    tool_args,
)
from assay.formats.openai_chat import (
    ChatItem,
    chat_trajectory,
    content_text,
    first_text,
    openai_calls,
    openai_item,
    tool_result,
)
from assay.formats.registry import register_reader
from assay.records import ToolCall, Trajectory

__all__: list[str] = []

TAU_BENCH = "tau-bench"
TAU2_BENCH = "tau2-bench"

_OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_TAU2_ROLES = frozenset({"system", "user", "assistant", "tool"})

NORMAL_ENDS = frozenset({"agent_stop", "user_stop"})
"""tau2-bench's `termination_reason`s of a simulation that ended as it should: the agent or
the user said the conversation was over. Any other is the run's `error`."""

_ACTION = "Action:"
_RESPOND = "respond"
_API_OUTPUT = "API output: "
_USER_SCOPE = "\x00user"  # the simulated user's own calls pair with the user's results only
_ERROR_CHARS = 1000


_Items = list[tuple[str, ChatItem]]
"""Chat items, each with where in the document its message is (`traj[3]`), for notes."""


class _Read(NamedTuple):
    """One result or simulation read: its run (or why it is none), and what in it the run
    could not keep (a message that is not one, a role or content part assay does not read):
    said, for the notes a run will carry, never dropped in silence."""

    item: Trajectory | ReadProblem
    notes: list[str]


def _noted(read: _Read) -> Trajectory | ReadProblem:
    """The run with its notes (`Trajectory.notes`), or the problem."""
    if isinstance(read.item, Trajectory):
        read.item.notes.extend(read.notes)
    return read.item


# --- tau-bench -------------------------------------------------------------------------------


def _sniff_taubench(name: str, value: Any) -> bool:
    item = value if isinstance(value, dict) else first_item(value)
    return (
        isinstance(item, dict)
        and "task_id" in item
        and "reward" in item
        and ("traj" in item or "trial" in item)
        and "termination_reason" not in item
    )


def _read_taubench(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    for read in _taubench_runs(value, source):
        yield _noted(read)


def _taubench_runs(value: Any, source: str) -> Iterator[_Read]:
    """The runs of a tau-bench results document (a list of results, or one), with notes."""
    if isinstance(value, dict):
        results = [(value, source)]
    elif isinstance(value, list) and value:
        results = [(item, f"{source}#{index}") for index, item in enumerate(value)]
    else:
        yield _Read(ReadProblem(source, f"not {TAU_BENCH} results: {describe(value)}"), [])
        return
    several = _trials(result for result, _ in results) > 1
    for result, where in results:
        yield _taubench_run(result, where, several)


def _taubench_run(result: Any, source: str, several: bool) -> _Read:
    if not isinstance(result, dict):
        return _problem(source, f"a {TAU_BENCH} result that is {json_type_phrase(result)}")
    if "traj" not in result:
        if not {"task_id", "reward", "trial"} & result.keys():
            return _problem(source, f"not a {TAU_BENCH} result: {describe(result)}")
        return _problem(source, f"a {TAU_BENCH} result without traj")
    traj = result["traj"]
    if not isinstance(traj, list):
        return _problem(
            source, f"a {TAU_BENCH} result whose traj is {json_type_phrase(traj)}, not a list"
        )
    task_id = record_id(result.get("task_id"))
    if task_id is None:
        return _problem(source, f"a {TAU_BENCH} result without task_id")
    notes: list[str] = []
    items = _taubench_items(traj, notes)
    run = _run(items, task_id, result.get("trial"), several, source, notes)
    info = result.get("info")
    info = info if isinstance(info, dict) else {}
    verdicts = {"reward": result["reward"]} if "reward" in result else {}
    if info.get("reward_info") is not None:
        verdicts["reward_info"] = info["reward_info"]
    run.source_verdicts = verdicts or None
    if info.get("error") is not None:
        said = _first_line(safe_text(info["error"])) or _last_line(info.get("traceback"))
        run.error = f"{TAU_BENCH} error: {said or 'no message'}"[:_ERROR_CHARS]
        run.error_kind = "agent_error"  # the task raised: never scored
    return _Read(run, notes)


def _taubench_items(traj: list[Any], notes: list[str]) -> _Items:
    """tau-bench's OpenAI-format messages as chat items, the ReAct agents' actions read."""
    items: _Items = []
    waiting: ToolCall | None = None  # a ReAct action whose `API output` comes next
    for index, message in enumerate(traj):
        where = f"traj[{index}]"
        if not isinstance(message, dict):
            notes.append(f"{where} is {json_type_phrase(message)}, not a message: skipped")
            continue
        role = message.get("role")
        content = message.get("content")
        _note_content(content, where, notes)
        react = _react_item(message) if role == "assistant" else None
        if react is not None:
            waiting = react.calls[0] if react.calls else None
            items.append((where, react))
            continue
        if waiting is not None and role == "user" and _is_api_output(content):
            output = content[len(_API_OUTPUT) :]
            items.append((where, ChatItem("tool", output, tool_name=waiting.name, result=output)))
            waiting = None
            continue
        waiting = None
        if not isinstance(role, str):
            notes.append(f"{where} has no role (a message needs one): skipped")
            continue
        if role not in _OPENAI_ROLES:
            notes.append(f"{where} has role {role!r}: kept in messages, not read as a turn")
        item = openai_item(message)
        if item is not None:
            items.append((where, item))
    return items


def _react_item(message: dict[str, Any]) -> ChatItem | None:
    """An assistant message of tau-bench's ReAct or Act agent (`Thought: ...` and `Action:
    {"name", "arguments"}` in its text) as the call it makes or the reply it gives; None for
    any other message. The action is the JSON after the last `Action:`, as tau-bench reads it.
    """
    text = message.get("content")
    if message.get("tool_calls") or not isinstance(text, str) or _ACTION not in text:
        return None
    thought, _, written = text.rpartition(_ACTION)
    try:
        action = orjson.loads(written.strip())
    except orjson.JSONDecodeError:
        return None
    if not isinstance(action, dict) or not isinstance(action.get("name"), str):
        return None
    if "arguments" not in action:
        return None
    arguments = action["arguments"]
    if action["name"] == _RESPOND:
        said = arguments.get("content") if isinstance(arguments, dict) else None
        return ChatItem("assistant", said if isinstance(said, str) else text)
    call = ToolCall(action["name"], tool_args(arguments))
    return ChatItem("assistant", thought.strip() or None, calls=[call])


def _is_api_output(content: Any) -> TypeGuard[str]:
    """Whether a user message is the output of a ReAct agent's action, as tau-bench writes it."""
    return isinstance(content, str) and content.startswith(_API_OUTPUT)


# --- tau2-bench ------------------------------------------------------------------------------


def _sniff_tau2(name: str, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if "simulations" in value:
        return "tasks" in value or "info" in value
    info = value.get("info")
    if isinstance(info, dict) and "agent_info" in info and "tasks" in value:
        return True  # results.json of the dir format
    return (
        "task_id" in value
        and "termination_reason" in value
        and ("messages" in value or "ticks" in value)
    )


def _read_tau2(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    for read in _tau2_runs(value, source):
        yield _noted(read)


def _tau2_runs(value: Any, source: str) -> Iterator[_Read]:
    """The runs of a tau2-bench `Results` document, or of one simulation's file, with notes."""
    if not isinstance(value, dict):
        yield _problem(source, f"not {TAU2_BENCH} results: {describe(value)}")
        return
    if "simulations" not in value:
        if "task_id" in value:
            # A simulation's own file: how many trials its results ran is not in it, so each
            # is a repetition (the trials of a one-trial run are all repetition 1).
            yield _tau2_run(value, source, _Agent.of(None), several=True)
        elif "info" in value and "tasks" in value:
            yield _problem(
                source,
                f"{TAU2_BENCH} results without simulations (saved in the dir format, each "
                "simulation is a file of simulations/ beside this one: read those)",
            )
        else:
            yield _problem(source, f"not {TAU2_BENCH} results: {describe(value)}")
        return
    simulations = value["simulations"]
    if not isinstance(simulations, list):
        yield _problem(
            source,
            f"{TAU2_BENCH} results whose simulations are {json_type_phrase(simulations)}, "
            "not a list",
        )
        return
    if not simulations:
        yield _problem(source, f"{TAU2_BENCH} results with no simulations")
        return
    agent = _Agent.of(value.get("info"))
    several = agent.trials > 1 or _trials(simulations) > 1
    for index, simulation in enumerate(simulations):
        yield _tau2_run(simulation, f"{source}#{index}", agent, several)


class _Agent(NamedTuple):
    """What a tau2-bench `Results.info` says of the agent, for every simulation."""

    model: str | None
    runner: str | None
    trials: int

    @classmethod
    def of(cls, info: Any) -> _Agent:
        if not isinstance(info, dict):
            return cls(None, None, 1)
        agent = info.get("agent_info")
        agent = agent if isinstance(agent, dict) else {}
        trials = info.get("num_trials")
        return cls(
            first_text(agent.get("llm")),
            first_text(agent.get("implementation")),
            trials if type(trials) is int else 1,
        )


def _tau2_run(simulation: Any, source: str, agent: _Agent, several: bool) -> _Read:
    if not isinstance(simulation, dict):
        return _problem(
            source, f"a {TAU2_BENCH} simulation that is {json_type_phrase(simulation)}"
        )
    messages = simulation.get("messages")
    if messages is None:
        if simulation.get("ticks"):
            return _problem(
                source,
                f"a full-duplex (voice) {TAU2_BENCH} simulation, recorded as ticks without "
                "messages: assay reads text simulations",
            )
        return _problem(source, f"a {TAU2_BENCH} simulation without messages")
    if not isinstance(messages, list):
        return _problem(
            source,
            f"a {TAU2_BENCH} simulation whose messages are {json_type_phrase(messages)}, "
            "not a list",
        )
    task_id = record_id(simulation.get("task_id"))
    if task_id is None:
        return _problem(source, f"a {TAU2_BENCH} simulation without task_id")
    notes: list[str] = []
    thought: list[float | None] = []  # how long each assistant message took to generate
    items = _tau2_items(messages, notes, thought)
    trial = simulation.get("trial")
    run = _run(items, task_id, trial, several, source, notes)
    if len(thought) == len(run.steps):
        for step, milliseconds in zip(run.steps, thought, strict=True):
            step.duration_ms = milliseconds
    if trial is None and isinstance(simulation.get("id"), str):
        run.run_id = simulation["id"]
    run.model = agent.model or _raw_model(messages)
    run.runner = agent.runner
    reward = simulation.get("reward_info")
    run.source_verdicts = reward if isinstance(reward, dict) else None
    run.duration_ms = _milliseconds(simulation.get("duration"))
    run.error = _tau2_error(simulation)
    run.error_kind = _TAU2_FAILURES.get(str(simulation.get("termination_reason")))
    return _Read(run, notes)


_TAU2_FAILURES = {
    "agent_error": "agent_error",
    "unexpected_error": "agent_error",
    "timeout": "timeout",
    "infrastructure_error": "infrastructure_error",
    "user_error": "infrastructure_error",
}
"""tau2-bench's endings that are failures of the run itself, and their kind for assay (never
scored); one that ran out of steps, errors or context is a finished run that failed its task,
scored as it stands."""


def _tau2_items(messages: list[Any], notes: list[str], thought: list[float | None]) -> _Items:
    """tau2-bench's messages as chat items (its tool messages answer by `id`, and the user's
    own tool calls stay the user's), and each assistant message's generation time."""
    items: _Items = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            notes.append(f"{where} is {json_type_phrase(message)}, not a message: skipped")
            continue
        role = message.get("role")
        if role == "tool" and isinstance(message.get("tool_messages"), list):
            for inner, part in enumerate(message["tool_messages"]):  # a MultiToolMessage
                _tau2_tool(part, f"{where}.tool_messages[{inner}]", items, notes)
            continue
        if role == "tool":
            _tau2_tool(message, where, items, notes)
            continue
        _note_content(message.get("content"), where, notes)
        if role == "user":
            text = content_text(message.get("content"))
            calls = openai_calls(message.get("tool_calls"))
            for call in calls:
                call.call_id = call.call_id or None  # tau2-bench's default id is ""
            items.append((where, ChatItem("user", text, calls=calls)))
            continue
        if not isinstance(role, str):
            notes.append(f"{where} has no role (a message needs one): skipped")
            continue
        if role not in _TAU2_ROLES:
            notes.append(f"{where} has role {role!r}: kept in messages, not read as a turn")
        item = openai_item(message)  # reads the flat {"id", "name", "arguments"} calls
        if item is not None:
            for call in item.calls:
                call.call_id = call.call_id or None  # tau2-bench's default id is ""
            items.append((where, item))
            if item.role == "assistant":
                thought.append(_milliseconds(message.get("generation_time_seconds")))
    return items


def _tau2_tool(message: Any, where: str, items: _Items, notes: list[str]) -> None:
    if not isinstance(message, dict):
        notes.append(f"{where} is {json_type_phrase(message)}, not a tool message: skipped")
        return
    content = message.get("content")
    _note_content(content, where, notes)
    item = ChatItem(
        "tool",
        content_text(content),
        call_id=id_text(message.get("id")) or None,
        result=tool_result(content),
        scope=_USER_SCOPE if message.get("requestor") == "user" else None,
    )
    items.append((where, item))


def _tau2_error(simulation: dict[str, Any]) -> str | None:
    reason = simulation.get("termination_reason")
    info = simulation.get("info")
    recorded = info.get("error") if isinstance(info, dict) else None
    if (reason is None or (isinstance(reason, str) and reason in NORMAL_ENDS)) and (
        recorded is None
    ):
        return None
    said = f"{TAU2_BENCH} simulation ended: {safe_text(reason)}"
    if recorded is not None:
        kind = info.get("error_type") if isinstance(info, dict) else None
        said += f": {kind}" if isinstance(kind, str) and kind else ""
        said += f": {_first_line(safe_text(recorded))}"
    return said[:_ERROR_CHARS]


def _raw_model(messages: list[Any]) -> str | None:
    """The model an assistant message's raw response names (a simulation file alone, without
    the results' `info`)."""
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant":
            raw = message.get("raw_data")
            if isinstance(raw, dict) and isinstance(raw.get("model"), str) and raw["model"]:
                return str(raw["model"])
    return None


# --- shared ----------------------------------------------------------------------------------


def _run(
    items: _Items, task_id: str, trial: Any, several: bool, source: str, notes: list[str]
) -> Trajectory:
    """The run of a conversation: a step per assistant item, the user's own calls on their
    messages, turns counted by what the user said (not by the tools the user called); a tool
    result that answers no call is noted."""
    counted = type(trial) is int and not isinstance(task_id, UnusableId)
    run = chat_trajectory(
        (item for _, item in items),
        run_id=f"{task_id}#{trial}" if counted else task_id,
        scenario_id=task_id,
        source=source,
    )
    if counted and several and trial >= 0:
        run.repeat = trial + 1
    if len(run.messages) != len(items):  # one message per item: chat_trajectory's promise
        return run
    said = 0
    steps = iter(run.steps)
    asked: dict[str | None, list[ToolCall]] = {None: [], _USER_SCOPE: []}
    for (where, item), message in zip(items, run.messages, strict=True):
        if item.role == "user":
            if item.calls:
                message.tool_calls = item.calls
                asked[_USER_SCOPE].extend(item.calls)
            if item.text is not None or not item.calls:
                said += 1
        elif item.role == "assistant":
            asked[None].extend(item.calls)
            step = next(steps, None)
            if step is not None:
                step.turn = max(said - 1, 0)
        elif item.role == "tool":
            call = _answered(asked.setdefault(item.scope, []), item.call_id)
            if call is None:
                notes.append(f"{where} answers no call made before it: kept in messages only")
            elif item.scope == _USER_SCOPE:
                call.result = item.result
                message.tool_call_id = message.tool_call_id or call.call_id
    return run


def _answered(waiting: list[ToolCall], call_id: str | None) -> ToolCall | None:
    """The waiting call a tool result answers, taken off the list: the one with its id, else
    the first without an id (as `chat_trajectory` pairs the agent's)."""
    at = next((i for i, c in enumerate(waiting) if call_id is not None and c.call_id == call_id),
              None)
    if at is None:
        at = next((i for i, c in enumerate(waiting) if c.call_id is None or call_id is None),
                  None)
    return None if at is None else waiting.pop(at)


def _trials(items: Iterable[Any]) -> int:
    """How many different trials the results (or simulations) name."""
    trials = (item.get("trial") for item in items if isinstance(item, dict))
    return len({trial for trial in trials if type(trial) is int})


def _note_content(content: Any, where: str, notes: list[str]) -> None:
    """Note message content assay reads no text from: parts that are not text, or a value
    that is neither text nor a list of parts."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        notes.append(f"{where} content is {json_type_phrase(content)}: not read")
        return
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(part, str) or (isinstance(part, dict) and kind is None):
            continue
        if isinstance(kind, str) and "text" in kind:
            continue
        shown = repr(kind) if isinstance(kind, str) else json_type(part)
        notes.append(f"{where} has a content part of type {shown}: not read")


def _milliseconds(seconds: Any) -> float | None:
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        return None
    try:
        value = float(seconds)
    except OverflowError:
        return None
    return value * 1000.0 if math.isfinite(value) and value >= 0 else None


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _last_line(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


def _problem(source: str, reason: str) -> _Read:
    return _Read(ReadProblem(source, reason), [])


register_reader(
    "taubench",
    _sniff_taubench,
    _read_taubench,
    description="tau-bench results (a list of EnvRunResult): a run per task and trial, "
    "with tau-bench's reward kept",
)
register_reader(
    "tau2",
    _sniff_tau2,
    _read_tau2,
    description="tau2-bench results (Results, or one simulation's file): a run per "
    "simulation, with tau2-bench's reward_info kept",
)
