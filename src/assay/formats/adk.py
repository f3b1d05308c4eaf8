"""Google ADK eval sets: `.evalset.json` and the older `.test.json`, as runs or as cases.

An eval set (`EvalSet` in `google.adk.evaluation`) is
`{"eval_set_id", "eval_cases": [{"eval_id", "conversation": [invocation, ...],
"session_input": {"app_name", "user_id", "state"}}]}`, where each invocation is one user turn:
`{"invocation_id", "user_content": {"parts": [{"text"}]}, "final_response": {"parts": [...]},
"intermediate_data": {...}}`. `intermediate_data` takes one of two shapes:

- `{"tool_uses": [{"name", "args", "id"}], "tool_responses": [{"name", "response", "id"}],
  "intermediate_responses": [[author, parts], ...]}`;
- `{"invocation_events": [{"author", "content": {"parts": [{"function_call"},
  {"function_response"}, {"text"}]}, "usage_metadata", "model_version"}]}`.

ADK's models accept camelCase aliases (`evalCases`, `userContent`, `finalResponse`,
`toolUses`, `functionCall`, ...) and files saved by other tools use them; both spellings are
read. The older formats are read as ADK itself migrates them: a `.test.json` list of
`{"query", "expected_tool_use": [{"tool_name", "tool_input"}], "reference"}` is one eval case
whose invocations are the list items (named after the file), and a list of
`{"name", "data": [...], "initial_session"}` is one eval case per item.

Each eval case becomes one run (`trajectories_from_adk`) or one case of ground truth
(`cases_from_adk`, `load_adk_cases`). An invocation is a turn (`Step.turn`): ADK compares tool
calls invocation by invocation, in order within each, so each call is a step of its own, and
an invocation without calls is a step without calls, kept so that the turn still counts. A
case carries the calls per invocation as `expected_turns`, all of them in order as
`expected_trajectory`, and ADK's tool trajectory criterion (match type, threshold,
`ignore_args`) from the `test_config.json` beside the eval set as its trajectory options.

Example:
    >>> evalset = {"eval_set_id": "pumps", "eval_cases": [{"eval_id": "down", "conversation": [
    ...     {"user_content": {"parts": [{"text": "Which pumps are down?"}]},
    ...      "final_response": {"parts": [{"text": "P-3"}]},
    ...      "intermediate_data": {"tool_uses": [{"name": "down_assets",
    ...                                           "args": {"kind": "pump"}}]}}]}]}
    >>> run = trajectories_from_adk(evalset, "pumps.evalset.json")[0]
    >>> (run.scenario_id, run.question, run.tool_names(), run.answer)
    ('down', 'Which pumps are down?', ['down_assets'], 'P-3')
    >>> case = cases_from_adk(evalset, "pumps.evalset.json")[0]
    >>> case.expected_turns, case.trajectory_mode, case.trajectory_args
    ([[{'name': 'down_assets', 'args': {'kind': 'pump'}}]], 'EXACT', 'exact')
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assay._jsonable import json_type
from assay.formats._adk_criteria import CONFIG_FILE, TrajectoryCriterion, trajectory_criterion
from assay.formats._common import (
    ReadProblem,
    first_item,
    id_text,
    named,
    parse_json,
    read_bytes,
    safe_text,
    tool_args,
)
from assay.formats._common import count as _count
from assay.formats.registry import register_reader
from assay.records import Case, Message, Step, ToolCall, Trajectory, Usage

__all__ = ["TrajectoryCriterion", "cases_from_adk", "load_adk_cases", "trajectories_from_adk"]

_SUFFIXES = (".evalset.json", ".test.json", ".json")


def trajectories_from_adk(data: Any, source: str) -> list[Trajectory | ReadProblem]:
    """Each eval case of an ADK eval set as a run.

    Each invocation is a turn: a step per tool call, in order (with the response recorded
    for it, paired by id, else by name), each with the invocation's index as `Step.turn`; an
    invocation without calls is one step without calls. The last step of an invocation holds
    its final response as text, its token usage and its `duration` (seconds). `question` is
    the first user text, `answer` the last final response that has text, `run_id` and
    `scenario_id` the `eval_id`, `runner` the session's `app_name`. Token usage, the model and
    the agent that made each call (`Step.node`, the event's author) come from invocation
    events when the file records them.

    Never raises: a file that is no eval set, or a case without an id or a recorded
    conversation (a `conversation_scenario` is played live, so nothing was recorded), is a
    `ReadProblem`.

    Args:
        data: The parsed JSON of an `.evalset.json` or `.test.json` file.
        source: Where it was read from (the file path); cases are `source#INDEX`.

    Returns:
        A `Trajectory` per eval case and a `ReadProblem` per unusable one, in file order.

    Example:
        >>> old = [{"query": "Roll a die", "reference": "4",
        ...         "expected_tool_use": [{"tool_name": "roll", "tool_input": {"sides": 6}}]}]
        >>> run = trajectories_from_adk(old, "dice.test.json")[0]
        >>> (run.scenario_id, run.steps[0].tool_calls[0].args, run.steps[0].turn, run.answer)
        ('dice', {'sides': 6}, 0, '4')
    """
    return [
        item if isinstance(item, ReadProblem) else _trajectory(item)
        for item in _eval_cases(data, source)
    ]


def cases_from_adk(
    data: Any, source: str, criterion: TrajectoryCriterion | ReadProblem | None = None
) -> list[Case | ReadProblem]:
    """Each eval case of an ADK eval set as ground truth.

    `Case.id` is the `eval_id`; `question` the first user text; `expected_answer` the final
    response of the last invocation that has one; `expected_turns` one list per invocation
    (empty when it calls no tool) of `{"name", "args"}` in order (`args` None when the file
    gives none, which matches any arguments); `expected_trajectory` all those calls in order,
    one step each. The trajectory options are ADK's criterion: `trajectory_mode` its match
    type, `trajectory_args` `exact` (or `ignore` with `ignore_args`), `trajectory_threshold`
    its threshold. A multi-turn case also lists its turns in `metadata["turns"]`
    (`{"user", "expected_answer"}` each); `metadata["eval_set_id"]` names the set.

    Args:
        data: The parsed JSON of an `.evalset.json` or `.test.json` file.
        source: Where it was read from (the file path).
        criterion: The tool trajectory criterion of the eval set's `test_config.json`; None
            for ADK's default (`EXACT`, threshold 1.0); a `ReadProblem` (an invalid config)
            makes every case's `trajectory_problem` say what is wrong.

    Returns:
        A `Case` per eval case and a `ReadProblem` per unusable one, in file order.

    Example:
        >>> cases_from_adk({"eval_cases": [{"conversation": []}]}, "x.evalset.json")[0].reason
        'eval case without an eval_id'
    """
    if criterion is None:
        criterion = TrajectoryCriterion()
    return [
        item if isinstance(item, ReadProblem) else _case(item, criterion)
        for item in _eval_cases(data, source)
    ]


def load_adk_cases(path: str | Path) -> list[Case | ReadProblem]:
    """The cases of an ADK eval set file, with the criterion of the `test_config.json` beside it.

    Never raises: a file that cannot be read or parsed is one `ReadProblem`; an invalid
    `test_config.json` is a `ReadProblem` naming the file and the field, and every case of
    the set then carries it as `trajectory_problem` (its trajectory cannot be checked as the
    set asks), while its answer can still be scored.

    Args:
        path: An `.evalset.json` or `.test.json` file.

    Returns:
        Problems with the config first, then a `Case` per eval case and a `ReadProblem` per
        unusable one, in file order.

    Example:
        >>> import json, tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "test_config.json").write_text(json.dumps({"criteria": {
        ...     "tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "IN_ORDER"}}}))
        >>> _ = (folder / "dice.test.json").write_text(json.dumps([{"query": "Roll",
        ...     "expected_tool_use": [{"tool_name": "roll", "tool_input": {}}]}]))
        >>> case = load_adk_cases(folder / "dice.test.json")[0]
        >>> case.id, case.trajectory_mode, case.trajectory_threshold, case.expected_turns
        ('dice', 'IN_ORDER', 0.5, [[{'name': 'roll', 'args': {}}]])
    """
    source = str(path)
    data = read_bytes(source)
    if isinstance(data, ReadProblem):
        return [data]
    if not data or data.isspace():
        return [ReadProblem(source, "empty file")]
    value, reason = parse_json(data)
    if reason is not None:
        return [ReadProblem(source, reason)]
    criterion = _criterion_beside(source)
    found: list[Case | ReadProblem] = [criterion] if isinstance(criterion, ReadProblem) else []
    return found + cases_from_adk(value, source, criterion)


def _criterion_beside(source: str) -> TrajectoryCriterion | ReadProblem | None:
    """The criterion of the `test_config.json` in the folder of `source`; None without one."""
    config_path = os.path.join(os.path.dirname(source), CONFIG_FILE)  # noqa: PTH118, PTH120
    if not os.path.isfile(config_path):  # noqa: PTH113
        return None
    data = read_bytes(config_path)
    if isinstance(data, ReadProblem):
        return data
    value, reason = parse_json(data)
    if reason is not None:
        return ReadProblem(config_path, reason)
    return trajectory_criterion(value, config_path)


# --- eval sets -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Invocation:
    user: str | None = None
    final: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    authors: list[str | None] = field(default_factory=list)
    """The agent that made each call, when the file records it (invocation events)."""
    usage: Usage = field(default_factory=Usage)
    duration_ms: float | None = None
    model: str | None = None


@dataclass(slots=True)
class _EvalCase:
    eval_id: str
    source: str
    invocations: list[_Invocation]
    eval_set_id: str | None = None
    app_name: str | None = None


def _eval_cases(data: Any, source: str) -> list[_EvalCase | ReadProblem]:
    if isinstance(data, dict):
        cases = _get(data, "eval_cases", "evalCases")
        if not isinstance(cases, list):
            return [ReadProblem(source, "not an ADK eval set: no eval_cases list")]
        if not cases:
            return [ReadProblem(source, "eval set without eval cases")]
        set_id = id_text(_get(data, "eval_set_id", "evalSetId"))
        return [_new_case(case, f"{source}#{i}", set_id) for i, case in enumerate(cases)]
    if not isinstance(data, list):
        return [ReadProblem(source, f"not an ADK eval set: got {json_type(data)}")]
    if not data:
        return [ReadProblem(source, "empty list: no eval cases")]
    first = next((item for item in data if isinstance(item, dict)), {})
    if "query" in first:
        # A `.test.json`: the whole list is one conversation, named after the file.
        return [_EvalCase(_file_stem(source), source, _invocations(data))]
    if "data" in first:
        return [_old_case(item, f"{source}#{i}") for i, item in enumerate(data)]
    if any(key in first for key in ("eval_id", "evalId", "conversation")):
        return [_new_case(case, f"{source}#{i}", None) for i, case in enumerate(data)]
    return [ReadProblem(source, "not an ADK eval set: no eval cases, queries or data")]


def _new_case(case: Any, source: str, set_id: str | None) -> _EvalCase | ReadProblem:
    if not isinstance(case, dict):
        return ReadProblem(source, f"expected an eval case object, got {json_type(case)}")
    eval_id = id_text(_get(case, "eval_id", "evalId"))
    if eval_id is None:
        return ReadProblem(source, "eval case without an eval_id")
    conversation = case.get("conversation")
    if not isinstance(conversation, list):
        if _get(case, "conversation_scenario", "conversationScenario") is not None:
            return ReadProblem(
                source,
                f"eval case {eval_id!r} has a conversation_scenario (played live by a user "
                "simulator), not a recorded conversation",
            )
        return ReadProblem(source, f"eval case {eval_id!r} has no conversation")
    session = _get(case, "session_input", "sessionInput")
    app_name = _get(session, "app_name", "appName")
    return _EvalCase(
        eval_id,
        source,
        _invocations(conversation),
        eval_set_id=set_id,
        app_name=app_name if isinstance(app_name, str) else None,
    )


def _old_case(case: Any, source: str) -> _EvalCase | ReadProblem:
    if not isinstance(case, dict):
        return ReadProblem(source, f"expected an eval case object, got {json_type(case)}")
    name = id_text(case.get("name"))
    if name is None:
        return ReadProblem(source, "eval case without a name")
    data = case.get("data")
    if not isinstance(data, list):
        return ReadProblem(source, f"eval case {name!r} has no data list")
    session = case.get("initial_session")
    app_name = _get(session, "app_name")
    return _EvalCase(
        name, source, _invocations(data), app_name=app_name if isinstance(app_name, str) else None
    )


def _file_stem(source: str) -> str:
    name = os.path.basename(source)  # noqa: PTH119
    for suffix in _SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)] or name
    return name


# --- invocations ---------------------------------------------------------------------------


def _invocations(items: list[Any]) -> list[_Invocation]:
    # An item that is not an object says nothing about a turn and is dropped.
    return [_invocation(item) for item in items if isinstance(item, dict)]


def _invocation(raw: dict[str, Any]) -> _Invocation:
    user = _content_text(_get(raw, "user_content", "userContent"))
    if user is None:
        user = _content_text(raw.get("query"))  # the older format
    final = _content_text(_get(raw, "final_response", "finalResponse"))
    if final is None:
        final = _content_text(raw.get("reference"))
    invocation = _Invocation(user=user, final=final)
    duration = raw.get("duration")
    if isinstance(duration, int | float) and not isinstance(duration, bool) and duration >= 0:
        invocation.duration_ms = float(duration) * 1000.0
    intermediate = _get(raw, "intermediate_data", "intermediateData")
    events = _get(intermediate, "invocation_events", "invocationEvents")
    if isinstance(events, list):
        _read_events(events, invocation)
    elif isinstance(intermediate, dict):
        _read_tool_uses(intermediate, invocation)
    else:
        old_uses = raw.get("expected_tool_use")
        if isinstance(old_uses, list):
            invocation.calls = [
                ToolCall(name=_name(use.get("tool_name")), args=tool_args(use.get("tool_input")))
                for use in old_uses
                if isinstance(use, dict)
            ]
    return invocation


def _read_tool_uses(intermediate: dict[str, Any], invocation: _Invocation) -> None:
    uses = _get(intermediate, "tool_uses", "toolUses")
    if isinstance(uses, list):
        invocation.calls = [_call(use) for use in uses if isinstance(use, dict)]
    responses = _get(intermediate, "tool_responses", "toolResponses")
    if isinstance(responses, list):
        for response in responses:
            if isinstance(response, dict):
                _answer(invocation.calls, response)


def _read_events(events: list[Any], invocation: _Invocation) -> None:
    for event in events:
        if not isinstance(event, dict):
            continue
        author = event.get("author")
        usage = _get(event, "usage_metadata", "usageMetadata")
        if isinstance(usage, dict):
            invocation.usage = invocation.usage + _gemini_usage(usage)
        model = _get(event, "model_version", "modelVersion")
        if invocation.model is None and isinstance(model, str) and model:
            invocation.model = model
        content = event.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, dict):
                continue
            call = _get(part, "function_call", "functionCall")
            if isinstance(call, dict):
                invocation.calls.append(_call(call))
                invocation.authors.append(author if isinstance(author, str) and author else None)
            response = _get(part, "function_response", "functionResponse")
            if isinstance(response, dict):
                _answer(invocation.calls, response)


def _call(raw: dict[str, Any]) -> ToolCall:
    return ToolCall(
        name=_name(raw.get("name")),
        args=tool_args(raw.get("args")),
        call_id=id_text(raw.get("id")),
    )


def _answer(calls: list[ToolCall], response: dict[str, Any]) -> None:
    """Give a function response to the call it answers: by id, else the first open one by name."""
    call_id = id_text(response.get("id"))
    name = response.get("name")
    open_calls = [call for call in calls if call.result is None]
    match = None
    if call_id is not None:
        match = next((call for call in open_calls if call.call_id == call_id), None)
    if match is None and isinstance(name, str):
        match = next(
            (c for c in open_calls if c.name == name and (c.call_id is None or call_id is None)),
            None,
        )
    if match is not None:
        match.result = response.get("response")


def _gemini_usage(usage: dict[str, Any]) -> Usage:
    prompt = _get(usage, "prompt_token_count", "promptTokenCount")
    output = _get(usage, "candidates_token_count", "candidatesTokenCount")
    thoughts = _get(usage, "thoughts_token_count", "thoughtsTokenCount")
    # Reasoning tokens are output tokens (see `Usage.output_tokens`).
    return Usage(_count(prompt), _count(output)) + Usage(None, _count(thoughts))


# --- records -------------------------------------------------------------------------------


def _trajectory(case: _EvalCase) -> Trajectory:
    steps: list[Step] = []
    messages: list[Message] = []
    for turn, invocation in enumerate(case.invocations):
        steps.extend(_turn_steps(invocation, turn, len(steps)))
        if invocation.user is not None:
            messages.append(Message(role="user", content=invocation.user))
        if invocation.calls:
            messages.append(Message(role="assistant", tool_calls=invocation.calls))
            messages.extend(
                Message(role="tool", content=_result_text(call.result), tool_call_id=call.call_id)
                for call in invocation.calls
                if call.result is not None
            )
        if invocation.final is not None:
            messages.append(Message(role="assistant", content=invocation.final))
    total = Usage()
    for step in steps:
        total = total + step.usage
    durations = [step.duration_ms for step in steps if step.duration_ms is not None]
    return Trajectory(
        run_id=case.eval_id,
        scenario_id=case.eval_id,
        runner=case.app_name,
        model=next((inv.model for inv in case.invocations if inv.model is not None), None),
        question=_first_user(case),
        answer=_last_final(case),
        steps=steps,
        messages=messages,
        usage=total,
        duration_ms=sum(durations) if durations else None,
        source=case.source,
    )


def _turn_steps(invocation: _Invocation, turn: int, start: int) -> list[Step]:
    """One step per call of the invocation (one without calls if it made none); the last
    holds what belongs to the whole invocation: its final response, usage and duration."""
    authors = invocation.authors or [None] * len(invocation.calls)
    steps = [
        Step(index=start + k, tool_calls=[call], node=author, turn=turn)
        for k, (call, author) in enumerate(zip(invocation.calls, authors, strict=True))
    ] or [Step(index=start, turn=turn)]
    last = steps[-1]
    last.text = invocation.final
    last.usage = invocation.usage
    last.duration_ms = invocation.duration_ms
    return steps


def _case(case: _EvalCase, criterion: TrajectoryCriterion | ReadProblem) -> Case:
    metadata: dict[str, Any] = {}
    if case.eval_set_id is not None:
        metadata["eval_set_id"] = case.eval_set_id
    if len(case.invocations) > 1:
        metadata["turns"] = [
            {"user": inv.user, "expected_answer": inv.final} for inv in case.invocations
        ]
    turns = [
        [{"name": call.name, "args": call.args} for call in inv.calls] for inv in case.invocations
    ]
    found = Case(
        id=case.eval_id,
        question=_first_user(case),
        expected_answer=_last_final(case),
        expected_trajectory=[call for turn in turns for call in turn],
        expected_turns=turns,
        source=case.source,
        metadata=metadata,
    )
    if isinstance(criterion, ReadProblem):
        found.trajectory_problem = f"{criterion.source}: {criterion.reason}"
    else:
        found.trajectory_mode = criterion.match_type
        found.trajectory_args = "ignore" if criterion.ignore_args else "exact"
        found.trajectory_threshold = criterion.threshold
    return found


def _first_user(case: _EvalCase) -> str | None:
    return next((inv.user for inv in case.invocations if inv.user is not None), None)


def _last_final(case: _EvalCase) -> str | None:
    finals = [inv.final for inv in case.invocations if inv.final is not None and inv.final.strip()]
    return finals[-1] if finals else None


# --- fields --------------------------------------------------------------------------------


def _get(obj: Any, snake: str, camel: str | None = None) -> Any:
    if not isinstance(obj, dict):
        return None
    value = obj.get(snake)
    if value is None and camel is not None:
        value = obj.get(camel)
    return value


def _content_text(content: Any) -> str | None:
    """Text of a `Content` (`{"parts": [{"text"}], "role"}`), or of plain text."""
    if isinstance(content, str):
        return content
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return None
    # Thought parts (`"thought": true`) are the model's reasoning, not what it said.
    texts = [
        part["text"]
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
    ]
    return "".join(texts) if texts else None


def _name(value: Any) -> str:
    # A call without a text name is kept with name "": it was made, so counts stay true.
    return value if isinstance(value, str) else ""


def _result_text(result: Any) -> str | None:
    if result is None or isinstance(result, str):
        return result
    try:
        return orjson.dumps(result).decode("utf-8")
    except TypeError:
        return safe_text(result)


# --- registration --------------------------------------------------------------------------

NAME = "adk"
"""The reader's name (`--from adk`)."""

_FILE_NAMES = (".evalset.json", ".test.json")


def _sniff(name: str, value: Any) -> bool:
    if name.endswith(_FILE_NAMES):
        return True
    if isinstance(value, dict):
        return "eval_cases" in value or "evalCases" in value
    first = first_item(value)
    if not isinstance(first, dict):
        return False
    if "query" in first and ("reference" in first or "expected_tool_use" in first):
        return True
    if ("eval_id" in first or "evalId" in first) and "conversation" in first:
        return True
    entries = first.get("data")
    return (
        isinstance(entries, list)
        and "name" in first
        and bool(entries)
        and isinstance(entries[0], dict)
        and "query" in entries[0]
    )


register_reader(
    NAME,
    _sniff,
    lambda value, source: named(trajectories_from_adk(value, source)),
    description="Google ADK eval sets (.evalset.json, .test.json)",
)
