"""LangChain and LangGraph message lists: messages in, `Trajectory` records out.

LangChain messages reach a file in several spellings, all read here without importing
LangChain:

- message objects, read by attribute: `type` (`human`, `ai`, `tool`, `system`), `content`,
  `tool_calls` (`[{"name", "args", "id"}]`), `invalid_tool_calls`, `tool_call_id`, `name`,
  `usage_metadata` and `response_metadata`;
- plain dicts with the same keys, keyed by `type` or by an OpenAI-style `role`;
- `messages_to_dict` output: `{"type": "ai", "data": {...}}`;
- the serialised form `dumpd` writes: `{"lc": 1, "type": "constructor",
  "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": {...}}`.

A LangGraph state (`{"messages": [...]}`) is accepted as well. In a multi-agent graph each AI
message's `name` is the agent that wrote it; it becomes `Step.node`. A step's `turn` counts the
human messages before it (from 0), so a multi-turn chat can be checked turn by turn.

Example:
    >>> run = trajectory_from_langchain_messages([
    ...     {"type": "human", "content": "Which pumps are down?"},
    ...     {"type": "ai", "name": "inspector", "content": "",
    ...      "tool_calls": [{"name": "down_assets", "args": {"kind": "pump"}, "id": "t1"}],
    ...      "usage_metadata": {"input_tokens": 50, "output_tokens": 9}},
    ...     {"type": "tool", "tool_call_id": "t1", "content": "P-3"},
    ...     {"type": "ai", "name": "inspector", "content": "P-3 is down."}])
    >>> (run.tool_names(), run.steps[0].node, run.steps[0].tool_calls[0].result, run.answer)
    (['down_assets'], 'inspector', 'P-3', 'P-3 is down.')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.formats._common import (
    PLAIN,
    ReadProblem,
    chat_shape,
    id_text,
    record_id,
    tool_args,
)
from assay.formats.openai_chat import (
    ChatItem,
    chat_trajectory,
    content_text,
    first_text,
    get_field,
    openai_call,
    openai_calls,
    read_chats,
    tool_result,
    usage_of,
)
from assay.formats.registry import register_reader
from assay.records import ToolCall, Trajectory

__all__ = ["trajectory_from_langchain_messages"]

# Message `type`s (and OpenAI roles, for dicts keyed by `role`) to the roles of `Message`.
_KINDS = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
    "system": "system",
    "developer": "system",
    # Streaming chunks name their class as their type.
    "humanmessagechunk": "user",
    "aimessagechunk": "assistant",
    "toolmessagechunk": "tool",
    "systemmessagechunk": "system",
    "functionmessagechunk": "tool",
}

# Serialised class names (the last element of `id`) to message types.
_CLASSES = {
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "FunctionMessage": "function",
    "FunctionMessageChunk": "function",
    "ChatMessage": "chat",
    "ChatMessageChunk": "chat",
}


def trajectory_from_langchain_messages(
    messages: Any,
    *,
    run_id: str | None = None,
    scenario_id: str | None = None,
    model: str | None = None,
    source: str = "",
) -> Trajectory:
    """Convert LangChain / LangGraph messages into a `Trajectory`.

    Each AI message becomes one `Step` with its text, its `tool_calls` (and its
    `invalid_tool_calls`, whose unparsable arguments are kept as the raw string: the model did
    make those calls), its token usage (`usage_metadata`, else the provider's `token_usage` in
    `response_metadata`) and, from its `name`, the agent that wrote it (`Step.node`). A tool
    message's content becomes the `result` of the call with its `tool_call_id`. Older messages
    that keep OpenAI-style calls in `additional_kwargs` are read too.

    `question` is the first human text; `answer` the last non-blank AI text; `model` (unless
    given) the first `model_name` an AI message's `response_metadata` records.

    Never raises on bad input, and never modifies it: items that are not messages are skipped
    and input of the wrong type gives a Trajectory without steps.

    Args:
        messages: A list of messages in any of the accepted spellings (they may be mixed), or a
            dict (or object) with `messages`, such as a LangGraph state; its `run_id`,
            `scenario_id` and `model`, if present, are used when not given here.
        run_id: The run's id.
        scenario_id: The scenario answered.
        model: The model that drove the agent.
        source: Where the messages were read from, for messages and reports.

    Returns:
        The conversation as a `Trajectory`.

    Example:
        >>> serialised = {"lc": 1, "type": "constructor",
        ...               "id": ["langchain", "schema", "messages", "AIMessage"],
        ...               "kwargs": {"content": "Done.", "name": "planner",
        ...                          "response_metadata": {"model_name": "gpt-4o-mini"}}}
        >>> run = trajectory_from_langchain_messages([serialised])
        >>> (run.answer, run.steps[0].node, run.model)
        ('Done.', 'planner', 'gpt-4o-mini')
    """
    wrapper: Any = None
    if not isinstance(messages, list | tuple) and _message_kind(messages)[0] is None:
        wrapper = messages
        messages = get_field(messages, "messages")
    items: list[ChatItem] = []
    if isinstance(messages, list | tuple):
        for message in messages:
            item = langchain_item(message)
            if item is not None:
                items.append(item)
    return chat_trajectory(
        items,
        run_id=run_id if run_id is not None else record_id(get_field(wrapper, "run_id")),
        scenario_id=(
            scenario_id if scenario_id is not None else record_id(get_field(wrapper, "scenario_id"))
        ),
        model=model if model is not None else first_text(get_field(wrapper, "model")),
        source=source,
        turns=True,
    )


def langchain_item(message: Any, *, scope: str | None = None) -> ChatItem | None:
    """One LangChain message (any accepted spelling) as a `ChatItem`; None if not a message.

    Shared with the other readers in `assay.formats`; not re-exported.
    """
    kind, body = _message_kind(message)
    if kind is None:
        return None
    if kind == "chat":  # a ChatMessage carries an arbitrary role of its own
        role = get_field(body, "role")
        if not isinstance(role, str):
            return None
        kind = role
    role = _KINDS.get(kind.lower(), kind)
    content = get_field(body, "content")
    text = content_text(content)
    if role == "assistant":
        response_metadata = get_field(body, "response_metadata")
        usage = usage_of(get_field(body, "usage_metadata"))
        if usage is None:
            usage = usage_of(get_field(response_metadata, "token_usage"))
        if usage is None:
            usage = usage_of(get_field(response_metadata, "usage"))
        name = get_field(body, "name")
        return ChatItem(
            role="assistant",
            text=text,
            calls=_calls(body),
            usage=usage,
            node=name if isinstance(name, str) else None,
            model=first_text(
                get_field(response_metadata, "model_name"), get_field(response_metadata, "model")
            ),
            scope=scope,
        )
    if role == "tool":
        name = get_field(body, "name")
        return ChatItem(
            role="tool",
            text=text,
            call_id=id_text(get_field(body, "tool_call_id")),
            tool_name=name if isinstance(name, str) else None,
            result=tool_result(content),
            scope=scope,
        )
    return ChatItem(role=role, text=text, scope=scope)


def _message_kind(message: Any) -> tuple[str | None, Any]:
    """`(type, the object holding the message's fields)`, or `(None, message)`."""
    if message is None or isinstance(message, PLAIN):
        return None, message
    if isinstance(message, dict):
        if message.get("type") == "constructor" and "lc" in message:
            ident = message.get("id")
            kwargs = message.get("kwargs")
            if not isinstance(kwargs, dict):
                kwargs = {}
            name = ident[-1] if isinstance(ident, list) and ident else None
            kind = _CLASSES.get(name) if isinstance(name, str) else None
            if kind is None:
                kind = _known_kind(kwargs.get("type"))
            return kind, kwargs
        data = message.get("data")
        kind = _known_kind(message.get("type"))
        if kind is not None and isinstance(data, dict) and "content" not in message:
            return kind, data  # messages_to_dict: {"type": ..., "data": {...}}
        if kind is None:
            kind = _known_kind(message.get("role"))
        return kind, message
    return _known_kind(get_field(message, "type")), message


def _known_kind(value: Any) -> str | None:
    if isinstance(value, str):
        if value.lower() in _KINDS:
            return value
        if value.lower() in ("chat", "chatmessagechunk"):
            return "chat"
    return None


def _calls(body: Any) -> list[ToolCall]:
    raw_calls = get_field(body, "tool_calls")
    calls = (
        [_call(raw) for raw in raw_calls or () if _is_record(raw)] if _is_list(raw_calls) else []
    )
    invalid = get_field(body, "invalid_tool_calls")
    if _is_list(invalid):
        calls.extend(_call(raw) for raw in invalid if _is_record(raw))
    if raw_calls is None and not calls:
        # Messages from before `tool_calls` existed keep the provider's calls here.
        extra = get_field(body, "additional_kwargs")
        calls = openai_calls(get_field(extra, "tool_calls"))
        legacy = get_field(extra, "function_call")
        if _is_record(legacy):
            calls.append(openai_call(legacy))
    return calls


def _call(raw: Any) -> ToolCall:
    name = get_field(raw, "name")
    return ToolCall(
        name=name if isinstance(name, str) else "",
        args=tool_args(get_field(raw, "args")),
        call_id=id_text(get_field(raw, "id")),
    )


def _is_list(value: Any) -> bool:
    return isinstance(value, list | tuple)


def _is_record(value: Any) -> bool:
    return value is not None and not isinstance(value, PLAIN)


# --- reading files -------------------------------------------------------------------------

NAME = "langchain"
"""The reader's name (`--from langchain`)."""


def _sniff(name: str, value: Any) -> bool:
    return chat_shape(value) == NAME


def _read(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    return read_chats(value, source, trajectory_from_langchain_messages)


register_reader(
    NAME,
    _sniff,
    _read,
    description="LangChain / LangGraph messages (objects dumped as dicts, or dumpd form)",
)
