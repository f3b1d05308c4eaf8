"""Option values from command-line text, converted to the option's annotated type.

`str`, `Path`, `int`, `float` and `bool` (`true`/`false`/`1`/`0`/`yes`/`no`) come from the
text itself; `Literal` choices by name; `X | None` as `X`, or None for the text `null`; lists
of plain values comma-separated or as a JSON array; everything else (mappings, nested
structures, `Any`) as JSON, checked against the type. Nothing is guessed: a value that does
not fit is an `OptionValueError` saying what was expected.

Example:
    >>> from typing import Literal
    >>> from_text("0.7", float), from_text("yes", bool), from_text("a, b", list[str])
    (0.7, True, ['a', 'b'])
    >>> from_text("fast", Literal["content", "position"])
    Traceback (most recent call last):
        ...
    assay.scorers._convert.OptionValueError: expected one of 'content', 'position'; got 'fast'
"""

from __future__ import annotations

import collections.abc
import math
import types
import typing
from pathlib import Path, PurePath
from typing import Any

import orjson

from assay._jsonable import json_type_phrase, nested_deeper_than
from assay.scorers._describe import type_name


class OptionValueError(ValueError):
    """A value that does not fit the option's type."""


_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")
_SEQUENCES = (
    list,
    tuple,
    set,
    frozenset,
    collections.abc.Sequence,
    collections.abc.Iterable,
    collections.abc.Collection,
    collections.abc.Set,
)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_PLAIN = (str, int, float, bool)
_MAX_DEPTH = 32  # option values are small; deeper JSON is a mistake, not data


def from_text(text: str, kind: Any) -> Any:
    """`text` as a value of the type `kind` (see the module documentation).

    Raises:
        OptionValueError: the text does not convert, saying what was expected.
    """
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if _is_union(origin):
        members = [arg for arg in args if arg is not type(None)]
        if len(members) < len(args) and text.strip() == "null":
            return None
        if len(members) == 1:
            return from_text(text, members[0])
        return _union_from_text(text, members)
    if origin is typing.Literal:
        for choice in args:
            if text == str(choice) or (isinstance(choice, bool) and _bool_or_none(text) is choice):
                return choice
        raise OptionValueError(
            f"expected one of {', '.join(repr(str(a)) for a in args)}; got {text!r}"
        )
    if kind is str:
        return text
    if kind in (Path, PurePath):
        if not text:
            raise OptionValueError("expected a path; got nothing")
        return Path(text)
    if kind is bool:
        found = _bool_or_none(text)
        if found is None:
            raise OptionValueError(f"expected true or false (or yes/no, 1/0); got {text!r}")
        return found
    if kind is int:
        try:
            return int(text.strip())
        except ValueError:
            raise OptionValueError(f"expected a whole number; got {text!r}") from None
    if kind is float:
        try:
            number = float(text.strip())
        except ValueError:
            raise OptionValueError(f"expected a number; got {text!r}") from None
        if not math.isfinite(number):
            raise OptionValueError(f"expected a finite number; got {text!r}")
        return number
    if origin in _SEQUENCES and not text.lstrip().startswith("["):
        element = _element_type(origin, args)
        if element is not None and _plain(element):
            items = [item.strip() for item in text.split(",")] if text.strip() else []
            converted = [from_text(item, element) for item in items]
            return tuple(converted) if origin is tuple else converted
    if origin is collections.abc.Callable or kind is collections.abc.Callable:
        raise OptionValueError("a function cannot be given on the command line")
    return check(_json(text, kind), kind)


