"""What the catalog scorers read from runs and scenarios, read one way for all of them.

Runs arrive in many shapes: tool calls on steps or only on chat messages, results as mappings,
as JSON text or as plain text, messages whose content is None. These helpers turn that into
the few views the scorers need, never raising on any of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from assay.records import Case, Message, Step, Trajectory
from assay.results import NOT_APPLICABLE, Score

_MAX_JSON_TEXT = 1_000_000  # results given as JSON text longer than this are not parsed


@dataclass(frozen=True, slots=True)
class CallRef:
    """One tool call of a run, with where it was made and what it returned."""

    name: str
    """Tool name ("" when the run recorded none)."""

    args: dict[str, Any] | None
    """Arguments as a mapping (JSON text parsed), None when they are not one."""

    result: Any
    """The result as recorded (for message-only runs, the answering tool message's content)."""

    turn: int
    """Position of the turn that made the call (the step's position among the run's steps, or
    the message's among its messages): increasing, and equal for calls made together."""

    where: str
    """`step N` or `message N`, for rationales."""


def tool_calls(run: Trajectory) -> list[CallRef]:
    """Every tool call of the run in order: from its steps, else from its chat messages."""
    calls: list[CallRef] = []
    for position, step in enumerate(run.steps):
        label = f"step {step.index if isinstance(step.index, int) else position}"
        for call in step.tool_calls:
            calls.append(_ref(call.name, call.args, call.result, position, label))
    if calls:
        return calls
    results = {
        message.tool_call_id: message.content
        for message in run.messages
        if message.role == "tool" and isinstance(message.tool_call_id, str)
    }
    for position, message in enumerate(run.messages):
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            result = call.result
            if result is None and isinstance(call.call_id, str):
                result = results.get(call.call_id)
            calls.append(_ref(call.name, call.args, result, position, f"message {position}"))
    return calls


def _ref(name: Any, args: Any, result: Any, turn: int, where: str) -> CallRef:
    return CallRef(name if isinstance(name, str) else "", as_mapping(args), result, turn, where)


def as_mapping(value: Any) -> dict[str, Any] | None:
    """`value` as a mapping: itself, or parsed when it is JSON text of an object; else None."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and len(value) <= _MAX_JSON_TEXT:
        text = value.strip()
        if text.startswith("{"):
            try:
                parsed = orjson.loads(text)
            except orjson.JSONDecodeError:
                return None
            if isinstance(parsed, dict):
                return parsed
    return None


def status_of(result: Any) -> str | None:
    """The `status` of a tool result, in lower case, or None when it has none."""
    mapping = as_mapping(result)
    status = mapping.get("status") if mapping is not None else None
    return status.strip().lower() if isinstance(status, str) else None


def final_text(run: Trajectory) -> tuple[str | None, str]:
    """The run's final response and where it came from.

    The answer when it is text; else the last assistant message with text content (messages
    that carried only tool calls have none); else, for runs without messages, the last step
    with text. `(None, "")` when there is none.
    """
    if isinstance(run.answer, str):
        return run.answer, "answer"
    for position in range(len(run.messages) - 1, -1, -1):
        message = run.messages[position]
        if message.role == "assistant" and isinstance(message.content, str):
            return message.content, f"message {position}"
    if not run.messages:
        for step in reversed(run.steps):
            if isinstance(step.text, str):
                return step.text, f"step {step.index}"
    return None, ""


def turn_answers(run: Trajectory, turns: int) -> tuple[list[str | None] | None, str]:
    """The run's answer to each of `turns` turns from its conversation, or None and why there
    are none.

    The answer to a turn is the last assistant text before the next user message; the user
    messages must be exactly one per turn, or the answers cannot be told apart.

    Example:
        >>> run = Trajectory(messages=[Message("user", "hi"), Message("assistant", "Hello"),
        ...                            Message("user", "bye"), Message("assistant", None)])
        >>> turn_answers(run, 2)
        (['Hello', None], '')
    """
    answers: list[str | None] = []
    for message in run.messages:
        if message.role == "user":
            answers.append(None)
        elif message.role == "assistant" and message.content and answers:
            answers[-1] = message.content
    if not answers:
        return None, "the run records no answer per turn"
    if len(answers) != turns:
        return None, (
            f"the run's {len(answers)} user message(s) do not line up with the {turns} turns"
        )
    return answers, ""


def turn_replies(run: Trajectory, turns: int) -> tuple[list[str | None] | None, str]:
    """The agent's reply to each of `turns` turns, and where the replies were read from
    (`messages` or `steps`); `(None, why)` when the run records no reply per turn.

    The conversation is read as `turn_answers` reads it. A run whose conversation does not
    give the turns (none kept, as in `runs.jsonl`, or user messages that do not line up) is
    read from its steps: the reply to turn `t` is the text of the last step with text whose
    `turn` is `t`, and a turn with no such step has no reply (None).

    Example:
        >>> run = Trajectory(steps=[Step(0, text="Hi", turn=0), Step(1, turn=1),
        ...                         Step(2, text="Sure", turn=1)])
        >>> turn_replies(run, 3)
        (['Hi', 'Sure', None], 'steps')
    """
    why = "the run records neither a conversation nor steps with a turn index"
    if run.messages:
        answers, why = turn_answers(run, turns)
        if answers is not None:
            return answers, "messages"
    if not any(isinstance(step.turn, int) for step in run.steps):
        return None, why
    replies: list[str | None] = [None] * turns
    for step in run.steps:
        turn = step.turn
        if isinstance(turn, int) and 0 <= turn < turns and step.text:
            replies[turn] = step.text
    return replies, "steps"


def assistant_turns(run: Trajectory) -> tuple[int, str] | None:
    """How many turns the agent took, and what was counted; None when the run records none.

    Turns are steps; a run with no steps counts its assistant messages.
    """
    if run.steps:
        return len(run.steps), "steps"
    messages = _assistant_messages(run.messages)
    if messages:
        return len(messages), "assistant messages"
    return None


def _assistant_messages(messages: Sequence[Message]) -> list[Message]:
    return [message for message in messages if message.role == "assistant"]


def subagent_steps(run: Trajectory, node: str) -> list[Step]:
    """The steps of the run taken by `node` (compared ignoring case)."""
    wanted = node.casefold()
    return [s for s in run.steps if isinstance(s.node, str) and s.node.casefold() == wanted]


# --- scenario expectations -----------------------------------------------------------------


def criterion(case: Case, key: str) -> tuple[Any, str | None]:
    """One of the case's success criteria (`SuccessCriteria` field `key`), and the problem
    that made it unusable when the scenario was read: `(value or None, problem or None)`.

    Example:
        >>> from assay.records import SuccessCriteria
        >>> criterion(Case(id="s", success_criteria=SuccessCriteria(max_turns=3)), "max_turns")
        (3, None)
    """
    problem = case.problem(f"success_criteria.{key}")
    if problem is not None:
        return None, problem
    criteria = case.success_criteria
    return (getattr(criteria, key) if criteria is not None else None), None


def criterion_or_option(
    case: Case, scorer: str, key: str, option: Any, missing: str
) -> tuple[Any, str] | Score:
    """`(value, "scenario" or "option")` for a success criterion the scenario may set and the
    scorer's option may default; the error or not-applicable score when there is neither."""
    value, reason = criterion(case, key)
    if reason is not None:
        return bad_expectation(scorer, f"success_criteria.{key}", reason)
    if value is not None:
        return value, "scenario"
    if option is not None:
        return option, "option"
    return not_applicable(scorer, missing)


def not_applicable(scorer: str, why: str) -> Score:
    """The score of a case that gives the scorer nothing to check."""
    return Score.unscored(scorer, why, {"reason": NOT_APPLICABLE})


def bad_expectation(scorer: str, field: str, reason: str) -> Score:
    """The score of a case whose expectation for this scorer cannot be used."""
    return Score.error(
        scorer,
        f"scenario's {field} is unusable: {reason}",
        {"reason": "bad_expectation", "field": field},
    )


def listing(items: Iterable[str], limit: int = 8) -> str:
    """`a, b and c` (at most `limit` items named)."""
    names = list(items)
    if len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 call`, `2 calls` (`many` for words that do not take an s)."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"


# --- factory option checks (bad options are a configuration error, raised when built) ------


def check_count(option: str, value: int | None) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"{option} must be a whole number >= 0 or None, got {value!r}")


def check_fraction(option: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{option} must be a number from 0 to 1, got {value!r}")


def check_name(option: str, value: str | None) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"{option} must be a non-empty name or None, got {value!r}")


def check_names(
    option: str, value: Iterable[str] | None, *, allow_empty: bool = False
) -> tuple[str, ...] | None:
    """The names as a tuple, stripped; raises ValueError unless they are non-empty text."""
    if value is None:
        return None
    names = () if isinstance(value, str) else tuple(value)
    if isinstance(value, str) or not all(isinstance(v, str) and v.strip() for v in names):
        raise ValueError(f"{option} must be a list of non-empty names, got {value!r}")
    if not allow_empty and not names:
        raise ValueError(f"{option} must name at least one tool")
    return tuple(name.strip() for name in names)
