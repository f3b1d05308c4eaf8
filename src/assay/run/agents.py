"""Agents as the runner sees them: one protocol over every kind of agent a team has.

`as_agent(graph)` accepts
- a sync or async callable taking the conversation so far (OpenAI-style messages) and
  returning the reply text, or a dict with `content` and optionally the turn's `messages`
  (assistant tool calls and tool results are read from them) and any other fields (an
  idempotent operation's `status` and `data`); a callable that takes a `config` argument
  gets the case's runtime configuration;
- anything with `ainvoke` / `invoke` (LangGraph compiled graphs, LangChain runnables), run
  by `assay.run.langchain` with a callback handler that records its steps;
- an object that already speaks the protocol (`respond`), such as `assay.run.ToolAgent`.

A sync callable runs in a worker thread so that other cases go on meanwhile; a timeout
cannot stop a thread, so such an agent is abandoned (its case recorded as timed out) and
finishes in the background. An async agent is cancelled.

Example:
    >>> import asyncio
    >>> agent = as_agent(lambda messages: f"you said {messages[-1]['content']}")
    >>> asyncio.run(agent.respond([{"role": "user", "content": "hi"}], {})).content
    'you said hi'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from assay._jsonable import json_type
from assay.records import ToolCall
from assay.run._threads import in_thread
from assay.run.capture import TrajectoryCollector, current_collector

__all__ = ["Agent", "AgentReply", "AgentReplyError", "as_agent", "record_messages"]

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


def as_agent(graph: Any) -> Agent:
    """The `Agent` for any kind of agent `AgentEvaluator` accepts (see the module's text).

    Raises:
        TypeError: `graph` is none of those.
    """
    if isinstance(graph, Agent) and not callable(getattr(graph, "ainvoke", None)):
        return graph
    if callable(getattr(graph, "ainvoke", None)) or callable(getattr(graph, "invoke", None)):
        try:
            from assay.run.langchain import RunnableAgent  # only for agents that need it
        except ImportError as exc:
            raise TypeError(
                f"{type(graph).__name__!r} has invoke/ainvoke, which assay runs as a LangChain "
                f"runnable: install the extra (pip install 'assay[langchain]'): {exc}"
            ) from exc
        return RunnableAgent(graph)
    if callable(graph):
        return CallableAgent(graph)
    raise TypeError(
        f"cannot run {type(graph).__name__!r} as an agent: give a callable taking the "
        "conversation's messages, an object with ainvoke/invoke (LangGraph, LangChain), or "
        "an assay ToolAgent"
    )


class CallableAgent:
    """A plain Python function (sync or async) as an agent."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.name = _name_of(function)
        self._takes_config = _accepts(function, "config")
        self._is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
            getattr(function, "__call__", None)  # noqa: B004  (an object with async __call__)
        )

    async def respond(self, conversation: Conversation, config: Mapping[str, Any]) -> AgentReply:
        kwargs: dict[str, Any] = {"config": dict(config)} if self._takes_config else {}
        messages = [dict(message) for message in conversation]  # the agent may mutate its copy
        if self._is_async:
            value = await self.function(messages, **kwargs)
        else:
            # A thread (the context, hence the case's collector, goes along): a sync agent
            # that sleeps or waits on a socket must not stop the other cases.
            value = await in_thread(self.function, messages, **kwargs)
            if inspect.isawaitable(value):
                value = await value
        return reply_of(value)


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


def _name_of(function: Callable[..., Any]) -> str:
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if not isinstance(name, str):
        name = type(function).__name__
    module = getattr(function, "__module__", None)
    return f"{module}:{name}" if isinstance(module, str) and module != "__main__" else name


def _accepts(function: Callable[..., Any], parameter: str) -> bool:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    return parameter in signature.parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()
    )

