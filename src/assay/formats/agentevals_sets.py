"""agentevals eval sets: ADK-like eval sets whose cases are named by `case_id`, as cases.

agentevals (github.com/agentevals-dev/agentevals) scores agent traces against eval sets in
Google ADK's `EvalSet` shape (`assay.formats.adk`), and the example eval sets it ships
(`examples/*/eval_set.json`) write that shape with three differences:

    {"eval_set_id", "eval_cases": [{"case_id", "conversation": [
        {"invocation_id", "user_content": {"role": "user", "parts": [{"text"}]},
         "agent_content": {"role": "model", "parts": [{"text"} | {"function_call"}]},
         "intermediate_data": {"role": "model", "parts": [{"function_call": {"name", "args"}}]}
        }, ...]}]}

- a case is named by `case_id` rather than `eval_id`;
- the expected reply of a turn is `agent_content` (ADK's `final_response`, also read);
- `intermediate_data` may be a `Content` (`role` and `parts` holding `function_call` and
  `function_response` parts) rather than ADK's `{"tool_uses", "tool_responses"}` (also read).
  Without `intermediate_data`, the `function_call` parts of `agent_content` are the calls.

Each case is rewritten in ADK's shape and read by `assay.formats.adk.cases_from_adk`, so a
case carries what an ADK case does: `question` (the first user text), `expected_turns` (the
calls of each invocation, `{"name", "args"}`), `expected_trajectory` (all of them in order),
ADK's default tool trajectory criterion (`EXACT`, threshold 1.0) and
`metadata["eval_set_id"]`. A multi-turn case also has `Case.turns` (the user text and the
expected reply of each invocation) and, as `Case.turns` asks, the last turn's expected reply
as `expected_answer` (None when the last invocation only calls tools). Rubrics, session input,
invocation ids and tool responses are not kept.

As everywhere at the edge, nothing raises: an unusable case is a `ReadProblem` naming the
format, and the other cases are still read.

Example:
    >>> evalset = {"eval_set_id": "dice", "eval_cases": [{"case_id": "roll", "conversation": [
    ...     {"user_content": {"role": "user", "parts": [{"text": "Roll a d20"}]},
    ...      "agent_content": {"role": "model", "parts": [{"text": "I rolled 17."}]},
    ...      "intermediate_data": {"role": "model", "parts": [
    ...          {"function_call": {"name": "roll_die", "args": {"sides": 20}}}]}}]}]}
    >>> looks_like_agentevals(evalset)
    True
    >>> case = cases_from_agentevals(evalset, "eval_set.json")[0]
    >>> case.id, case.question, case.expected_answer, case.expected_turns
    ('roll', 'Roll a d20', 'I rolled 17.', [[{'name': 'roll_die', 'args': {'sides': 20}}]])
"""

from __future__ import annotations

from typing import Any

from assay._jsonable import json_type
from assay.formats._common import ReadProblem, id_text
from assay.formats.adk import cases_from_adk
from assay.records import Case, CaseTurn

__all__ = ["FORMAT", "cases_from_agentevals", "looks_like_agentevals"]

FORMAT = "agentevals eval set"
"""How problems name the format."""

_CASES = "eval_cases"
_ID = "case_id"


def looks_like_agentevals(value: Any) -> bool:
    """Whether parsed JSON is an agentevals eval set: an object with an `eval_cases` list of
    which a case is named by `case_id` (ADK names its cases `eval_id`).

    Example:
        >>> looks_like_agentevals({"eval_cases": [{"case_id": "a", "conversation": []}]})
        True
        >>> looks_like_agentevals({"eval_cases": [{"eval_id": "a", "conversation": []}]})
        False
    """
    if not isinstance(value, dict):
        return False
    cases = value.get(_CASES)
    return isinstance(cases, list) and any(isinstance(case, dict) and _ID in case for case in cases)


def cases_from_agentevals(value: Any, source: str) -> list[Case | ReadProblem]:
    """Each case of an agentevals eval set as ground truth (see the module docstring).

    Args:
        value: The parsed JSON of the eval set file.
        source: Where it was read from (the file path); a case's source is `source#<index>`.

    Returns:
        A `Case` per usable case and a `ReadProblem` per unusable one, in file order.

    Example:
        >>> [p.reason for p in cases_from_agentevals({"eval_cases": [{"conversation": []}]}, "s")]
        ['agentevals eval set: case without a case_id']
    """
    if not isinstance(value, dict):
        return [ReadProblem(source, f"not an {FORMAT}: got {json_type(value)}")]
    cases = value.get(_CASES)
    if not isinstance(cases, list):
        return [ReadProblem(source, f"not an {FORMAT}: no {_CASES} list")]
    if not cases:
        return [ReadProblem(source, f"{FORMAT} without cases ({_CASES} is empty)")]
    problems: dict[int, ReadProblem] = {}
    rewritten: list[Any] = []
    for index, case in enumerate(cases):
        adk_case = _adk_case(case)
        if isinstance(adk_case, str):
            problems[index] = ReadProblem(f"{source}#{index}", f"{FORMAT}: {adk_case}")
        rewritten.append(adk_case)
    read = cases_from_adk({"eval_set_id": value.get("eval_set_id"), _CASES: rewritten}, source)
    found: list[Case | ReadProblem] = []
    for index, item in enumerate(read):
        if index in problems:
            found.append(problems[index])
        elif isinstance(item, ReadProblem):
            found.append(ReadProblem(item.source, f"{FORMAT}: {item.reason}"))
        else:
            found.append(_with_turns(item))
    return found


def _adk_case(case: Any) -> dict[str, Any] | str:
    """The case in ADK's shape, or why it cannot be read."""
    if not isinstance(case, dict):
        return f"expected a case object, got {json_type(case)}"
    case_id = id_text(case.get(_ID))
    if case_id is None:
        return f"case without a {_ID}"
    conversation = case.get("conversation")
    if conversation is None:
        return f"case {case_id!r} has no conversation"
    if not isinstance(conversation, list):
        return (
            f"case {case_id!r}: conversation must be a list of invocations, "
            f"got {json_type(conversation)}"
        )
    return {"eval_id": case[_ID], "conversation": [_adk_invocation(i) for i in conversation]}


def _adk_invocation(invocation: Any) -> Any:
    if not isinstance(invocation, dict):
        return invocation  # dropped by the ADK reader, as there
    adk = dict(invocation)
    reply = invocation.get("agent_content")
    if adk.get("final_response") is None and reply is not None:
        adk["final_response"] = reply
    intermediate = invocation.get("intermediate_data")
    if isinstance(intermediate, dict) and "parts" in intermediate:
        # A `Content`: its parts are read as those of one ADK invocation event.
        adk["intermediate_data"] = {"invocation_events": [{"content": intermediate}]}
    elif intermediate is None and isinstance(reply, dict):
        adk["intermediate_data"] = {"invocation_events": [{"content": reply}]}
    return adk


def _with_turns(case: Case) -> Case:
    """A multi-turn case with its turns (the ADK reader lists them in `metadata["turns"]`);
    its expected answer is then the last turn's."""
    turns = case.metadata.get("turns")
    if not isinstance(turns, list) or not turns:
        return case
    case.turns = [CaseTurn(turn["user"], turn["expected_answer"]) for turn in turns]
    case.expected_answer = case.turns[-1].expected_answer
    return case
