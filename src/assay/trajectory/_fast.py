"""A quicker count for the commonest check: OpenAI-style message dicts compared with one
argument mode for every tool.

The general path reads calls into objects, steps and kinds, and keeps everything it needs to
explain a result. A check usually needs only the number of calls that pair up, and that is
counted here straight from the messages, on plain `(name, arguments)` tuples, with the same
rules (`assay.trajectory.match`): the same name, then arguments given nowhere or identical as
text match at once, otherwise both are parsed as JSON and compared in the argument mode.
Anything this does not read exactly as the general path would (LangChain
shapes, legacy function calls, arguments that are not text, odd items) makes `plain_calls`
return None, and the general path checks that pair instead. Explanations always come from
the general path.

Both counts first pair calls where they stand, from the start and from the end, which most
runs allow, so that only the calls in between need a search:

- order-free modes pair equal calls (same name, arguments equal as values); `_search` says
  why pairing equal calls first never costs the best pairing;
- ordered modes pair one-call steps whose calls match, as `match.in_order` does; the steps
  in between go to `in_order` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from assay.trajectory.args import (
    SHALLOW_TEXT,
    TextCompare,
    Unparsable,
    args_value,
    same_parsed,
    text_comparison,
    too_deep,
)
from assay.trajectory.match import MAX_TABLE_CELLS, augmenting_match, in_order
from assay.trajectory.normalize import Call, Steps

PlainCall = tuple[str, str | None]

_SKIPPED_ROLES = frozenset({"user", "tool", "system", "developer", "function"})
_GENERAL_ONLY = frozenset({"additional_kwargs", "lc", "function_call"})
"""Keys of an assistant message that the general reader gives a meaning to: LangChain's
shapes, a legacy function call. (An OpenAI message's `name` names a participant, not a node,
so it means nothing to either reader.)"""


def plain_calls(messages: Any, ends: list[int] | None = None) -> list[PlainCall] | None:
    """The calls of a list of OpenAI-style message dicts; None when it is anything else.
    `ends`, when given, is told where each step ends (a step is an assistant message that
    made calls).

    Example:
        >>> ends = []
        >>> plain_calls([{"role": "user", "content": "hi"},
        ...              {"role": "assistant", "tool_calls": [
        ...                  {"function": {"name": "f", "arguments": "{}"}},
        ...                  {"function": {"name": "g"}}]}], ends), ends
        ([('f', '{}'), ('g', None)], [2])
        >>> plain_calls([{"type": "ai", "content": ""}]) is None
        True
    """
    if type(messages) is not list:
        return None
    calls: list[PlainCall] = []
    append = calls.append
    try:
        for message in messages:
            role = message["role"]  # not a dict, or no role: the general reader's job
            if role != "assistant":
                if role in _SKIPPED_ROLES and "lc" not in message:
                    continue
                return None
            if type(message) is not dict:
                return None
            raw_calls = message.get("tool_calls")
            if (raw_calls is None or len(message) != 3 or "content" not in message) and not (
                _GENERAL_ONLY.isdisjoint(message)
            ):
                # Keys beyond {role, content, tool_calls} include one that the general
                # reader gives a meaning to.
                return None
            if not raw_calls:
                continue
            if type(raw_calls) is not list:
                return None
            for raw in raw_calls:
                function = raw["function"]
                name = function["name"]
                arguments = function.get("arguments")
                if (type(arguments) is not str and arguments is not None) or type(name) is not str:
                    return None
                append((name, arguments))
            if ends is not None:
                ends.append(len(calls))
    except (KeyError, TypeError, AttributeError):
        return None
    return calls


def count_matches(expected: list[PlainCall], actual: list[PlainCall], args_mode: str) -> int:
    """The size of a maximum one-to-one matching of expected to actual calls.

    Example:
        >>> count_matches([("f", '{"x": 1}'), ("g", None)], [("g", "{}"), ("f", '{"x":1.0}')],
        ...               "exact")
        2
    """
    if args_mode == "ignore":
        return _count_names(expected, actual)
    # Written out rather than as a function: this runs for nearly every call checked.
    e_end, a_end = len(expected), len(actual)
    start = 0
    while start < e_end and start < a_end:
        (name, text), (other_name, other) = expected[start], actual[start]
        if text is None or name != other_name:
            break
        if text != other and not _equal_texts(text, other):
            break
        start += 1
    while e_end > start and a_end > start:
        (name, text), (other_name, other) = expected[e_end - 1], actual[a_end - 1]
        if text is None or name != other_name:
            break
        if text != other and not _equal_texts(text, other):
            break
        e_end, a_end = e_end - 1, a_end - 1
    matched = start + len(expected) - e_end
    if e_end == start or a_end == start:
        return matched
    compare = text_comparison(args_mode)
    offered_by_name = _by_name(actual[start:a_end])
    for name, wanted in _by_name(expected[start:e_end]).items():
        got = offered_by_name.get(name)
        if got is None:
            continue
        if len(wanted) == 1 and len(got) == 1:
            # One call of this name on each side: they match or nothing does.
            text, other = wanted[0], got[0]
            matched += text is None or text == other or _text_fits(text, other, compare)
        else:
            matched += _search(wanted, got, _Values(compare))
    return matched


def count_in_order(
    expected: tuple[list[PlainCall], list[int]],
    actual: tuple[list[PlainCall], list[int]],
    args_mode: str,
    matches: Callable[[Call, Call], bool],
) -> int | None:
    """The calls matched along the best in-order alignment of steps (`match.in_order`), or
    None when the trajectories are long enough for `in_order` to align them approximately
    (the general path then does it, so that both give the same figures). Each side is the
    calls `plain_calls` returns and the ends of the steps it was told.

    Example:
        >>> from assay.trajectory.match import CallMatcher
        >>> from assay.trajectory.args import compile_rules
        >>> matcher = CallMatcher(*compile_rules("superset", None))
        >>> calls = [("a", None), ("b", None), ("c", None)]
        >>> count_in_order((calls, [1, 2, 3]), (calls[1:] + calls[:1], [1, 2, 3]), "superset",
        ...                matcher.matches)
        2
    """
    (e_calls, e_ends), (a_calls, a_ends) = expected, actual
    e_steps, a_steps = len(e_ends), len(a_ends)
    if e_steps * a_steps > MAX_TABLE_CELLS:
        return None
    compare = None if args_mode == "ignore" else text_comparison(args_mode)
    # One-call steps that match where they stand, from the start...
    start = e_low = a_low = 0
    while start < e_steps and start < a_steps:
        e_high, a_high = e_ends[start], a_ends[start]
        if e_high - e_low != 1 or a_high - a_low != 1:
            break
        if not _call_fits(e_calls[e_low], a_calls[a_low], compare):
            break
        start, e_low, a_low = start + 1, e_high, a_high
    # ...and from the end.
    e_stop, a_stop = e_steps, a_steps
    while e_stop > start and a_stop > start:
        e_high, a_high = e_ends[e_stop - 1], a_ends[a_stop - 1]
        if e_high - 1 != (e_ends[e_stop - 2] if e_stop > 1 else 0):
            break
        if a_high - 1 != (a_ends[a_stop - 2] if a_stop > 1 else 0):
            break
        if not _call_fits(e_calls[e_high - 1], a_calls[a_high - 1], compare):
            break
        e_stop, a_stop = e_stop - 1, a_stop - 1
    matched = start + e_steps - e_stop
    if e_stop == start or a_stop == start:
        return matched
    # Pairing a whole step where it stands never loses (see `in_order`), so the steps in
    # between are aligned on their own, by the general code, on call objects.
    e_middle = _call_steps(e_calls, e_ends, start, e_stop)
    a_middle = _call_steps(a_calls, a_ends, start, a_stop)
    return matched + sum(len(found) for _, _, found in in_order(e_middle, a_middle, matches))


def _call_steps(calls: list[PlainCall], ends: list[int], first: int, stop: int) -> Steps:
    """Steps `first` to `stop` (excluded) as call objects."""
    steps: Steps = []
    low = ends[first - 1] if first else 0
    for high in ends[first:stop]:
        steps.append(tuple(Call(name, raw) for name, raw in calls[low:high]))
        low = high
    return steps


def _call_fits(wanted: PlainCall, got: PlainCall, compare: TextCompare | None) -> bool:
    text, other = wanted[1], got[1]
    return wanted[0] == got[0] and (
        compare is None or text is None or text == other or _text_fits(text, other, compare)
    )


def _text_fits(text: str, other: str | None, compare: TextCompare) -> bool:
    """Whether actual argument text `other` fits expected text `text` (not None) under
    `compare`. Text that does not parse fits only itself, which the caller has checked."""
    try:
        wanted = orjson.loads(text)
        got = {} if other is None else orjson.loads(other)
    except orjson.JSONDecodeError:
        return False
    if (len(text) > SHALLOW_TEXT and too_deep(text, wanted)) or (
        other is not None and len(other) > SHALLOW_TEXT and too_deep(other, got)
    ):
        return False  # arguments nested past the limit are compared as text alone
    return compare(got, wanted, other or "", text)


def _equal_texts(text: str, other: str | None) -> bool:
    """Whether two argument texts (the first not None) hold the same JSON value: `same`,
    with `==` deciding at C speed where it can (it takes `true` for `1`, so texts holding a
    boolean are checked again).

    This is `_text_fits(text, other, same_parsed)` written out: it runs for nearly every
    re-serialised call, and the calls it saves are about 4% of a whole check."""
    if other is None:
        return _text_fits(text, other, same_parsed)
    try:
        wanted, got = orjson.loads(text), orjson.loads(other)
    except orjson.JSONDecodeError:
        return False
    if (len(text) > SHALLOW_TEXT and too_deep(text, wanted)) or (
        len(other) > SHALLOW_TEXT and too_deep(other, got)
    ):
        return False  # arguments nested past the limit are compared as text alone
    if got != wanted:
        return False
    if "true" in text or "false" in text or "true" in other or "false" in other:
        return same_parsed(got, wanted, other, text)
    return True


def _by_name(calls: list[PlainCall]) -> dict[str, list[str | None]]:
    groups: dict[str, list[str | None]] = {}
    for name, raw in calls:
        group = groups.get(name)
        if group is None:
            groups[name] = [raw]
        else:
            group.append(raw)
    return groups


def _count_names(expected: list[PlainCall], actual: list[PlainCall]) -> int:
    """Pairs by name alone (argument mode `ignore`)."""
    offered = _by_name(actual)
    return sum(
        min(len(offered.get(name, ())), len(wanted)) for name, wanted in _by_name(expected).items()
    )


def _search(wanted: list[str | None], got: list[str | None], values: _Values) -> int:
    """How many calls of one name pair up, at most, when a side has several.

    Calls with equal arguments are paired first, which never costs the best pairing: every
    argument mode is reflexive and transitive, so if an optimal pairing gives such an
    expected call `e` and actual call `a` other partners `a'` and `e'`, then `e'` fits `a'`
    as well (through `a`, which equals `e`), and swapping keeps the count. (Not so for an
    expected call without arguments, which fits anything while its actual twin fits only
    what `{}` fits; those are left to the search.)
    """
    wanted, got = list(wanted), list(got)
    paired = 0
    for e_index in range(len(wanted) - 1, -1, -1):
        text = wanted[e_index]
        if text is None:
            continue
        for a_index, other in enumerate(got):
            if text == other or _equal_texts(text, other):
                del wanted[e_index], got[a_index]
                paired += 1
                break
    if not wanted or not got:
        return paired
    rights = range(len(got))
    found = augmenting_match(
        range(len(wanted)), lambda _: rights, lambda e, a: values.fits(wanted[e], got[a])
    )
    return paired + len(found)


_UNPARSED = object()


class _Values:
    """Argument texts parsed once per check, for the calls that need a search."""

    __slots__ = ("compare", "parsed")

    def __init__(self, compare: TextCompare) -> None:
        self.compare = compare
        self.parsed: dict[str | None, Any] = {}

    def value(self, raw: str | None) -> Any:
        found = self.parsed.get(raw, _UNPARSED)
        if found is _UNPARSED:
            found = self.parsed[raw] = args_value(raw)
        return found

    def fits(self, wanted_raw: str | None, got_raw: str | None) -> bool:
        """Whether actual arguments satisfy the expected ones in the argument mode."""
        if wanted_raw is None or wanted_raw == got_raw:
            return True  # no arguments expected, or identical text
        wanted, got = self.value(wanted_raw), self.value(got_raw)
        if type(wanted) is Unparsable or type(got) is Unparsable:
            return False
        return self.compare(got, wanted, got_raw or "", wanted_raw)
