"""A quicker count for the commonest check: OpenAI-style message dicts compared in a mode that
ignores order (`unordered`, `superset`, `subset`) with one argument mode for every tool.

The general path reads calls into objects, steps and kinds; for these checks only the number
of calls that can be paired matters, and that is counted here straight from the messages, on
plain `(name, arguments)` tuples, with the same rules (`assay.trajectory.match`): the same
name, arguments given nowhere or identical as text match at once, otherwise both are parsed as
JSON and compared in the argument mode. Anything this does not read exactly as the general
path would (a named agent, LangChain shapes, legacy function calls, odd items) returns None,
and the general path checks that pair instead. Explanations always come from the general path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assay.trajectory.args import Unparsable, args_value, contains, same
from assay.trajectory.match import augmenting_match

PlainCall = tuple[str, Any]

_SKIPPED_ROLES = frozenset({"user", "tool", "system", "developer", "function"})
_UNPARSED = object()


def plain_calls(messages: Any) -> list[PlainCall] | None:
    """The calls of a list of OpenAI-style message dicts, or None when it is anything else.

    Example:
        >>> plain_calls([{"role": "user", "content": "hi"},
        ...              {"role": "assistant", "tool_calls": [
        ...                  {"function": {"name": "f", "arguments": "{}"}}]}])
        [('f', '{}')]
        >>> plain_calls([{"type": "ai", "content": ""}]) is None
        True
    """
    if type(messages) is not list:
        return None
    calls: list[PlainCall] = []
    for message in messages:
        if type(message) is not dict:
            return None
        role = message.get("role")
        if role != "assistant":
            if role in _SKIPPED_ROLES and "lc" not in message:
                continue
            return None
        if message.get("name") or "additional_kwargs" in message or "lc" in message:
            return None  # an agent's node, or LangChain's shape: the general reader's job
        raw_calls = message.get("tool_calls")
        if not raw_calls:
            if message.get("function_call") is not None:
                return None
            continue
        if type(raw_calls) is not list:
            return None
        for raw in raw_calls:
            function = raw.get("function") if type(raw) is dict else None
            if type(function) is not dict:
                return None
            name = function.get("name")
            if type(name) is not str:
                return None
            calls.append((name, function.get("arguments")))
    return calls


Compare = Callable[[Any, Any], bool]


def comparison(mode: str) -> Compare | None:
    """`(actual_args, expected_args) -> bool` for an argument mode, None for `ignore`."""
    if mode == "ignore":
        return None
    if mode == "superset":
        return contains
    if mode == "subset":
        return lambda got, wanted: contains(wanted, got)
    return same


def count_matches(
    expected: list[PlainCall], actual: list[PlainCall], compare: Compare | None
) -> int:
    """The size of a maximum one-to-one matching of expected to actual calls."""
    by_name: dict[str, list[int]] = {}
    for index, call in enumerate(actual):
        group = by_name.get(call[0])
        if group is None:
            by_name[call[0]] = [index]
        else:
            group.append(index)
    wanted_by_name: dict[str, list[int]] = {}
    for index, call in enumerate(expected):
        group = wanted_by_name.get(call[0])
        if group is None:
            wanted_by_name[call[0]] = [index]
        else:
            group.append(index)
    matcher = _Pairing(expected, actual, compare)
    matched = 0
    for name, wanted in wanted_by_name.items():
        offered = by_name.get(name)
        if offered is None:
            continue
        if len(wanted) == 1 and len(offered) == 1:
            # One call of this name on each side: they match or nothing does.
            matched += matcher.fits(wanted[0], offered[0])
        else:
            matched += matcher.search(wanted, offered)
    return matched


class _Pairing:
    """Whether calls fit, with each argument text parsed once; the search for repeated names."""

    __slots__ = ("actual", "compare", "expected", "parsed")

    def __init__(
        self, expected: list[PlainCall], actual: list[PlainCall], compare: Compare | None
    ) -> None:
        self.expected = expected
        self.actual = actual
        self.compare = compare
        self.parsed: dict[str, Any] = {}

    def value(self, raw: Any) -> Any:
        if type(raw) is not str:
            return args_value(raw)
        found = self.parsed.get(raw, _UNPARSED)
        if found is _UNPARSED:
            found = self.parsed[raw] = args_value(raw)
        return found

    def fits(self, e_index: int, a_index: int) -> bool:
        wanted_raw = self.expected[e_index][1]
        if self.compare is None or wanted_raw is None:
            return True
        got_raw = self.actual[a_index][1]
        if wanted_raw is got_raw or (type(wanted_raw) is str and wanted_raw == got_raw):
            return True
        wanted, got = self.value(wanted_raw), self.value(got_raw)
        if type(wanted) is Unparsable or type(got) is Unparsable:
            return False
        return self.compare(got, wanted)

    def search(self, wanted: list[int], offered: list[int]) -> int:
        """How many of the calls of one name pair up, at most."""
        return len(augmenting_match(wanted, lambda _: offered, self.fits))