def check(value: Any, kind: Any, where: str = "") -> Any:
    """A parsed JSON `value` checked against the type `kind` (tuples and paths made so).

    Example:
        >>> from collections.abc import Mapping, Iterable
        >>> check({"a": ["b"]}, Mapping[str, Iterable[str]])
        {'a': ['b']}
        >>> check({"a": "b"}, Mapping[str, list[str]])
        Traceback (most recent call last):
            ...
        assay.scorers._convert.OptionValueError: at a: expected list[str], got a string

    Raises:
        OptionValueError: the value does not fit, saying where.
    """
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if kind is Any or kind is object:
        return value
    if kind is type(None) or kind is None:
        if value is None:
            return None
        raise _misfit(kind, value, where)
    if _is_union(origin):
        for member in args:
            try:
                return check(value, member, where)
            except OptionValueError:
                continue
        raise _misfit(kind, value, where)
    if origin is typing.Literal:
        if value in args and type(value) in {type(a) for a in args}:
            return value
        raise _misfit(kind, value, where)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise _misfit(kind, value, where)
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _misfit(kind, value, where)
    if kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise _misfit(kind, value, where)
    if kind is str:
        if isinstance(value, str):
            return value
        raise _misfit(kind, value, where)
    if kind in (Path, PurePath):
        if isinstance(value, str) and value:
            return Path(value)
        raise _misfit(kind, value, where)
    if origin is tuple and args and args[-1] is not Ellipsis:
        if not isinstance(value, list) or len(value) != len(args):
            raise _misfit(kind, value, where)
        pairs = enumerate(zip(value, args, strict=True))
        return tuple(check(v, a, _at(where, i)) for i, (v, a) in pairs)
    if origin in _SEQUENCES or kind in _SEQUENCES:
        if not isinstance(value, list):
            raise _misfit(kind, value, where)
        element = _element_type(origin, args) or Any
        items = [check(v, element, _at(where, i)) for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin in _MAPPINGS or kind in _MAPPINGS:
        if not isinstance(value, dict):
            raise _misfit(kind, value, where)
        key_type, value_type = args if len(args) == 2 else (Any, Any)
        return {
            check(k, key_type, where): check(v, value_type, _at(where, k))
            for k, v in value.items()
        }
    raise OptionValueError(
        f"{f'at {where}: ' if where else ''}a {type_name(kind)} cannot be given on the "
        "command line"
    )


def _json(text: str, kind: Any) -> Any:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        if kind is Any or kind is object:  # an option of no declared type: JSON, said plainly
            raise OptionValueError(
                f"expected a JSON value (a string in double quotes); got {text!r}"
            ) from None
        raise OptionValueError(f"expected {type_name(kind)} as JSON; got {text!r}") from None
    if nested_deeper_than(value, _MAX_DEPTH):
        raise OptionValueError(f"JSON nested more than {_MAX_DEPTH} levels deep")
    return value


def _union_from_text(text: str, members: list[Any]) -> Any:
    """A value for one of several types: JSON that fits one of them, else the text itself
    when a string is allowed."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = _NOT_JSON
    if value is not _NOT_JSON and not nested_deeper_than(value, _MAX_DEPTH):
        for member in members:
            if member is str:
                continue
            try:
                return check(value, member)
            except OptionValueError:
                continue
    if str in members:
        return text
    raise OptionValueError(
        f"expected {' | '.join(type_name(m) for m in members)} as JSON; got {text!r}"
    )


_NOT_JSON = object()


def _is_union(origin: Any) -> bool:
    return origin is typing.Union or origin is types.UnionType


def _bool_or_none(text: str) -> bool | None:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    return None


def _element_type(origin: Any, args: tuple[Any, ...]) -> Any:
    if origin is tuple:
        return args[0] if len(args) == 2 and args[1] is Ellipsis else None
    return args[0] if args else None


def _plain(kind: Any) -> bool:
    """Whether a list of `kind` reads comma-separated: plain values or a choice of them."""
    if kind in _PLAIN:
        return True
    origin = typing.get_origin(kind)
    if origin is typing.Literal:
        return True
    if _is_union(origin):
        return all(_plain(arg) or arg is type(None) for arg in typing.get_args(kind))
    return False


def _at(where: str, key: Any) -> str:
    return f"{where}.{key}" if where else str(key)


def _misfit(kind: Any, value: Any, where: str) -> OptionValueError:
    prefix = f"at {where}: " if where else ""
    return OptionValueError(f"{prefix}expected {type_name(kind)}, got {json_type_phrase(value)}")
