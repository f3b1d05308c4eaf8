"""Google ADK eval results (`*.evalset_result.json`) and ADK sessions, as runs.

**Eval results.** `adk eval` (and the web UI) saves an `EvalSetResult` in
`.adk/eval_history/<name>.evalset_result.json`: `{"eval_set_result_id", "eval_set_result_name",
"eval_set_id", "creation_timestamp", "eval_case_results": [...]}`, each case result
`{"eval_set_id", "eval_id", "final_eval_status", "overall_eval_metric_results": [{"metric_name",
"threshold", "score", "eval_status", "criterion", "details"}], "eval_metric_result_per_invocation":
[{"actual_invocation", "expected_invocation", "eval_metric_results"}], "session_id",
"session_details", "user_id"}`. A status is ADK's `EvalStatus`: 1 passed, 2 failed, 3 not
evaluated. ADK writes the file as a JSON *string* holding the JSON (`json.dumps` of
`model_dump_json()`); both that and the plain object are read (`load_evalset_result` unwraps
such a file), in snake_case or camelCase.

Each case result is one run: `scenario_id` and `run_id` the `eval_id` (`<eval_id>#<k>` and
`repeat` k when a case was run several times); the steps, tool calls, results, `question` and
`answer` from the *actual* invocations in order, each a turn, read as `assay.formats.adk` reads
the invocations of an eval set; `runner` the session's `app_name`; `source_verdicts` what ADK
decided: `{"final_eval_status": "PASSED" | "FAILED" | "NOT_EVALUATED", "metrics":
{metric_name: {"score", "threshold", "eval_status"}}, "per_invocation": [...]}`. The
*expected* invocations form an ADK eval set (`expected_eval_set`), whose cases
(`cases_from_adk_results`) score the runs as ADK did.

**Sessions.** An ADK `Session` as JSON (`{"id", "app_name", "user_id", "state", "events":
[{"id", "invocation_id", "author", "content": {"role", "parts"}, "actions", "timestamp",
"usage_metadata", ...}], "last_update_time"}`), or a list of them, is one run per session:
events in order; a `user` event starts a turn (`question` the first user text); an agent's
event is a step (its `function_call` parts the step's tool calls, its text the step's text,
its author `Step.node` when more than one agent speaks); `function_response` parts are the
results of the calls they answer (by id, else by name); `answer` the last agent text.

Parts of kinds not read (`inline_data`, `file_data`, `executable_code`, thoughts, ...) are
said in `run.notes`, never dropped in silence. A file of neither shape, or a part of one that
cannot be read, is a problem naming the format and what is wrong.

Example:
    >>> result = {"eval_set_result_id": "r1", "eval_set_id": "pumps", "eval_case_results": [
    ...     {"eval_id": "down", "final_eval_status": 1, "session_id": "s1",
    ...      "overall_eval_metric_results": [{"metric_name": "tool_trajectory_avg_score",
    ...                                       "threshold": 1.0, "score": 1.0, "eval_status": 1}],
    ...      "eval_metric_result_per_invocation": [{
    ...          "actual_invocation": {"user_content": {"parts": [{"text": "Which pumps?"}]},
    ...              "final_response": {"parts": [{"text": "P-3"}]},
    ...              "intermediate_data": {"tool_uses": [{"name": "down", "args": {}}]}},
    ...          "expected_invocation": {"user_content": {"parts": [{"text": "Which pumps?"}]},
    ...              "intermediate_data": {"tool_uses": [{"name": "down", "args": {}}]}}}]}]}
    >>> (run,) = trajectories_from_adk_results(result, "r1.evalset_result.json")
    >>> run.scenario_id, run.question, run.tool_names(), run.answer
    ('down', 'Which pumps?', ['down'], 'P-3')
    >>> run.source_verdicts["final_eval_status"]
    'PASSED'
    >>> run.source_verdicts["metrics"]["tool_trajectory_avg_score"]
    {'score': 1.0, 'threshold': 1.0, 'eval_status': 'PASSED'}
    >>> session = {"id": "s1", "app_name": "ops", "user_id": "u", "events": [
    ...     {"author": "user", "content": {"role": "user", "parts": [{"text": "Hi"}]}},
    ...     {"author": "ops", "content": {"role": "model", "parts": [{"text": "Hello"},
    ...                                   {"inline_data": {"mime_type": "image/png"}}]}}]}
    >>> (run,) = trajectories_from_adk_session(session, "s1.json")
    >>> run.run_id, run.question, run.answer, run.notes
    ('s1', 'Hi', 'Hello', ["not read: a part of kind 'inline_data' (x1)"])
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from assay._jsonable import json_type
from assay.formats._adk_criteria import METRIC, TrajectoryCriterion, trajectory_criterion
from assay.formats._common import ReadProblem, describe, first_item, id_text, load_json, parse_json
from assay.formats.adk import (
    _answer,
    _call,
    _content_text,
    _EvalCase,
    _gemini_usage,
    _get,
    _invocation,
    _result_text,
    _trajectory,
    cases_from_adk,
)
from assay.formats.registry import register_reader
from assay.records import Case, Message, Step, ToolCall, Trajectory, Usage

__all__ = [
    "cases_from_adk_results",
    "expected_eval_set",
    "load_evalset_result",
    "trajectories_from_adk_results",
    "trajectories_from_adk_session",
]

RESULTS = "an ADK eval set result"
"""How problems name the eval results format."""
SESSION = "an ADK session"
"""How problems name the session format."""

STATUSES = {1: "PASSED", 2: "FAILED", 3: "NOT_EVALUATED"}
"""ADK's `EvalStatus`, by number."""

