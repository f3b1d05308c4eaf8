"""Plain Python functions as OpenAI function tools: the JSON schema of their parameters, built
from the signature and type hints, and the check of the arguments a model sends.

Supported parameter types: `str`, `int`, `float`, `bool`, `list[...]`, `tuple[...]`,
`dict[str, ...]`, `X | None` (`Optional`), unions, `Literal[...]`, `Enum` subclasses,
`Annotated[X, "description"]`, and no annotation or `Any` (any JSON value). The first line of
the docstring is the tool's description; a Google-style `Args:` section describes the
parameters. A function decorated with `assay.live.capture.tool` is run undecorated (the caller
records its calls itself) under the decorator's name.

Example:
    >>> def get_weather(city: str, units: Literal["C", "F"] = "C") -> str:
    ...     '''The weather in a city today.
    ...
    ...     Args:
    ...         city: The city's name.
    ...     '''
    ...     return "sunny"
    >>> spec = function_tool(get_weather)
    >>> spec.definition()["function"]["description"]
    'The weather in a city today.'
    >>> spec.parameters["properties"]["units"], spec.parameters["required"]
    ({'enum': ['C', 'F'], 'type': 'string'}, ['city'])
    >>> spec.check({"city": 3})
    Traceback (most recent call last):
    ...
    assay.live.agents._tool_schema.ArgumentsError: city: expected a string, got number
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from assay._jsonable import json_type

__all__ = ["ArgumentsError", "ToolSpec", "function_tool"]


class ArgumentsError(ValueError):
    """Arguments a model sent that the tool cannot be called with."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its name, description and parameter schema, and the function that runs it."""

    name: str
    """The name the model calls it by."""

    description: str
    """The first line of its docstring ("" when it has none)."""

    parameters: dict[str, Any]
    """JSON schema (an object) of its arguments."""

    function: Callable[..., Any]
    """What runs the call (the undecorated function, for a function decorated with `tool`)."""

    is_async: bool
    """Whether `function` is a coroutine function."""

    accepts_more: bool
    """The function takes `**kwargs`: arguments beyond its named parameters are passed on."""

    def definition(self) -> dict[str, Any]:
        """The OpenAI function tool (`{"type": "function", "function": {...}}`)."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}

    def check(self, args: Any) -> dict[str, Any]:
        """The arguments to call the function with.

        Raises:
            ArgumentsError: not a JSON object, a required argument missing, an unknown one, or
                a value that does not fit its parameter's schema.
        """
        if isinstance(args, str):
            raise ArgumentsError(f"arguments are not a JSON object: {args[:200]!r}")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ArgumentsError(f"arguments are {json_type(args)}, not a JSON object")
        properties: dict[str, Any] = self.parameters["properties"]
        missing = [name for name in self.parameters.get("required", ()) if name not in args]
        if missing:
            raise ArgumentsError(f"missing required argument {missing[0]!r}")
        if not self.accepts_more:
            unknown = [name for name in args if name not in properties]
            if unknown:
                known = ", ".join(properties) or "none"
                raise ArgumentsError(f"unknown argument {unknown[0]!r} (parameters: {known})")
        for name, value in args.items():
            if name in properties:
                _check(properties[name], value, name)
        return dict(args)


def function_tool(function: Callable[..., Any]) -> ToolSpec:
    """The tool of a plain Python function (sync or async, decorated with `tool` or not).

    Raises:
        TypeError: not a function, a parameter that is positional-only or `*args`, or a type
            hint with no JSON schema.
    """
    if not callable(function):
        raise TypeError(f"a tool must be a function, not {type(function).__name__}")
    name = getattr(function, "__assay_tool__", None)
    if isinstance(name, str):
        # Decorated with `tool`: run the function itself, so that its call is not recorded
        # twice (the agent records each call with the model's call id).
        function = function.__wrapped__  # type: ignore[attr-defined]
    else:
        name = getattr(function, "__name__", None)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise TypeError(
            f"tool name {name!r} is not 1 to 64 letters, digits, '_' or '-' (give the function "
            "another name, or decorate it with @tool(name=...))"
        )
    signature = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # a hint naming something that does not exist
        raise TypeError(f"tool {name}: its type hints cannot be read: {exc}") from None
    doc = inspect.getdoc(function) or ""
    described = _argument_descriptions(doc)
    properties: dict[str, Any] = {}
    required: list[str] = []
    accepts_more = False
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            accepts_more = True
            continue
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.POSITIONAL_ONLY):
            raise TypeError(
                f"tool {name}: parameter {parameter.name!r} cannot be given by name "
                "(a model sends arguments by name)"
            )
        where = f"tool {name}: parameter {parameter.name!r}"
        schema = _schema(hints.get(parameter.name, Any), where)
        if parameter.name in described and "description" not in schema:
            schema = {**schema, "description": described[parameter.name]}
        properties[parameter.name] = schema
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if not accepts_more:
        parameters["additionalProperties"] = False
    return ToolSpec(
        name=name,
        description=doc.strip().splitlines()[0].strip() if doc.strip() else "",
        parameters=parameters,
        function=function,
        is_async=inspect.iscoroutinefunction(function),
        accepts_more=accepts_more,
    )


_SIMPLE: dict[Any, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _schema(hint: Any, where: str) -> dict[str, Any]:
    """The JSON schema of a type hint."""
    if hint is Any or hint is object:
        return {}
    if hint is None or hint is type(None):
        return {"type": "null"}
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum([member.value for member in hint], where)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        schema = _schema(args[0], where)
        notes = [note for note in args[1:] if isinstance(note, str)]
        return {**schema, "description": notes[0]} if notes else schema
    if origin is Literal:
        return _enum(list(args), where)
    if origin is Union or origin is types.UnionType:
        options = [_schema(arg, where) for arg in args]
        return {"anyOf": options}
    if hint is list or origin is list or hint is tuple or origin is tuple:
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema(args[0], where)}
        if origin is tuple and args:
            return {"type": "array", "prefixItems": [_schema(a, where) for a in args]}
        return {"type": "array", "items": _schema(args[0], where)} if args else {"type": "array"}
    if hint is dict or origin is dict:
        if args and args[0] is not str:
            raise TypeError(f"{where}: a JSON object's keys are text, not {args[0]!r}")
        if len(args) == 2:
            return {"type": "object", "additionalProperties": _schema(args[1], where)}
        return {"type": "object"}
    raise TypeError(
        f"{where}: type {hint!r} has no JSON schema here; use str, int, float, bool, list, "
        "dict, Optional, Literal or an Enum"
    )


def _enum(values: list[Any], where: str) -> dict[str, Any]:
    kinds = {_SIMPLE.get(type(value)) for value in values}
    if None in kinds and any(value is not None for value in values):
        raise TypeError(f"{where}: choices must be text, numbers or booleans")
    schema: dict[str, Any] = {"enum": values}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    return schema


_EXPECTED = {
    "string": "a string",
    "boolean": "true or false",
    "integer": "a whole number",
    "number": "a number",
    "null": "null",
    "array": "an array",
    "object": "an object",
}


def _check(schema: Mapping[str, Any], value: Any, where: str) -> None:
    """Raise `ArgumentsError` where `value` does not fit `schema` (the subset `_schema` makes)."""
    if "anyOf" in schema:
        problems = []
        for option in schema["anyOf"]:
            try:
                _check(option, value, where)
            except ArgumentsError as exc:
                problems.append(str(exc))
            else:
                return
        raise ArgumentsError(" and ".join(dict.fromkeys(problems)) or f"{where}: no option fits")
    if "enum" in schema:
        if not any(value == choice and type(value) is type(choice) for choice in schema["enum"]):
            allowed = ", ".join(repr(choice) for choice in schema["enum"])
            raise ArgumentsError(f"{where}: {value!r} is not one of {allowed}")
        return
    kind = schema.get("type")
    ok = {
        None: True,
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "null": value is None,
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }[kind]
    if not ok:
        raise ArgumentsError(f"{where}: expected {_EXPECTED[str(kind)]}, got {json_type(value)}")
    if kind == "array":
        if "prefixItems" in schema:
            items = schema["prefixItems"]
            if len(value) != len(items):
                raise ArgumentsError(f"{where}: expected {len(items)} items, got {len(value)}")
            for index, (item, sub) in enumerate(zip(value, items, strict=True)):
                _check(sub, item, f"{where}[{index}]")
        elif "items" in schema:
            for index, item in enumerate(value):
                _check(schema["items"], item, f"{where}[{index}]")
    elif kind == "object" and "additionalProperties" in schema:
        for key, item in value.items():
            _check(schema["additionalProperties"], item, f"{where}.{key}")


def _argument_descriptions(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google-style `Args:` section."""
    found: dict[str, str] = {}
    lines = doc.splitlines()
    inside = False
    indent: int | None = None
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if not inside:
            inside = stripped in ("Args:", "Arguments:", "Parameters:")
            continue
        if not stripped:
            current = None
            continue
        depth = len(line) - len(line.lstrip())
        if depth == 0:
            break  # the next section
        if indent is None:
            indent = depth
        match = re.match(r"(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)", stripped)
        if depth == indent and match:
            current = match.group(1).lstrip("*")
            found[current] = match.group(2).strip()
        elif current is not None and depth > indent:
            found[current] = f"{found[current]} {stripped}".strip()
    return found
