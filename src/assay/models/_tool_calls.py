"""Tool calls in a chat-completions reply: read from `message.tool_calls`, written back into
an assistant message, and kept in the cache.

Example:
    >>> calls = read_tool_calls("m", [{"id": "c1", "type": "function",
    ...     "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}])
    >>> calls
    (ToolCall(name='add', args={'a': 1, 'b': 2}, call_id='c1', result=None),)
    >>> arguments_text(calls[0])
    '{"a":1,"b":2}'
    >>> load_tool_calls(dump_tool_calls(calls)) == calls
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from assay.models.types import ModelResponseError
from assay.records import ToolCall

__all__ = ["arguments_text", "dump_tool_calls", "load_tool_calls", "read_tool_calls"]


def read_tool_calls(model: str, items: Any) -> tuple[ToolCall, ...]:
    """The calls of a reply's `message.tool_calls` (None or absent: no calls).

    Arguments that are the JSON text of an object become a dict; an empty text becomes `{}`
    (some servers send "" for a tool without parameters); any other text is kept as it is,
    for the caller to refuse. A dict sent as the arguments themselves is kept.

    Raises:
        ModelResponseError: `tool_calls` is not a list, or an item names no function.

    Example:
        >>> read_tool_calls("m", [{"function": {"name": "f", "arguments": "not json"}}])
        (ToolCall(name='f', args='not json', call_id=None, result=None),)
        >>> read_tool_calls("m", [{"type": "function", "function": {}}])
        Traceback (most recent call last):
        ...
        assay.models.types.ModelResponseError: m: tool call 0 of the reply names no function
    """
    if items is None:
        return ()
    if not isinstance(items, list):
        raise ModelResponseError(f"{model}: the reply's tool_calls is not a list")
    calls = []
    for index, item in enumerate(items):
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise ModelResponseError(f"{model}: tool call {index} of the reply names no function")
        assert isinstance(function, dict) and isinstance(item, dict)
        call_id = item.get("id")
        calls.append(
            ToolCall(
                name,
                _arguments(function.get("arguments")),
                call_id if isinstance(call_id, str) and call_id else None,
            )
        )
    return tuple(calls)


def _arguments(raw: Any) -> dict[str, Any] | str | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return orjson.dumps(raw).decode() if _dumpable(raw) else str(raw)
    if not raw.strip():
        return {}
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    return value if isinstance(value, dict) else raw


def _dumpable(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True


def arguments_text(call: ToolCall) -> str:
    """The call's arguments as the `arguments` text of an assistant message: JSON for a dict,
    the raw text as it came, `{}` for none."""
    if call.args is None:
        return "{}"
    if isinstance(call.args, str):
        return call.args
    return orjson.dumps(call.args, default=str).decode()


def dump_tool_calls(calls: Sequence[ToolCall]) -> str:
    """The calls as JSON text for the cache: name, arguments, id."""
    return orjson.dumps(
        [{"name": c.name, "args": c.args, "id": c.call_id} for c in calls], default=str
    ).decode()


def load_tool_calls(text: str | None) -> tuple[ToolCall, ...]:
    """The calls `dump_tool_calls` wrote (None or "": none).

    Raises:
        ValueError: the text is not what `dump_tool_calls` writes.
    """
    if not text:
        return ()
    try:
        items = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"stored tool calls are not JSON ({exc.msg})") from None
    if not isinstance(items, list):
        raise ValueError("stored tool calls are not a list")
    calls = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str):
            raise ValueError("a stored tool call has no name")
        assert isinstance(item, dict)
        args = item.get("args")
        call_id = item.get("id")
        calls.append(
            ToolCall(
                name,
                args if isinstance(args, dict | str) else None,
                call_id if isinstance(call_id, str) else None,
            )
        )
    return tuple(calls)
