"""The one protocol the runner drives (`Agent`), what an agent answers in a turn
(`AgentReply`), and how a reply is read from what an agent returned.

Example:
    >>> reply_of({"content": "done", "status": "ok"}).data
    {'content': 'done', 'status': 'ok'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from assay._jsonable import json_type
from assay.live.capture import TrajectoryCollector, current_collector
from assay.records import ToolCall

__all__ = ["Agent", "AgentReply", "AgentReplyError", "Conversation", "record_messages", "reply_of"]

Conversation = list[dict[str, Any]]
"""OpenAI-style messages: `{"role": "user" | "assistant" | "tool" | "system", "content": ...}`."""


@dataclass(slots=True)
class AgentReply:
    """What the agent answered in one turn."""

    content: str | None
    """The reply text (None when the agent gave none)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    """The turn's own messages as the agent reported them (assistant tool calls, tool results,
    the final assistant message), OpenAI-style; empty when it reported none."""

    data: dict[str, Any] | None = None
    """The dict the agent returned, when it returned one (an idempotent operation's `status`
    and `data` are read from it)."""


class AgentReplyError(TypeError):
    """The agent returned something that is neither text nor a reply dict."""


@runtime_checkable
class Agent(Protocol):
    """The one protocol the runner drives."""

    name: str
    """The agent's name, as reports show it (`runner`)."""

    async def respond(self, conversation: Conversation, config: Mapping[str, Any]) -> AgentReply:
        """The agent's reply to the conversation so far (its last message is the user's)."""
        ...


def reply_of(value: Any) -> AgentReply:
    """Read what an agent returned: text, a dict with `content` (and `messages`), or a chat
    message object with `content`; the turn's messages are recorded into the case's capture.

    Raises:
        AgentReplyError: nothing a reply can be read from.
    """
    if isinstance(value, str):
        return AgentReply(value)
    if isinstance(value, Mapping):
        data = dict(value)
        content = data.get("content")
        messages = data.get("messages")
        turn_messages = _messages(messages) if isinstance(messages, Sequence) else []
        if content is None and turn_messages:
            content = _last_assistant_text(turn_messages)
        if content is not None and not isinstance(content, str):
            raise AgentReplyError(f"the agent's reply `content` is {json_type(content)}, not text")
        collector = current_collector()
        if collector is not None and turn_messages:
            record_messages(collector, turn_messages)
        return AgentReply(content, turn_messages, data)
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return AgentReply(content)
    raise AgentReplyError(
        f"the agent returned {type(value).__name__}, not text or a dict with `content`"
    )


def record_messages(collector: TrajectoryCollector, messages: Sequence[Mapping[str, Any]]) -> None:
    """Record the tool calls and results of a turn's messages, unless the turn's tool calls
    were already recorded as they ran (a decorated tool, a callback), which would count them
    twice.

    Example:
        >>> collector = TrajectoryCollector()
        >>> record_messages(collector, [
        ...     {"role": "assistant", "content": None, "tool_calls": [
        ...         {"id": "c1", "function": {"name": "f", "arguments": '{"x": 1}'}}]},
        ...     {"role": "tool", "tool_call_id": "c1", "content": "42"},
        ...     {"role": "assistant", "content": "It is 42."}])
        >>> [(s.text, [(c.name, c.args, c.result) for c in s.tool_calls])
        ...  for s in collector.to_steps()]
        [(None, [('f', {'x': 1}, '42')]), ('It is 42.', [])]
    """
    if collector.recorded_in_turn(collector.turn):
        return
    calls_by_id: dict[str, ToolCall] = {}
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            calls = []
            for item in message.get("tool_calls") or ():
                if isinstance(item, Mapping):
                    call = ToolCall.from_mapping(item)
                    if call is not None:
                        call.args = _arguments(call.args)
                        call.call_id = item.get("id") if isinstance(item.get("id"), str) else None
                        calls.append(call)
            content = message.get("content")
            collector.record_model_call(content if isinstance(content, str) else None, calls)
            calls_by_id.update({call.call_id: call for call in calls if call.call_id})
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if isinstance(call_id, str) and call_id in calls_by_id:
                asked = calls_by_id[call_id]
                done = collector.start_tool(asked.name, asked.args, call_id=call_id)
                collector.finish_tool(done, message.get("content"))


def _arguments(raw: Any) -> Any:
    """Arguments as a dict when a JSON text of an object, else as given."""
    if isinstance(raw, str):
        import orjson

        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
        return value if isinstance(value, dict) else raw
    return raw


def _messages(items: Sequence[Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, Mapping):
            found.append(dict(item))
    return found


def _last_assistant_text(messages: Sequence[Mapping[str, Any]]) -> str | None:
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and content:
            return content
    return None
