"""Argument comparison for trajectory checks: modes, per-tool overrides, explanations.

Values compare as JSON values: numbers by value (`1 == 1.0`) but booleans are not numbers
(`True != 1`), tuples equal lists, dict keys must match exactly. `superset` and `subset`
apply to dicts recursively, so an expected `{"time": {"start": "09:00"}}` is contained in an
actual `{"time": {"start": "09:00", "end": "10:00"}, "tz": "UTC"}`; any other value, lists
included, must be equal.

Example:
    >>> rule = ArgsRule.build("superset")
    >>> rule.matches({"city": "Paris", "units": "C"}, {"city": "Paris"})
    True
    >>> rule.explain({"city": "paris"}, {"city": "Paris"})
    "argument 'city': expected 'Paris', got 'paris'"
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from assay._jsonable import MISSING as _MISSING
from assay._jsonable import contains, is_sequence, nested_deeper_than, same
from assay.limits import MAX_DEPTH
from assay.trajectory.spec import ARGS_MODES, ArgsMode, Override, Overrides

_SHOWN = 60
"""Characters of a value shown in an explanation."""


class ArgsParseError(ValueError):
    """Arguments recorded as text that is not JSON."""


def parse_args(raw: Any) -> Any:
    """Arguments as a JSON value: a dict as is, JSON text parsed, None as `{}`.

    Raises:
        ArgsParseError: the text is not valid JSON.

    Example:
        >>> parse_args('{"x": 1}'), parse_args(None)
        ({'x': 1}, {})
    """
    if raw is None:
        return {}
    if isinstance(raw, str | bytes):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ArgsParseError(f"arguments are not valid JSON ({exc.msg})") from None
    return raw


class Unparsable:
    """Arguments that cannot be compared (text that is not JSON, nesting past the limit), and
    why."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


SHALLOW_TEXT = 2 * MAX_DEPTH
"""JSON text no longer than this cannot nest past the limit: each level takes two brackets."""


def too_deep(text: str, value: Any) -> bool:
    """Whether `value`, parsed from JSON `text`, nests past the limit (brackets counted
    first, so that only text with enough of them is walked)."""
    return text.count("[") + text.count("{") > MAX_DEPTH and nested_deeper_than(value, MAX_DEPTH)


def args_value(raw: Any) -> Any:
    """Arguments as a JSON value to compare, or `Unparsable`; never raises (it runs for every
    pair of calls compared). Nesting deeper than the answers' limit is refused here, so that
    the recursive comparisons below never meet it.

    Example:
        >>> args_value('{"x": 1}'), args_value(None), type(args_value("{x")).__name__
        ({'x': 1}, {}, 'Unparsable')
    """
    if raw is None:
        return {}
    if type(raw) is str:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            return Unparsable(f"arguments are not valid JSON ({exc.msg})")
        if len(raw) <= SHALLOW_TEXT or not too_deep(raw, value):
            return value
        return Unparsable(f"arguments nested deeper than {MAX_DEPTH} levels")
    else:
        try:
            value = parse_args(raw)
        except ArgsParseError as exc:
            return Unparsable(str(exc))
    if nested_deeper_than(value, MAX_DEPTH):
        return Unparsable(f"arguments nested deeper than {MAX_DEPTH} levels")
    return value


TextCompare = Callable[[Any, Any, str, str], bool]
"""`(actual, expected, actual_text, expected_text) -> bool` on values parsed from JSON text."""


def _bool_free(text: str) -> bool:
    # JSON spells its booleans out, so text without these words holds none.
    return "true" not in text and "false" not in text


def _same_bytes(x: Any, y: Any) -> bool:
    # Written with sorted keys, equal JSON values are the same bytes (and `1`, `1.0`, `true`
    # stay apart): a C-speed yes for values that `==` found equal.
    try:
        return orjson.dumps(x, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            y, option=orjson.OPT_SORT_KEYS
        )
    except orjson.JSONEncodeError:
        return False


