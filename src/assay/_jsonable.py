"""Values made safe for orjson: the one place that knows what orjson cannot write."""

from __future__ import annotations

from typing import Any

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