_SUFFIX = ".evalset_result.json"

# --- eval results --------------------------------------------------------------------------


def load_evalset_result(path: str | Path) -> tuple[Any, ReadProblem | None]:
    """The JSON of an `.evalset_result.json` file, unwrapped when ADK wrote it as a string.

    Example:
        >>> import json, tempfile
        >>> path = Path(tempfile.mkdtemp()) / "r.evalset_result.json"
        >>> _ = path.write_text(json.dumps(json.dumps({"eval_case_results": []})))
        >>> load_evalset_result(path)
        ({'eval_case_results': []}, None)
    """
    value, problem = load_json(path)
    if problem is not None or not isinstance(value, str):
        return value, problem
    inner, reason = _unwrap(value)
    if reason is not None:
        return None, ReadProblem(str(path), f"{RESULTS}: {reason}")
    return inner, None


def _unwrap(text: str) -> tuple[Any, str | None]:
    """The JSON inside a JSON string (ADK's way of writing eval results)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None, "a JSON string that is not UTF-8 text"
    value, reason = parse_json(data)
    if reason is not None:
        return None, f"a JSON string whose text is not JSON ({reason})"
    return value, None


def trajectories_from_adk_results(data: Any, source: str) -> list[Trajectory | ReadProblem]:
    """Each eval case result of an ADK `EvalSetResult` as a run (see the module notes).

    Never raises: a value that is no eval set result, or a case result without an id or
    without actual invocations, is a `ReadProblem`.

    Args:
        data: The parsed JSON of an `.evalset_result.json` file (or the JSON string in it).
        source: Where it was read from; case results are `source#INDEX`.

    Returns:
        A run per usable case result and a problem per unusable one, in file order.

    Example:
        >>> trajectories_from_adk_results({"eval_case_results": [{}]}, "r.json")[0].reason
        'an ADK eval set result: eval case result without an eval_id'
    """
    results = _case_results(data, source)
    if isinstance(results, ReadProblem):
        return [results]
    runs: list[Trajectory | ReadProblem] = []
    seen: Counter[str] = Counter()
    ids = Counter(_case_id(raw) for raw, _ in results)
    for raw, case_source in results:
        run = _case_run(raw, case_source)
        if isinstance(run, Trajectory) and run.scenario_id is not None and ids[run.scenario_id] > 1:
            seen[run.scenario_id] += 1
            run.repeat = seen[run.scenario_id]
            run.run_id = f"{run.scenario_id}#{run.repeat}"
        runs.append(run)
    return runs


def expected_eval_set(data: Any, source: str) -> dict[str, Any] | ReadProblem:
    """The ground truth of an eval set result: an ADK eval set of its expected invocations.

    One eval case per `eval_id` (a case run several times is one case), its `conversation`
    the expected invocations in order, as ADK compared them; `assay.formats.adk` reads it.

    Example:
        >>> result = {"eval_set_id": "s", "eval_case_results": [{"eval_id": "a",
        ...     "eval_metric_result_per_invocation": [{"actual_invocation": {},
        ...         "expected_invocation": {"user_content": {"parts": [{"text": "Hi"}]}}}]}]}
        >>> expected_eval_set(result, "r.json")["eval_cases"]
        [{'eval_id': 'a', 'conversation': [{'user_content': {'parts': [{'text': 'Hi'}]}}]}]
    """
    results = _case_results(data, source)
    if isinstance(results, ReadProblem):
        return results
    cases: dict[str, dict[str, Any]] = {}
    for raw, _ in results:
        eval_id = _case_id(raw)
        if eval_id is None or eval_id in cases:
            continue
        cases[eval_id] = {"eval_id": eval_id, "conversation": _expected(raw)}
    set_id = id_text(_get(data if isinstance(data, dict) else None, "eval_set_id", "evalSetId"))
    return {"eval_set_id": set_id, "eval_cases": list(cases.values())}


def cases_from_adk_results(data: Any, source: str) -> list[Case | ReadProblem]:
    """The cases of `expected_eval_set`, each with the tool trajectory criterion ADK applied.

    The criterion is the one the case result records for `tool_trajectory_avg_score`: its
    threshold, and its match type when the result keeps the criterion (newer ADK versions);
    else ADK's default (`EXACT`, threshold 1.0).

    Example:
        >>> result = {"eval_case_results": [{"eval_id": "a",
        ...     "overall_eval_metric_results": [{"metric_name": "tool_trajectory_avg_score",
        ...                                      "threshold": 0.5, "eval_status": 1}],
        ...     "eval_metric_result_per_invocation": [{"actual_invocation": {},
        ...         "expected_invocation": {"user_content": {"parts": [{"text": "Hi"}]}}}]}]}
        >>> case = cases_from_adk_results(result, "r.json")[0]
        >>> case.id, case.trajectory_mode, case.trajectory_threshold
        ('a', 'EXACT', 0.5)
    """
    results = _case_results(data, source)
    if isinstance(results, ReadProblem):
        return [results]
    set_id = id_text(_get(data if isinstance(data, dict) else None, "eval_set_id", "evalSetId"))
    found: list[Case | ReadProblem] = []
    done: set[str] = set()
    for raw, case_source in results:
        eval_id = _case_id(raw)
        if eval_id is None:
            reason = f"{RESULTS}: eval case result without an eval_id"
            found.append(ReadProblem(case_source, reason))
            continue
        if eval_id in done:
            continue  # a repeat of a case already read
        done.add(eval_id)
        conversation = _expected(raw)
        if not conversation:
            reason = f"{RESULTS}: eval case result {eval_id!r} records no expected invocations"
            found.append(ReadProblem(case_source, reason))
            continue
        single = {"eval_set_id": set_id,
                  "eval_cases": [{"eval_id": eval_id, "conversation": conversation}]}  # fmt: skip
        found.extend(cases_from_adk(single, case_source, _criterion(raw, case_source)))
    return found


def _expected(raw: dict[str, Any]) -> list[dict[str, Any]]:
    entries = _get(raw, "eval_metric_result_per_invocation", "evalMetricResultPerInvocation")
    if not isinstance(entries, list):
        return []
    expected = [_get(entry, "expected_invocation", "expectedInvocation") for entry in entries]
    return [invocation for invocation in expected if isinstance(invocation, dict)]


def _criterion(raw: dict[str, Any], source: str) -> TrajectoryCriterion | ReadProblem:
    for metric in _overall_metrics(raw):
        if _get(metric, "metric_name", "metricName") != METRIC:
            continue
        criterion = metric.get("criterion")
        if not isinstance(criterion, dict):
            criterion = metric.get("threshold", 1.0)
        elif "threshold" not in criterion and "threshold" in metric:
            criterion = {**criterion, "threshold": metric["threshold"]}
        return trajectory_criterion({"criteria": {METRIC: criterion}}, source)
    return TrajectoryCriterion()


def _case_results(data: Any, source: str) -> list[tuple[dict[str, Any], str]] | ReadProblem:
    """The case result objects of an eval set result, with their sources (or a problem)."""
    if isinstance(data, str):
        data, reason = _unwrap(data)
        if reason is not None:
            return ReadProblem(source, f"{RESULTS}: {reason}")
    if isinstance(data, dict) and _is_case_result(data):
        return [(data, source)]  # one case result alone
    results = _get(data, "eval_case_results", "evalCaseResults")
    if not isinstance(results, list):
        if isinstance(data, list) and isinstance(first_item(data), dict):
            results = data  # a list of case results
        else:
            return ReadProblem(
                source, f"not {RESULTS}: no eval_case_results list in {describe(data)}"
            )
    found: list[tuple[dict[str, Any], str]] = []
    for index, raw in enumerate(results):
        if not isinstance(raw, dict):
            return ReadProblem(
                f"{source}#{index}",
                f"{RESULTS}: expected an eval case result object, got {json_type(raw)}",
            )
        found.append((raw, f"{source}#{index}"))
    if not found:
        return ReadProblem(source, f"{RESULTS} without eval case results")
    return found


def _is_case_result(value: dict[str, Any]) -> bool:
    return ("eval_id" in value or "evalId" in value) and (
        "eval_metric_result_per_invocation" in value
        or "evalMetricResultPerInvocation" in value
        or "final_eval_status" in value
        or "finalEvalStatus" in value
    )


def _case_id(raw: dict[str, Any]) -> str | None:
    return id_text(_get(raw, "eval_id", "evalId"))


def _case_run(raw: dict[str, Any], source: str) -> Trajectory | ReadProblem:
    eval_id = _case_id(raw)
    if eval_id is None:
        return ReadProblem(source, f"{RESULTS}: eval case result without an eval_id")
    verdicts = _verdicts(raw)
    entries = _get(raw, "eval_metric_result_per_invocation", "evalMetricResultPerInvocation")
    if not isinstance(entries, list):
        return ReadProblem(
            source,
            f"{RESULTS}: eval case result {eval_id!r} has no eval_metric_result_per_invocation "
            f"list (final_eval_status {verdicts['final_eval_status']})",
        )
    if not entries:
        return ReadProblem(
            source,
            f"{RESULTS}: eval case result {eval_id!r} records no invocations "
            f"(final_eval_status {verdicts['final_eval_status']})",
        )
    actual: list[dict[str, Any]] = []
    per_invocation: list[dict[str, Any]] = []
    for number, entry in enumerate(entries, 1):
        invocation = _get(entry, "actual_invocation", "actualInvocation")
        if not isinstance(invocation, dict):
            return ReadProblem(
                source,
                f"{RESULTS}: eval case result {eval_id!r}: invocation {number} has no "
                "actual_invocation object",
            )
        actual.append(invocation)
        per_invocation.append(_metrics(_get(entry, "eval_metric_results", "evalMetricResults")))
    if any(per_invocation):
        verdicts["per_invocation"] = per_invocation
    session = _get(raw, "session_details", "sessionDetails")
    app_name = _get(session, "app_name", "appName")
    case = _EvalCase(
        eval_id,
        source,
        [_invocation(invocation) for invocation in actual],
        eval_set_id=id_text(_get(raw, "eval_set_id", "evalSetId")),
        app_name=app_name if isinstance(app_name, str) else None,
    )
    run = _trajectory(case)
    run.source_verdicts = verdicts
    unread: Counter[str] = Counter()
    for invocation in actual:
        _unread_in_invocation(invocation, unread)
    run.notes = _notes(unread)
    return run


def _verdicts(raw: dict[str, Any]) -> dict[str, Any]:
    metrics = {}
    for metric in _overall_metrics(raw):
        name = _get(metric, "metric_name", "metricName")
        if isinstance(name, str):
            metrics[name] = _metric(metric)
    return {
        "final_eval_status": _status(_get(raw, "final_eval_status", "finalEvalStatus")),
        "metrics": metrics,
    }


def _overall_metrics(raw: dict[str, Any]) -> list[dict[str, Any]]:
    overall = _get(raw, "overall_eval_metric_results", "overallEvalMetricResults")
    if not isinstance(overall, list):
        # The deprecated field: a list of (EvalMetric, EvalMetricResult) pairs.
        pairs = _get(raw, "eval_metric_results", "evalMetricResults")
        overall = [
            pair[-1] for pair in pairs if isinstance(pair, list) and pair
        ] if isinstance(pairs, list) else []
    return [metric for metric in overall if isinstance(metric, dict)]


def _metrics(results: Any) -> dict[str, Any]:
    if not isinstance(results, list):
        return {}
    return {
        name: _metric(metric)
        for metric in results
        if isinstance(metric, dict)
        and isinstance(name := _get(metric, "metric_name", "metricName"), str)
    }


def _metric(metric: dict[str, Any]) -> dict[str, Any]:
    return {
        "score": _number(metric.get("score")),
        "threshold": _number(metric.get("threshold")),
        "eval_status": _status(_get(metric, "eval_status", "evalStatus")),
    }


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _status(value: Any) -> Any:
    """ADK's status name for its number (or its name, in any case); other values as written."""
    if isinstance(value, int) and not isinstance(value, bool):
        return STATUSES.get(value, value)
    if isinstance(value, str):
        name = value.rpartition(".")[2].upper()
        if name in STATUSES.values():
            return name
    return value