def same_parsed(got: Any, wanted: Any, got_text: str, wanted_text: str) -> bool:
    """`same` for two values parsed from JSON texts, at the speed of Python's `==`.

    On JSON values `==` differs from `same` in one way only: it takes `true` for `1`. So a
    False from `==` is final, and a True is checked by `same` only when a text holds a
    boolean.

    Example:
        >>> same_parsed({"n": 1.0}, {"n": 1}, '{"n":1.0}', '{"n":1}')
        True
        >>> same_parsed({"n": True}, {"n": 1}, '{"n":true}', '{"n":1}')
        False
    """
    if got != wanted:
        return False
    return (
        (_bool_free(got_text) and _bool_free(wanted_text))
        or _same_bytes(got, wanted)
        or same(got, wanted)
    )


def contains_parsed(big: Any, small: Any, big_text: str, small_text: str) -> bool:
    """`contains` for two values parsed from JSON texts, with `==` (and a dict's items) tried
    first at C speed; nested containment and booleans take the general walk.

    Example:
        >>> contains_parsed({"a": 1, "b": 2}, {"a": 1}, '{"a":1,"b":2}', '{"a":1}')
        True
    """
    if big == small or (type(big) is dict and type(small) is dict and small.items() <= big.items()):
        return (
            (_bool_free(big_text) and _bool_free(small_text))
            or _same_bytes(big, small)
            or contains(big, small)
        )
    return contains(big, small)


def contained_parsed(got: Any, wanted: Any, got_text: str, wanted_text: str) -> bool:
    """`contains_parsed` the other way round: the actual value within the expected one."""
    return contains_parsed(wanted, got, wanted_text, got_text)


def text_comparison(mode: str) -> TextCompare:
    """The `TextCompare` of an argument mode other than `ignore`."""
    if mode == "superset":
        return contains_parsed
    if mode == "subset":
        return contained_parsed
    return same_parsed


def get_path(value: Any, path: str) -> Any:
    """The value at a dotted path (`time.start`, `items.0.id`), or `_MISSING`."""
    for part in path.split("."):
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        elif is_sequence(value) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


@dataclass(frozen=True, slots=True)
class ArgsRule:
    """How one tool's arguments are compared: a mode, field paths, or a callable."""

    mode: ArgsMode | None = None
    paths: tuple[str, ...] = ()
    matcher: Callable[[Any, Any], bool] | None = None

    @classmethod
    def build(cls, rule: Override, tool: str | None = None) -> ArgsRule:
        """Compile a mode name, a list of dotted paths or a callable.

        Raises:
            ValueError: an unknown mode, or a path list that is empty or not all strings.
        """
        where = f" for tool {tool!r}" if tool is not None else ""
        if isinstance(rule, str):
            if rule not in ARGS_MODES:
                known = ", ".join(ARGS_MODES)
                raise ValueError(f"unknown argument mode {rule!r}{where}; use one of: {known}")
            return cls(mode=rule)
        if callable(rule):
            return cls(matcher=rule)
        if isinstance(rule, Sequence) and rule and all(isinstance(p, str) and p for p in rule):
            return cls(paths=tuple(rule))
        raise ValueError(
            f"invalid argument rule{where}: {rule!r}; give a mode name, a non-empty list of "
            "dotted field paths, or a callable (actual_args, expected_args) -> bool"
        )

    def matches(self, actual: Any, expected: Any) -> bool:
        """Whether parsed `actual` arguments satisfy the parsed `expected` ones."""
        mode = self.mode
        if mode == "superset":
            return contains(actual, expected)
        if mode == "ignore":
            return True
        if mode == "exact":
            return same(actual, expected)
        if mode == "subset":
            return contains(expected, actual)
        if self.matcher is not None:
            try:
                return bool(self.matcher(actual, expected))
            except Exception:  # a matcher that trips over odd arguments has said "no"
                return False
        for path in self.paths:
            got, wanted = get_path(actual, path), get_path(expected, path)
            if got is _MISSING or wanted is _MISSING or not same(got, wanted):
                return False
        return True

    def explain(self, actual: Any, expected: Any) -> str:
        """Why `actual` does not satisfy `expected`, in one line."""
        if self.matcher is not None:
            try:
                self.matcher(actual, expected)
            except Exception as exc:
                return f"custom argument matcher raised {type(exc).__name__}: {exc}"[:200]
            return "custom argument matcher returned false"
        first = next(self.differences(actual, expected), None)
        if first is not None:
            return first.message
        return "arguments match" if self.paths else ""

    def differences(self, actual: Any, expected: Any) -> Iterator[ArgDifference]:
        """Each argument that breaks the rule, in the order `explain` looks at them (its
        first is the one `explain` names); nothing for a custom matcher, which cannot say.

        Example:
            >>> rule = ArgsRule.build("exact")
            >>> [(d.kind, d.path) for d in rule.differences({"b": 2, "c": 3}, {"a": 1, "b": 1})]
            [('missing', 'a'), ('different', 'b'), ('unexpected', 'c')]
        """
        if self.matcher is not None:
            return
        if self.paths:
            for path in self.paths:
                got, wanted = get_path(actual, path), get_path(expected, path)
                if got is _MISSING and wanted is _MISSING:
                    yield ArgDifference(
                        "missing", path, f"argument {path!r} missing on both sides"
                    )
                elif got is _MISSING:
                    yield ArgDifference(
                        "missing", path, f"argument {path!r} missing", expected=wanted
                    )
                elif wanted is _MISSING:
                    message = f"argument {path!r} missing from the expected call"
                    yield ArgDifference("unexpected", path, message, actual=got)
                elif not same(got, wanted):
                    yield _different(path, wanted, got)
            return
        missing, extra = {"superset": (True, False), "exact": (True, True)}.get(
            self.mode or "", (False, True)
        )
        yield from _differences(actual, expected, "", missing=missing, extra=extra)


