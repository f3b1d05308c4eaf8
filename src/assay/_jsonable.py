"""Values made safe for orjson: the one place that knows what orjson cannot write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from assay._text import escape_surrogates, text_of

_INT_RANGE = range(-(2**63), 2**64)

MISSING: Any = object()
"""A value no JSON document holds: "no such key" where None is a value."""


def jsonable(value: Any) -> Any:
    """`value` with ints beyond 64 bits as strings, tuples as lists, keys as strings, and lone
    surrogates in text (which UTF-8 cannot hold) as escapes (`assay._text`).

    Example:
        >>> jsonable({1: (2, 10**30), "a": "\\ud800"})
        {'1': [2, '1000000000000000000000000000000'], 'a': '\\\\ud800'}
    """
    if type(value) is str:
        return escape_surrogates(value)
    if value is None or type(value) in (float, bool):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value in _INT_RANGE else str(value)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {escape_surrogates(str(k)): jsonable(v) for k, v in value.items()}
    return value


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type, for messages.

    Example:
        >>> json_type(None), json_type(True), json_type(1.5), json_type([1]), json_type({})
        ('null', 'boolean', 'number', 'array', 'object')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_type_phrase(value: object) -> str:
    """`json_type` with its article, for messages.

    Example:
        >>> json_type_phrase(3), json_type_phrase([1]), json_type_phrase({})
        ('a number', 'an array', 'an object')
    """
    name = json_type(value)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether lists, tuples and dicts in `value` nest more than `limit` levels (no recursion:
    this is how over-deep input is refused before anything recursive touches it).

    Example:
        >>> nested_deeper_than({"a": [[1]]}, 3), nested_deeper_than({"a": [[1]]}, 2)
        (False, True)
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def dumps_lenient(value: Any, option: int = 0) -> bytes:
    """JSON for any value: as is when orjson can write it, else with `jsonable` and `str` for
    what it cannot (big ints, odd objects, `text_of` when their `str` raises), else, past
    orjson's nesting limit, as one string.

    Example:
        >>> dumps_lenient({"n": 10**30})
        b'{"n":"1000000000000000000000000000000"}'
    """
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        pass
    try:
        return orjson.dumps(jsonable(value), option=option, default=text_of)
    except (TypeError, RecursionError):
        try:
            text = repr(value)
        except RecursionError:
            text = f"<{type(value).__name__} nested too deep to write>"
        except Exception:
            text = text_of(value)
        return orjson.dumps(escape_surrogates(text))


def same(x: Any, y: Any) -> bool:
    """Whether two JSON-like values are equal: numbers by value, booleans apart from numbers.

    Example:
        >>> same({"n": 1, "t": (1, 2)}, {"n": 1.0, "t": [1, 2]}), same(True, 1)
        (True, False)
    """
    tx, ty = type(x), type(y)
    if tx is ty:
        if tx is dict:
            return len(x) == len(y) and all(
                (other := y.get(key, MISSING)) is not MISSING and same(value, other)
                for key, value in x.items()
            )
        if tx is list or tx is tuple:
            return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
        return bool(x == y)
    if tx in _NUMBERS and ty in _NUMBERS:  # exact types: bool is not among them
        return bool(x == y)
    return _same_slow(x, y)


_NUMBERS = (int, float)


def _same_slow(x: Any, y: Any) -> bool:
    # Subclasses and mixed containers: rarely met, so checked after the exact-type cases.
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, int | float) and isinstance(y, int | float):
        return bool(x == y)
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        return len(x) == len(y) and all(
            key in y and same(value, y[key]) for key, value in x.items()
        )
    if is_sequence(x) and is_sequence(y):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, str) and isinstance(y, str):
        return str(x) == str(y)
    return x is None and y is None


def is_sequence(value: Any) -> bool:
    """Whether `value` is a sequence other than text (a JSON array, or a tuple).

    Example:
        >>> is_sequence((1,)), is_sequence("ab")
        (True, False)
    """
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def contains(big: Any, small: Any) -> bool:
    """Whether `small` is contained in `big`: dict keys recursively, other values equal.

    Example:
        >>> contains({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": 2}})
        True
    """
    if (type(small) is dict and type(big) is dict) or (
        isinstance(small, Mapping) and isinstance(big, Mapping)
    ):
        for key, value in small.items():
            other = big.get(key, MISSING)
            if other is MISSING:
                return False
            kind = type(value)
            if kind is type(other) and kind in _PLAIN:  # same-typed scalars: plain equality
                if other != value:
                    return False
            elif not contains(other, value):
                return False
        return True
    return same(big, small)


_PLAIN = frozenset({str, int, float, bool, type(None)})
