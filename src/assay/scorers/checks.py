"""Rule checks on one run: turn and token budgets, response content, escalation, completion
signal, expected tools, error remediation.

Each scorer reads its expectation from the scenario's typed fields (`success_criteria`,
`should_escalate`, `should_signal_complete`, `expected_tools`), checked when the scenario was
read (see `assay.schema.scenario`); its options give a default for scenarios that set none. A
scenario that gives a scorer nothing to check is unscored with `details["reason"] ==
"not_applicable"`, never passed by default; an expectation that could not be read
(`Case.problem`) is an error that names the file and the field.

Example:
    >>> from assay.records import Case, Step, ToolCall, Trajectory
    >>> from assay.records import SuccessCriteria
    >>> case = Case(id="s1", should_escalate=False,
    ...             success_criteria=SuccessCriteria(response_contains=["refund"]))
    >>> run = Trajectory(answer="Your refund is on its way.",
    ...                  steps=[Step(index=0, tool_calls=[ToolCall("process_refund")])])
    >>> escalation()(case, run).passed, response_contains()(case, run).passed
    (True, True)
    >>> max_turns()(case, run).details["reason"]
    'not_applicable'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay.records import Case, Trajectory
from assay.results import Score
from assay.scorers._runs import (
    CallRef,
    as_mapping,
    assistant_turns,
    bad_expectation,
    check_count,
    check_fraction,
    check_name,
    check_names,
    criterion_or_option,
    final_text,
    listing,
    not_applicable,
    plural,
    tool_calls,
)
from assay.scorers.registry import Scorer, register_scorer

__all__ = [
    "error_suggestions",
    "escalation",
    "max_turns",
    "response_contains",
    "response_not_contains",
    "signal_task_complete",
    "token_budget",
    "tool_name_match",
]


# --- max_turns -----------------------------------------------------------------------------


@register_scorer("max_turns", group="checks")
def max_turns(*, limit: int | None = None) -> Scorer:
    """Checks the run took no more turns than the scenario's max_turns criterion (or limit) allows.

    Turns are the run's steps, or its assistant messages when it records no steps. The budget
    is the scenario's `max_turns` success criterion (`Case.success_criteria`). A run
    that records no turns at all is unscored, not passed.

    Args:
        limit: The budget for scenarios whose criteria set no `max_turns`.

    Example:
        >>> from assay.records import Case, Message, SuccessCriteria, Trajectory
        >>> case = Case(id="s1", success_criteria=SuccessCriteria(max_turns=2))
        >>> run = Trajectory(messages=[Message("user", "hi"), Message("assistant", None),
        ...                            Message("assistant", "a"), Message("assistant", "b")])
        >>> score = max_turns()(case, run)
        >>> score.passed, score.rationale
        (False, '3 assistant messages, over the limit of 2')
    """
    check_count("limit", limit)
    name = "max_turns"

    def score(case: Case, run: Trajectory) -> Score:
        found = criterion_or_option(case, name, "max_turns", limit, "scenario sets no max_turns")
        if isinstance(found, Score):
            return found
        budget, source = found
        counted = assistant_turns(run)
        if counted is None:
            return Score.unscored(
                name, "run records no steps or assistant messages", {"reason": "no_turns"}
            )
        turns, what = counted
        passed = turns <= budget
        rationale = f"{plural(turns, what[:-1])}, " + (
            f"within the limit of {budget}" if passed else f"over the limit of {budget}"
        )
        details = {"turns": turns, "counted": what, "limit": budget, "limit_from": source}
        return Score.scored(
            name, 1.0 if passed else 0.0, passed=passed, rationale=rationale, details=details
        )

    return score


# --- token_budget --------------------------------------------------------------------------


@register_scorer("token_budget", group="checks")
def token_budget(*, max_tokens: int | None = None) -> Scorer:
    """Checks the run's input plus output tokens stay within the scenario's max_tokens criterion.

    The budget is the scenario's `max_tokens` success criterion. Tokens are the run's usage,
    or the sum of its steps' usage; a run that records no token usage is unscored.

    Args:
        max_tokens: The budget for scenarios whose criteria set no `max_tokens`.

    Example:
        >>> from assay.records import Case, SuccessCriteria, Trajectory, Usage
        >>> case = Case(id="s1", success_criteria=SuccessCriteria(max_tokens=5000))
        >>> score = token_budget()(case, Trajectory(usage=Usage(4200, 900)))
        >>> score.passed, score.rationale
        (False, '5100 tokens (4200 in, 900 out), over the budget of 5000')
    """
    check_count("max_tokens", max_tokens)
    name = "token_budget"

    def score(case: Case, run: Trajectory) -> Score:
        found = criterion_or_option(
            case, name, "max_tokens", max_tokens, "scenario sets no max_tokens"
        )
        if isinstance(found, Score):
            return found
        budget, source = found
        tokens_in, tokens_out = _tokens(run)
        if tokens_in == 0 and tokens_out == 0:
            return Score.unscored(name, "run records no token usage", {"reason": "no_usage"})
        total = tokens_in + tokens_out
        passed = total <= budget
        rationale = f"{total} tokens ({tokens_in} in, {tokens_out} out), " + (
            f"within the budget of {budget}" if passed else f"over the budget of {budget}"
        )
        details = {
            "total_tokens": total,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "max_tokens": budget,
            "limit_from": source,
        }
        return Score.scored(
            name, 1.0 if passed else 0.0, passed=passed, rationale=rationale, details=details
        )

    return score


def _tokens(run: Trajectory) -> tuple[int, int]:
    tokens_in, tokens_out = _count(run.usage.input_tokens), _count(run.usage.output_tokens)
    if tokens_in == 0 and tokens_out == 0:
        for step in run.steps:
            tokens_in += _count(step.usage.input_tokens)
            tokens_out += _count(step.usage.output_tokens)
    return tokens_in, tokens_out


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


# --- response_contains / response_not_contains ---------------------------------------------


@register_scorer("response_contains", group="answers")
def response_contains(*, phrases: Iterable[str] | None = None) -> Scorer:
    """Checks the final response holds every phrase of the scenario's response_contains criterion,
    ignoring case.

    Phrases come from the scenario's `response_contains` success criterion (every item that
    names it counts) and are matched ignoring case. The response is the run's answer when it
    is text, else its last assistant message with text. The value is the fraction of phrases
    found; it passes when all are.

    Args:
        phrases: Phrases for scenarios whose criteria name none.

    Example:
        >>> from assay.records import Case, Message, SuccessCriteria, Trajectory
        >>> case = Case(id="s1", success_criteria=SuccessCriteria(
        ...     response_contains=["refund", "5 business days"]))
        >>> run = Trajectory(messages=[Message("assistant", "Your REFUND was issued."),
        ...                            Message("assistant", None)])
        >>> score = response_contains()(case, run)
        >>> score.value, score.passed, score.details["missing"]
        (0.5, False, ['5 business days'])
    """
    default = check_names("phrases", phrases, allow_empty=True)

    def score(case: Case, run: Trajectory) -> Score:
        return _phrases(case, run, "response_contains", default, present=True)

    return score


@register_scorer("response_not_contains", group="answers")
def response_not_contains(*, phrases: Iterable[str] | None = None) -> Scorer:
    """Checks the final response holds none of the phrases of the scenario's response_not_contains
    criterion.

    Like `response_contains`, with the scenario's `response_not_contains` criterion; the value
    is the fraction of phrases absent, and it passes when none is present.

    Args:
        phrases: Phrases for scenarios whose criteria name none.

    Example:
        >>> from assay.records import Case, SuccessCriteria, Trajectory
        >>> case = Case(id="s1", success_criteria=SuccessCriteria(
        ...     response_not_contains=["password", "internal error"]))
        >>> score = response_not_contains()(case, Trajectory(answer="Your Password is 1234"))
        >>> score.passed, score.rationale
        (False, "response (answer) contains 1 of 2 forbidden phrases: 'password'")
    """
    default = check_names("phrases", phrases, allow_empty=True)

    def score(case: Case, run: Trajectory) -> Score:
        return _phrases(case, run, "response_not_contains", default, present=False)

    return score


def _phrases(
    case: Case, run: Trajectory, name: str, default: tuple[str, ...] | None, *, present: bool
) -> Score:
    nothing = f"scenario sets no {name} phrases"
    wanted = criterion_or_option(case, name, name, default, nothing)
    if isinstance(wanted, Score):
        return wanted
    phrases = [phrase for phrase in wanted[0] or () if phrase.strip()]
    if not phrases:
        return not_applicable(name, nothing)
    text, where = final_text(run)
    if text is None:
        return Score.unscored(
            name, "run has no final response text to search", {"reason": "no_answer"}
        )
    folded = text.casefold()
    found = [phrase for phrase in phrases if phrase.casefold() in folded]
    missing = [phrase for phrase in phrases if phrase.casefold() not in folded]
    details: dict[str, Any] = {"phrases": phrases, "response_from": where}
    shown_found = listing(repr(phrase) for phrase in found)
    if present:
        value = len(found) / len(phrases)
        passed = not missing
        details.update(found=found, missing=missing)
        rationale = (
            f"response ({where}) contains all {plural(len(phrases), 'phrase')}"
            if passed
            else f"response ({where}) lacks {len(missing)} of {len(phrases)} phrases: "
            + listing(repr(phrase) for phrase in missing)
        )
    else:
        value = len(missing) / len(phrases)
        passed = not found
        details.update(present=found, absent=missing)
        rationale = (
            f"response ({where}) contains none of {plural(len(phrases), 'forbidden phrase')}"
            if passed
            else f"response ({where}) contains {len(found)} of {len(phrases)} forbidden "
            f"phrases: {shown_found}"
        )
    return Score.scored(name, value, passed=passed, rationale=rationale, details=details)


# --- escalation ----------------------------------------------------------------------------


@register_scorer("escalation", group="checks")
def escalation(
    *, tools: Iterable[str] = ("escalate_to_human",), should_escalate: bool | None = None
) -> Scorer:
    """Checks the agent called an escalation tool exactly when the scenario's should_escalate says
    to.

    The scenario's `should_escalate` says whether it should; an escalation is a call of any of
    `tools`.

    Args:
        tools: Names of the escalation tools.
        should_escalate: The expectation for scenarios that do not set `should_escalate`.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> run = Trajectory(steps=[Step(index=0), Step(index=1,
        ...                         tool_calls=[ToolCall("escalate_to_human")])])
        >>> score = escalation()(Case(id="s", should_escalate=False), run)
        >>> score.passed, score.rationale
        (False, 'escalated (escalate_to_human at step 1) but the scenario expects no escalation')
    """
    names = check_names("tools", tools) or ()
    if should_escalate is not None and not isinstance(should_escalate, bool):
        raise ValueError(f"should_escalate must be true, false or None, got {should_escalate!r}")
    name = "escalation"

    def score(case: Case, run: Trajectory) -> Score:
        reason = case.problem("should_escalate")
        if reason is not None:
            return bad_expectation(name, "should_escalate", reason)
        expected = case.should_escalate
        if expected is None:
            expected = should_escalate
        if expected is None:
            return not_applicable(name, "scenario does not say whether to escalate")
        calls = [call for call in tool_calls(run) if call.name in names]
        escalated = bool(calls)
        passed = escalated == expected
        shown = _calls_text(calls)
        if escalated:
            rationale = f"escalated ({shown})" + (
                "" if passed else " but the scenario expects no escalation"
            )
        else:
            rationale = "did not escalate" + (
                "" if passed else f" (no call of {listing(names)}) but the scenario expects it"
            )
        details = {
            "should_escalate": expected,
            "escalated": escalated,
            "escalation_calls": [call.where for call in calls],
        }
        return Score.scored(
            name, 1.0 if passed else 0.0, passed=passed, rationale=rationale, details=details
        )

    return score


def _calls_text(calls: list[CallRef]) -> str:
    return listing(f"{call.name} at {call.where}" for call in calls)


# --- signal_task_complete ------------------------------------------------------------------


@register_scorer("signal_task_complete", group="checks")
def signal_task_complete(
    *, tool: str = "signal_task_complete", required: bool | None = None
) -> Scorer:
    """Checks the agent called the completion tool exactly when the scenario's
    should_signal_complete says to.

    With the scenario's `should_signal_complete` true, the completion tool must be called; with
    it false, it must not be (the task is not the agent's to finish).

    Args:
        tool: Name of the completion tool.
        required: The expectation for scenarios that do not set `should_signal_complete`.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> case = Case(id="s", should_signal_complete=True)
        >>> run = Trajectory(steps=[Step(index=0, tool_calls=[ToolCall("signal_task_complete",
        ...                                                            result=None)])])
        >>> signal_task_complete()(case, run).rationale
        'completion signalled (signal_task_complete at step 0)'
    """
    check_name("tool", tool)
    if required is not None and not isinstance(required, bool):
        raise ValueError(f"required must be true, false or None, got {required!r}")
    tool_name = tool.strip()
    name = "signal_task_complete"

    def score(case: Case, run: Trajectory) -> Score:
        reason = case.problem("should_signal_complete")
        if reason is not None:
            return bad_expectation(name, "should_signal_complete", reason)
        expected = case.should_signal_complete
        if expected is None:
            expected = required
        if expected is None:
            return not_applicable(name, "scenario does not set should_signal_complete")
        calls = [call for call in tool_calls(run) if call.name == tool_name]
        signalled = bool(calls)
        passed = signalled == expected
        if signalled:
            rationale = f"completion signalled ({_calls_text(calls)})" + (
                "" if passed else " but the scenario expects no completion signal"
            )
        else:
            rationale = f"{tool_name} never called" + (
                " (as expected)" if passed else "; the scenario expects a completion signal"
            )
        details = {
            "should_signal_complete": expected,
            "signalled": signalled,
            "calls": [call.where for call in calls],
        }
        return Score.scored(
            name, 1.0 if passed else 0.0, passed=passed, rationale=rationale, details=details
        )

    return score


# --- tool_name_match -----------------------------------------------------------------------


@register_scorer("tool_name_match", group="trajectories")
def tool_name_match(*, threshold: float = 1.0, tools: Iterable[str] | None = None) -> Scorer:
    """Checks the run called each of the scenario's expected_tools at least once, in any order.

    The value is the fraction of the distinct `expected_tools` called at least once (order,
    count and arguments are not checked: the trajectory scorer does that); it passes at
    `threshold`.

    Args:
        threshold: The fraction needed to pass, 0..1.
        tools: Expected tools for scenarios that name none.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> case = Case(id="s", expected_tools=["lookup_order", "process_refund"])
        >>> run = Trajectory(steps=[Step(index=0, tool_calls=[ToolCall("lookup_order")])])
        >>> score = tool_name_match()(case, run)
        >>> score.value, score.passed, score.rationale
        (0.5, False, 'called 1 of 2 expected tools; missing: process_refund')
    """
    check_fraction("threshold", threshold)
    default = check_names("tools", tools, allow_empty=True)
    name = "tool_name_match"

    def score(case: Case, run: Trajectory) -> Score:
        reason = case.problem("expected_tools")
        if reason is not None:
            return bad_expectation(name, "expected_tools", reason)
        expected = case.expected_tools
        if expected is None:
            expected = list(default) if default is not None else None
        wanted = list(dict.fromkeys(expected or ()))
        if not wanted:
            return not_applicable(name, "scenario names no expected tools")
        first: dict[str, str] = {}
        for call in tool_calls(run):
            first.setdefault(call.name, call.where)
        matched = [tool for tool in wanted if tool in first]
        missing = [tool for tool in wanted if tool not in first]
        value = len(matched) / len(wanted)
        passed = value >= threshold
        rationale = f"called {len(matched)} of {plural(len(wanted), 'expected tool')}"
        if missing:
            rationale += f"; missing: {listing(missing)}"
        details = {
            "expected": wanted,
            "matched": {tool: first[tool] for tool in matched},
            "missing": missing,
            "threshold": threshold,
        }
        return Score.scored(name, value, passed=passed, rationale=rationale, details=details)

    return score


# --- error_suggestions ---------------------------------------------------------------------


@register_scorer("error_suggestions", group="checks")
def error_suggestions(*, require_mention: bool = True) -> Scorer:
    """Checks each tool error carried suggestions and the final response passed one of them on.

    Every tool result with a non-empty `error` must carry non-empty `suggestions` (text, or a
    list with text), and the final response must mention at least one of them (ignoring
    case). The value is the fraction of errors that do; a run with no tool error is not
    applicable.

    Args:
        require_mention: Also require the final response to mention a suggestion.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> failed = ToolCall("lookup_order", result={
        ...     "error": "order not found", "suggestions": ["check the order number"]})
        >>> run = Trajectory(answer="Please check the order number and try again.",
        ...                  steps=[Step(index=0, tool_calls=[failed])])
        >>> score = error_suggestions()(Case(id="s"), run)
        >>> score.passed, score.rationale
        (True, '1 tool error, each with suggestions the response passes on')
    """
    if not isinstance(require_mention, bool):
        raise ValueError(f"require_mention must be true or false, got {require_mention!r}")
    name = "error_suggestions"

    def score(case: Case, run: Trajectory) -> Score:
        errors: list[tuple[CallRef, list[str]]] = []
        for call in tool_calls(run):
            result = as_mapping(call.result)
            if result is not None and _is_error(result.get("error")):
                errors.append((call, _suggestions(result.get("suggestions"))))
        if not errors:
            return not_applicable(name, "no tool returned an error")
        text, where = final_text(run)
        lacking = [call for call, suggestions in errors if not suggestions]
        if require_mention and text is None and not lacking:
            return Score.unscored(
                name,
                "run has no final response to check for the suggestions",
                {"reason": "no_answer"},
            )
        folded = (text or "").casefold()
        records: list[dict[str, Any]] = []
        handled = 0
        unmentioned: list[CallRef] = []
        for call, suggestions in errors:
            mentioned = [s for s in suggestions if s.casefold() in folded]
            ok = bool(suggestions) and (bool(mentioned) or not require_mention)
            handled += ok
            if suggestions and not ok:
                unmentioned.append(call)
            records.append(
                {
                    "tool": call.name,
                    "where": call.where,
                    "suggestions": suggestions,
                    "mentioned": mentioned,
                    "ok": ok,
                }
            )
        passed = handled == len(errors)
        if passed:
            rationale = f"{plural(len(errors), 'tool error')}, each with suggestions" + (
                " the response passes on" if require_mention else ""
            )
        else:
            parts = []
            if lacking:
                parts.append("no suggestions with " + _calls_text(lacking))
            if unmentioned:
                parts.append(
                    "response "
                    + (f"({where}) " if where else "")
                    + "mentions none of the suggestions of "
                    + _calls_text(unmentioned)
                )
            rationale = f"{len(errors) - handled} of {len(errors)} tool errors unhandled: " + (
                "; ".join(parts)
            )
        details = {"errors": records, "response_from": where or None}
        return Score.scored(
            name, handled / len(errors), passed=passed, rationale=rationale, details=details
        )

    return score


def _is_error(value: Any) -> bool:
    return bool(value.strip()) if isinstance(value, str) else bool(value)


def _suggestions(value: Any) -> list[str]:
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]