@dataclass(frozen=True, slots=True)
class ArgDifference:
    """One argument that breaks an argument rule."""

    kind: str
    """`missing` (expected, absent from the actual call), `unexpected` (in the actual call,
    not expected, where the rule counts extras) or `different` (both there, not equal)."""

    path: str
    """The argument's dotted path (`time.start`); "" for the arguments as a whole."""

    message: str
    """The difference in words, as `ArgsRule.explain` gives it."""

    expected: Any = _MISSING
    """The expected value; `MISSING` when the expected call has none."""

    actual: Any = _MISSING
    """The actual value; `MISSING` when the actual call has none."""


def _differences(
    actual: Any, expected: Any, prefix: str, *, missing: bool, extra: bool
) -> Iterator[ArgDifference]:
    """The arguments that break the rule: missing keys (when `missing`), extra keys (when
    `extra`) and different values, dicts walked key by key."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key, value in expected.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in actual:
                if missing:
                    yield ArgDifference(
                        "missing", path, f"argument {path!r} missing", expected=value
                    )
                continue
            yield from _differences(actual[key], value, path, missing=missing, extra=extra)
        if extra:
            for key, value in actual.items():
                if key not in expected:
                    path = f"{prefix}.{key}" if prefix else str(key)
                    yield ArgDifference(
                        "unexpected", path, f"unexpected argument {path!r}", actual=value
                    )
        return
    if not same(actual, expected):
        yield _different(prefix, expected, actual)


def _different(path: str, expected: Any, got: Any) -> ArgDifference:
    message = _differs(path or "arguments", expected, got)
    return ArgDifference("different", path, message, expected=expected, actual=got)


def _differs(path: str, expected: Any, got: Any) -> str:
    label = "arguments" if path == "arguments" else f"argument {path!r}"
    return f"{label}: expected {_short(expected)}, got {_short(got)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def compile_rules(
    default: ArgsMode | str, overrides: Overrides | None
) -> tuple[ArgsRule, dict[str, ArgsRule]]:
    """The default rule and the per-tool rules, validated now rather than at first use.

    Raises:
        ValueError: an unknown mode or an invalid override.
    """
    base = ArgsRule.build(default)
    if base.mode is None:
        raise ValueError(f"args must be a mode name, got {default!r}")
    per_tool = {
        str(tool): ArgsRule.build(rule, str(tool)) for tool, rule in (overrides or {}).items()
    }
    return base, per_tool
