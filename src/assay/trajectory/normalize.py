"""Whatever a user calls a trajectory, as one list of steps of calls.

Accepted anywhere a trajectory is expected: a list of tool names; a list of `ToolCall`
objects or call dicts (`{"name", "args"}`, `{"function": {"name", "arguments"}}`,
`{"tool_name", "tool_input"}`); a nested list per step of parallel calls; `TrajectoryStep`s;
chat messages (OpenAI-style dicts with assistant `tool_calls`, LangChain / LangGraph message
objects or dicts, serialised LangChain messages); an assay `Trajectory`. Steps without calls
(a turn that only wrote text) are dropped: message text is not part of a trajectory check.

Example:
    >>> [[c.name for c in step] for step in to_steps(["a", ["b", "c"]])]
    [['a'], ['b', 'c']]
    >>> messages = [{"role": "assistant", "tool_calls": [
    ...     {"id": "1", "type": "function",
    ...      "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}]
    >>> step = to_steps(messages)[0]; (step[0].name, step[0].args)
    ('get_weather', '{"city": "Paris"}')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from assay.records import Step, ToolCall, Trajectory
from assay.trajectory.args import ArgsParseError, Unparsable, args_value
from assay.trajectory.spec import StepType, TrajectoryStep

Kind = Literal["tool", "node"]


class Call:
    """One call (or node entry) in a normalised trajectory; arguments parsed when needed."""

    __slots__ = ("_parsed", "args", "kind", "name")

    def __init__(self, name: str, args: Any, kind: Kind = "tool") -> None:
        self.name = name
        self.args = args
        """Arguments as given: a dict, JSON text, another value, or None when none were
        given (a bare name), in which case any arguments do."""
        self.kind: Kind = kind
        self._parsed: Any = _UNPARSED

    def parsed(self) -> Any:
        """The arguments as a JSON value, parsed once.

        Raises:
            ArgsParseError: they are text that is not JSON.
        """
        value = self.value()
        if type(value) is Unparsable:
            raise ArgsParseError(value.reason)
        return value

    def value(self) -> Any:
        """The arguments as a JSON value, parsed once, or `Unparsable` (see `args_value`)."""
        value = self._parsed
        if value is _UNPARSED:
            value = self._parsed = args_value(self.args)
        return value

    def describe(self) -> str:
        """`name` or `name {args}` for messages."""
        if self.kind == "node":
            return f"node {self.name}"
        if self.args is None:
            return self.name
        try:
            shown = self.args if isinstance(self.args, str) else repr(self.args)
        except RecursionError:  # arguments nested past what repr can walk
            shown = f"<{type(self.args).__name__} nested too deep to show>"
        if len(shown) > 80:
            shown = shown[:79] + "…"
        return f"{self.name} {shown}"


_UNPARSED = object()


Steps = list[tuple[Call, ...]]


def to_steps(value: Any) -> Steps:
    """The trajectory `value` as steps of calls (see the module docstring for what is accepted).

    Raises:
        TypeError: `value` is none of the accepted shapes.
    """
    if type(value) is list:  # the usual case first: the checks below are slower
        items: list[Any] = value
        if items and _is_message(items[0]):
            return _from_messages(items)
        return _from_items(items)
    if isinstance(value, Trajectory):
        return _from_run_steps(value.steps) if value.steps else _from_messages(value.messages)
    if isinstance(value, Mapping):
        messages = value.get("messages")
        if isinstance(messages, Sequence) and not isinstance(messages, str):
            return _from_messages(messages)
        raise TypeError(
            "a trajectory given as a dict needs a 'messages' list; got keys "
            + ", ".join(repr(k) for k in list(value)[:5])
        )
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"expected a list of tool calls or messages, got {type(value).__name__}")
    return _from_items(list(value))


def _from_items(items: list[Any]) -> Steps:
    if any(_is_message(item) for item in items):
        return _from_messages(items)
    steps: Steps = []
    for index, item in enumerate(items):
        if isinstance(item, list | tuple):
            calls = tuple(_call(part, index) for part in item)
        else:
            calls = (_call(item, index),)
        if calls:
            steps.append(calls)
    return steps


def _call(item: Any, step: int) -> Call:
    if isinstance(item, str):
        return Call(item, None)
    if isinstance(item, ToolCall):
        return Call(item.name, item.args)
    if isinstance(item, TrajectoryStep):
        if item.type is StepType.NODE:
            return Call(item.name, None, "node")
        call = item.call
        args = call.args if call is not None else None
        return Call(item.name, args)
    if isinstance(item, Mapping):
        call = ToolCall.from_mapping(item)
        if call is not None:
            return Call(call.name, call.args)
    attribute = getattr(item, "name", None)
    if isinstance(attribute, str) and not isinstance(item, Mapping):
        args = getattr(item, "args", None)
        if args is None:
            args = getattr(item, "arguments", None)
        return Call(attribute, args)
    raise TypeError(f"cannot read a tool call from {type(item).__name__}: {item!r:.80}")


def _call_from_mapping(item: Mapping[str, Any]) -> tuple[str, Any] | None:
    """(name, args) of a call dict in any of the usual spellings, or None."""
    call = ToolCall.from_mapping(item)
    return None if call is None else (call.name, call.args)


# --- messages --------------------------------------------------------------------------------

_AI_TYPES = {"ai", "assistant", "AIMessage", "AIMessageChunk"}
_MESSAGE_KEYS = ("role", "type", "lc")
_MESSAGE_TYPES = {
    "ai",
    "human",
    "tool",
    "system",
    "function",
    "assistant",
    "user",
    "developer",
    "AIMessage",
    "HumanMessage",
    "ToolMessage",
    "SystemMessage",
    "AIMessageChunk",
    "constructor",
}


def _is_message(item: Any) -> bool:
    if type(item) is dict:  # the usual case, before the general Mapping test below
        kind = item.get("role") or item.get("type")
        if "function" in item:
            return False  # an OpenAI tool call: {"type": "function", "function": {...}}
        return ("lc" in item and "kwargs" in item) or (
            isinstance(kind, str) and kind in _MESSAGE_TYPES
        )
    if isinstance(item, Mapping):
        if "lc" in item and "kwargs" in item:
            return True
        kind = item.get("role", item.get("type"))
        return isinstance(kind, str) and kind in _MESSAGE_TYPES and "function" not in item
    if isinstance(item, str | bytes | ToolCall | TrajectoryStep | list | tuple):
        return False
    kind = getattr(item, "type", None)
    if not isinstance(kind, str):
        kind = getattr(item, "role", None)
    return isinstance(kind, str) and kind in _MESSAGE_TYPES


def _from_messages(messages: Iterable[Any]) -> Steps:
    """One step per assistant message with tool calls; the rest says nothing about calls.

    A LangChain / LangGraph AI message that names its agent (`name`, as LangGraph's
    multi-agent messages do) enters that node; entering a node is a step of its own, before
    the calls made in it. An OpenAI-style message (keyed by `role`) enters no node: its
    `name` only names a participant of the chat.
    """
    steps: Steps = []
    previous_node: str | None = None
    for index, message in enumerate(messages):
        if type(message) is dict and "lc" not in message:
            # Plain dict messages are the common case: read them without the general path.
            kind = message.get("role") or message.get("type")
            if kind not in _AI_TYPES:
                continue
            raw_calls = message.get("tool_calls")
            if not raw_calls:
                extra = message.get("additional_kwargs")
                if type(extra) is dict:
                    raw_calls = extra.get("tool_calls")
            function_call = None if raw_calls else message.get("function_call")
            # Only LangChain / LangGraph messages (keyed by `type`) name a node; an OpenAI
            # message's `name` is a participant's name, which says nothing about the graph.
            node = message.get("name") if "role" not in message else None
            if type(node) is not str or not node:
                node = None
        else:
            fields = _message_fields(message)
            if fields is None or fields[0] not in _AI_TYPES:
                continue
            _, raw_calls, function_call, node = fields
        calls: list[Call] = []
        if type(raw_calls) is list:
            for raw in raw_calls:
                function = raw.get("function") if type(raw) is dict else None
                if type(function) is dict:  # OpenAI: {"id", "type", "function": {...}}
                    name = function.get("name")
                    if type(name) is str:
                        calls.append(Call(name, function.get("arguments")))
                else:
                    calls.extend(_calls_of([raw], index))
        elif raw_calls:
            calls = _calls_of(raw_calls, index)
        if not calls and function_call is not None and isinstance(function_call, Mapping):
            # A legacy single function call.
            parsed = _call_from_mapping(function_call)
            if parsed is not None:
                calls.append(Call(parsed[0], parsed[1]))
        if node is not None and node != previous_node:
            steps.append((Call(node, None, "node"),))
        previous_node = node if node is not None else previous_node
        if calls:
            steps.append(tuple(calls))
    return steps


def _calls_of(raw_calls: Any, index: int) -> list[Call]:
    calls: list[Call] = []
    if not isinstance(raw_calls, list | tuple):
        return calls
    for raw in raw_calls:
        if type(raw) is dict:
            function = raw.get("function")
            if type(function) is dict:  # OpenAI: {"id", "type", "function": {name, arguments}}
                name, args = function.get("name"), function.get("arguments")
                if type(name) is str:
                    calls.append(Call(name, args))
                continue
        parsed = _call_from_mapping(raw) if isinstance(raw, Mapping) else None
        if parsed is None and not isinstance(raw, Mapping):
            name = getattr(raw, "name", None)
            if isinstance(name, str):
                parsed = (name, getattr(raw, "args", None))
        if parsed is not None:
            calls.append(Call(parsed[0], parsed[1]))
    return calls


def _message_fields(message: Any) -> tuple[str, Any, Any, str | None] | None:
    """(kind, tool calls, legacy function call, agent name) of one message, or None."""
    if isinstance(message, Mapping):
        if "lc" in message and isinstance(message.get("kwargs"), Mapping):
            ids = message.get("id")
            kind = ids[-1] if isinstance(ids, list) and ids and isinstance(ids[-1], str) else ""
            message = message["kwargs"]
        else:
            kind = message.get("role") or message.get("type") or ""
        raw_calls = message.get("tool_calls")
        extra = message.get("additional_kwargs")
        if not raw_calls and isinstance(extra, Mapping):
            raw_calls = extra.get("tool_calls")
        function_call = message.get("function_call")
        name = message.get("name") if "role" not in message else None  # see _from_messages
    else:
        langchain = isinstance(getattr(message, "type", None), str)
        kind = getattr(message, "type", None) or getattr(message, "role", None) or ""
        raw_calls = getattr(message, "tool_calls", None)
        function_call = getattr(message, "function_call", None)
        name = getattr(message, "name", None) if langchain else None
    if not isinstance(kind, str):
        return None
    return kind, raw_calls, function_call, name if isinstance(name, str) and name else None


def _from_run_steps(run_steps: Sequence[Step]) -> Steps:
    steps: Steps = []
    previous_node: str | None = None
    for step in run_steps:
        if step.node is not None and step.node != previous_node:
            # Entering a node is a step of its own; consecutive steps stay inside it.
            steps.append((Call(step.node, None, "node"),))
        previous_node = step.node if step.node is not None else previous_node
        calls = tuple(Call(c.name, c.args) for c in step.tool_calls)
        if calls:
            steps.append(calls)
    return steps