# --- parts not read ------------------------------------------------------------------------

_KINDS = (
    ("text", "text"),
    ("function_call", "functionCall"),
    ("function_response", "functionResponse"),
    ("inline_data", "inlineData"),
    ("file_data", "fileData"),
    ("executable_code", "executableCode"),
    ("code_execution_result", "codeExecutionResult"),
)
_METADATA = frozenset(
    {"thought", "thought_signature", "thoughtSignature", "video_metadata", "videoMetadata",
     "part_metadata", "partMetadata", "media_resolution", "mediaResolution"}
)  # fmt: skip
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _part_kind(part: dict[str, Any]) -> str | None:
    """What a content part holds (`thought` for a thought's text); None for an empty part."""
    for snake, camel in _KINDS:
        value = _get(part, snake, camel)
        if value is None:
            continue
        if not isinstance(value, str if snake == "text" else dict):
            return f"{snake} (not {'text' if snake == 'text' else 'an object'})"
        return "thought" if snake == "text" and part.get("thought") else snake
    for key, value in part.items():
        if value is not None and key not in _METADATA:
            return _CAMEL.sub("_", str(key)).lower()
    return None


def _unread_parts(content: Any, read: frozenset[str], unread: Counter[str]) -> None:
    parts = content.get("parts") if isinstance(content, dict) else None
    for part in parts if isinstance(parts, list) else ():
        kind = _part_kind(part) if isinstance(part, dict) else None
        if kind is not None and kind not in read:
            unread[kind] += 1


