"""Types and option values as people and JSON reports read them.

Example:
    >>> from pathlib import Path
    >>> type_name(int | None), json_ready({"cache_dir": Path("c"), "api_key": "sk-1"})
    ('int | None', {'cache_dir': 'c', 'api_key': '<redacted>'})
"""

from __future__ import annotations

import collections.abc
import enum
import math
import re
import types
import typing
from pathlib import PurePath
from typing import Any

REDACTED = "<redacted>"
"""What a secret's value shows as."""

_SECRET = re.compile(
    r"(?:^|_)(?:api_?key|secret|password|passwd|token|auth|authorization|credentials?)$",
    re.IGNORECASE,
)
"""Option and mapping keys whose values are secrets (`api_key`, `access_token`, ... but not
`max_tokens`)."""

_MAX_DEPTH = 20


def is_secret(key: str) -> bool:
    """Whether a value under `key` is a secret, never to be written.

    Example:
        >>> is_secret("api_key"), is_secret("OPENAI_API_KEY"), is_secret("max_tokens")
        (True, True, False)
    """
    return _SECRET.search(key) is not None


def json_ready(value: Any, key: str = "", _depth: int = 0) -> Any:
    """`value` as JSON-ready data: paths as strings, tuples and sets as lists, mappings with
    string keys, functions and classes by their qualified name, other objects by their repr
    (or their type when the repr is Python's default, which holds a memory address); values
    under secret-looking keys (see `is_secret`) as `<redacted>`.

    Example:
        >>> json_ready({"budget": None, "prices": {"m": (1.0, 2.0)}, "nan": float("nan")})
        {'budget': None, 'prices': {'m': [1.0, 2.0]}, 'nan': 'nan'}
        >>> json_ready(len), json_ready(object())
        ('builtins.len', '<builtins.object>')
    """
    if key and is_secret(key) and value is not None:
        return REDACTED
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, enum.Enum):
        return json_ready(value.value, "", _depth + 1)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, PurePath):
        return str(value)
    if _depth >= _MAX_DEPTH:
        return _summary(value)
    if isinstance(value, collections.abc.Mapping):
        return {str(k): json_ready(v, str(k), _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v, "", _depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        items = [json_ready(v, "", _depth + 1) for v in value]
        return sorted(items, key=repr)  # a set has no order of its own; a report should
    return _summary(value)


def _summary(value: Any) -> str:
    if isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        return f"{getattr(value, '__module__', '?')}.{value.__qualname__}"
    text = repr(value)
    if " at 0x" in text or " object at " in text or text.startswith("<"):
        kind = type(value)
        return f"<{kind.__module__}.{kind.__qualname__}>"
    return text


def type_name(kind: Any) -> str:
    """A type annotation as people read it.

    Example:
        >>> from collections.abc import Iterable, Mapping
        >>> from typing import Literal
        >>> type_name(Mapping[str, Iterable[str]] | None)
        'Mapping[str, Iterable[str]] | None'
        >>> type_name(Literal["content", "position"])
        "Literal['content', 'position']"
    """
    if kind is type(None) or kind is None:
        return "None"
    if kind is Any:
        return "Any"
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin is typing.Union or origin is types.UnionType:
        return " | ".join(type_name(arg) for arg in args)
    if origin is typing.Literal:
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin is collections.abc.Callable:
        return "Callable"
    if origin is not None:
        inner = ", ".join("..." if arg is Ellipsis else type_name(arg) for arg in args)
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{inner}]" if inner else name
    if isinstance(kind, type):
        return kind.__name__
    return str(kind).replace("typing.", "")
