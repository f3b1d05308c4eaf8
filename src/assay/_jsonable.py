"""Values made safe for orjson: the one place that knows what orjson cannot write."""

from __future__ import annotations

from typing import Any

import orjson

_INT_RANGE = range(-(2**63), 2**64)


def jsonable(value: Any) -> Any:
    """`value` with ints beyond 64 bits as strings, tuples as lists and keys as strings.

    Example:
        >>> jsonable({1: (2, 10**30)})
        {'1': [2, '1000000000000000000000000000000']}
    """
    if value is None or type(value) in (str, float, bool):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value in _INT_RANGE else str(value)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
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
    what it cannot (big ints, odd objects), else, past orjson's nesting limit, as one string.

    Example:
        >>> dumps_lenient({"n": 10**30})
        b'{"n":"1000000000000000000000000000000"}'
    """
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        pass
    try:
        return orjson.dumps(jsonable(value), option=option, default=str)
    except (TypeError, RecursionError):
        try:
            text = repr(value)
        except RecursionError:
            text = f"<{type(value).__name__} nested too deep to write>"
        return orjson.dumps(text)