_TEXT = frozenset({"text"})
_CALLS = frozenset({"function_call", "function_response"})


def _unread_in_invocation(invocation: dict[str, Any], unread: Counter[str]) -> None:
    _unread_parts(_get(invocation, "user_content", "userContent"), _TEXT, unread)
    _unread_parts(_get(invocation, "final_response", "finalResponse"), _TEXT, unread)
    intermediate = _get(invocation, "intermediate_data", "intermediateData")
    events = _get(intermediate, "invocation_events", "invocationEvents")
    for event in events if isinstance(events, list) else ():
        _unread_parts(_get(event, "content"), _CALLS, unread)
    responses = _get(intermediate, "intermediate_responses", "intermediateResponses")
    for response in responses if isinstance(responses, list) else ():
        if isinstance(response, list) and len(response) == 2:
            _unread_parts({"parts": response[1]}, frozenset(), unread)


def _notes(unread: Counter[str]) -> list[str]:
    return [f"not read: a part of kind {kind!r} (x{n})" for kind, n in sorted(unread.items())]


# --- sessions ------------------------------------------------------------------------------


def trajectories_from_adk_session(data: Any, source: str) -> list[Trajectory | ReadProblem]:
    """Each ADK session (one, or a list of them) as a run (see the module notes).

    Never raises: a value that is no session, or a session without an events list, is a
    `ReadProblem`.

    Example:
        >>> trajectories_from_adk_session({"id": "s", "events": 3}, "s.json")[0].reason
        "an ADK session: session 's' has no events list (got number)"
    """
    if isinstance(data, dict):
        return [_session_run(data, source)]
    if isinstance(data, list) and data:
        return [_session_run(item, f"{source}#{i}") for i, item in enumerate(data)]
    return [ReadProblem(source, f"not {SESSION}: {describe(data)}")]


def _session_run(session: Any, source: str) -> Trajectory | ReadProblem:
    if not isinstance(session, dict):
        return ReadProblem(
            source, f"{SESSION}: expected a session object, got {json_type(session)}"
        )
    session_id = id_text(session.get("id"))
    events = session.get("events")
    if not isinstance(events, list):
        name = f"session {session_id!r}" if session_id is not None else "session"
        return ReadProblem(
            source, f"{SESSION}: {name} has no events list (got {json_type(events)})"
        )
    app_name = _get(session, "app_name", "appName")
    run = Trajectory(
        run_id=session_id,
        runner=app_name if isinstance(app_name, str) else None,
        source=source,
    )
    _read_session_events([event for event in events if isinstance(event, dict)], run)
    skipped = sum(1 for event in events if not isinstance(event, dict))
    if skipped:
        run.notes.append(f"not read: an event that is not an object (x{skipped})")
    return run


def _read_session_events(events: list[dict[str, Any]], run: Trajectory) -> None:
    agents = {
        author for event in events if isinstance(author := event.get("author"), str)
    } - {"user"}
    calls: list[ToolCall] = []
    unread: Counter[str] = Counter()
    turn = -1
    turn_has_step = True
    times: list[float] = []
    ended_in: str | None = None  # the error of the agent's last event, if it had one
    for event in events:
        author = event.get("author")
        content = event.get("content")
        raw_parts = content.get("parts") if isinstance(content, dict) else None
        parts = [p for p in raw_parts if isinstance(p, dict)] if isinstance(raw_parts, list) else []
        stamp = _number(event.get("timestamp"))
        if stamp is not None:
            times.append(stamp)
        error = _get(event, "error_message", "errorMessage")
        if error is None:
            error = _get(event, "error_code", "errorCode")
        if error is not None:
            run.notes.append(f"an event records an error: {_short(error)}")
        if author != "user":
            ended_in = None if error is None else _short(error)
        for part in parts:
            kind = _part_kind(part)
            if kind == "function_response":
                response = _get(part, "function_response", "functionResponse")
                if isinstance(response, dict):
                    _answer(calls, response)
                    result = response.get("response")
                    answer_id = id_text(response.get("id"))
                    content_text = _result_text(result)
                    run.messages.append(
                        Message(role="tool", content=content_text, tool_call_id=answer_id)
                    )
            elif kind not in (None, "text", "function_call"):
                unread[kind] += 1
        text = _content_text(content)
        if author == "user":
            if not turn_has_step:
                run.steps.append(Step(index=len(run.steps), turn=turn))
            turn += 1
            turn_has_step = False
            if text is not None:
                run.messages.append(Message(role="user", content=text))
                if run.question is None:
                    run.question = text
            continue
        new_calls = [
            _call(call)
            for part in parts
            if isinstance(call := _get(part, "function_call", "functionCall"), dict)
        ]
        calls.extend(new_calls)
        usage = _get(event, "usage_metadata", "usageMetadata")
        model = _get(event, "model_version", "modelVersion")
        if run.model is None and isinstance(model, str) and model:
            run.model = model
        if not new_calls and text is None:
            continue
        step = Step(
            index=len(run.steps),
            text=text,
            tool_calls=new_calls,
            usage=_gemini_usage(usage) if isinstance(usage, dict) else Usage(),
            node=author if isinstance(author, str) and len(agents) > 1 else None,
            turn=max(turn, 0),
        )
        run.steps.append(step)
        turn_has_step = True
        run.usage = run.usage + step.usage
        if new_calls:
            run.messages.append(Message(role="assistant", content=text, tool_calls=new_calls))
        else:
            run.messages.append(Message(role="assistant", content=text))
        if text is not None and text.strip():
            run.answer = text
    if not turn_has_step:
        run.steps.append(Step(index=len(run.steps), turn=turn))
    if len(times) > 1:
        run.duration_ms = (max(times) - min(times)) * 1000.0
    run.notes[:0] = _notes(unread)
    if ended_in is not None:  # the agent's last word was an error: the run failed
        run.error = f"ADK session ended in an error: {ended_in}"
        run.error_kind = "agent_error"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json_type(value)
    return text if len(text) <= 200 else text[:197] + "..."


# --- registration --------------------------------------------------------------------------


def _sniff_results(name: str, value: Any) -> bool:
    if name.endswith(_SUFFIX):
        return isinstance(value, dict | str | list)
    return isinstance(value, dict) and (
        "eval_case_results" in value
        or "evalCaseResults" in value
        or ("eval_set_result_id" in value or "evalSetResultId" in value)
    )


def _is_session(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("events"), list)
        and "id" in value
        and ("app_name" in value or "appName" in value)
        and ("user_id" in value or "userId" in value)
    )


def _sniff_session(name: str, value: Any) -> bool:
    return _is_session(value) or (isinstance(value, list) and _is_session(first_item(value)))


register_reader(
    "adk-results",
    _sniff_results,
    trajectories_from_adk_results,
    description="Google ADK eval results (.evalset_result.json), with ADK's verdicts",
)
register_reader(
    "adk-session",
    _sniff_session,
    trajectories_from_adk_session,
    description="Google ADK sessions (Session JSON: events of users and agents)",
)
