"""LangChain and LangGraph agents (optional extra `assay[langchain]`): `RunnableAgent(graph)` is
how the runner drives anything with `ainvoke` / `invoke`. It sends `{"messages": [the
conversation]}` with the capture's callback handler (`assay.live.capture.langchain`) added to
the case's config, and reads the reply from what the graph returns.

Example:
    >>> import asyncio
    >>> from langchain_core.runnables import RunnableLambda
    >>> from assay.live.capture.collector import TrajectoryCollector, capturing
    >>> collector = TrajectoryCollector()
    >>> echo = RunnableLambda(lambda state: f"you said {state['messages'][-1].content}")
    >>> conversation = [{"role": "user", "content": "hi"}]
    >>> with capturing(collector):
    ...     reply = asyncio.run(RunnableAgent(echo).respond(conversation, {}))
    >>> reply.content
    'you said hi'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    convert_to_messages,
)

from assay._jsonable import jsonable
from assay.live._threads import in_thread
from assay.live.agents.protocol import AgentReply, AgentReplyError, record_messages, reply_of
from assay.live.capture import current_collector
from assay.live.capture.langchain import (
    TrajectoryCallbackHandler,
    json_value,
    make_trajectory_callback,
    message_text,
)

__all__ = ["GraphInputError", "RunnableAgent"]


class GraphInputError(TypeError):
    """The graph's input is not `messages`-shaped (or the conversation cannot be made into
    LangChain messages), so assay cannot send it the conversation."""


class RunnableAgent:
    """A LangGraph graph or LangChain runnable as an `assay.live.agents.Agent`.

    Each turn sends `{"messages": conversation}` (as LangChain messages) to `ainvoke` (else to
    `invoke` in a worker thread), with the case's config and a handler of
    `make_trajectory_callback()` added to its `callbacks` (the user's own callbacks are kept;
    none is added when the graph or the config already has one of assay's handlers). The reply
    is read from the output: a state with `messages` (the last AI message's text; the messages
    after the last user message are the turn's), a message, a string, or a dict with `content`
    or `output`.
    """

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        name = getattr(graph, "name", None)
        self.name: str = name if isinstance(name, str) and name else type(graph).__name__
        """The agent's name in reports: the graph's own name, else its type's."""
        self._checked = False

    async def respond(
        self, conversation: Sequence[Mapping[str, Any]], config: Mapping[str, Any]
    ) -> AgentReply:
        """Run one turn: send the conversation so far and read the graph's reply.

        Raises:
            GraphInputError: the graph's state has no `messages` field.
            AgentReplyError: no reply can be read from what the graph returned.
        """
        if not self._checked:
            _check_input(self.graph)
            self._checked = True
        try:
            messages = convert_to_messages([dict(message) for message in conversation])
        except Exception as exc:  # LangChain says which message and why
            raise GraphInputError(
                f"the conversation cannot be sent as LangChain messages: {exc}"
            ) from exc
        state = {"messages": messages}
        run_config, added = _with_handler(self.graph, config)
        if callable(getattr(self.graph, "ainvoke", None)):
            output = await self.graph.ainvoke(state, run_config)
        else:
            output = await in_thread(self.graph.invoke, state, run_config)
        reply = _reply_of(output)
        collector = current_collector()
        if added and collector is not None and reply.messages:
            # A runnable that did not pass its callbacks on records nothing; its messages then
            # say what it did (record_messages does nothing when the handler saw the turn).
            record_messages(collector, reply.messages)
        return reply


def _check_input(graph: Any) -> None:
    """Refuse, before running it, a graph whose input schema names fields but no `messages`."""
    get_schema = getattr(graph, "get_input_jsonschema", None)
    if not callable(get_schema):
        return
    try:
        schema = get_schema()
    except Exception:  # a schema LangChain cannot draw says nothing either way
        return
    fields = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(fields, Mapping) or not fields or "messages" in fields:
        return
    names = ", ".join(repr(name) for name in fields)
    raise GraphInputError(
        f"the graph's input has the fields {names} and no 'messages': assay sends each turn as "
        "{'messages': [the conversation so far, as chat messages]}; give the graph's state a "
        "`messages` field (LangGraph's MessagesState) or wrap the graph in a function that "
        "takes the messages"
    )


def _with_handler(graph: Any, config: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """The case's config with a recording handler added to its callbacks, and whether one was
    added (not when the graph or the config already has one)."""
    run_config = dict(config)
    callbacks = run_config.get("callbacks")
    bound = getattr(graph, "config", None)
    bound_callbacks = bound.get("callbacks") if isinstance(bound, Mapping) else None
    if _has_handler(callbacks) or _has_handler(bound_callbacks):
        return run_config, False
    handler = make_trajectory_callback()
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        run_config["callbacks"] = manager
    elif isinstance(callbacks, Sequence) and not isinstance(callbacks, str):
        run_config["callbacks"] = [*callbacks, handler]
    else:
        run_config["callbacks"] = [handler]
    return run_config, True


def _has_handler(callbacks: Any) -> bool:
    if isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.handlers
    if isinstance(callbacks, Sequence) and not isinstance(callbacks, str):
        return any(isinstance(item, TrajectoryCallbackHandler) for item in callbacks)
    return False


def _reply_of(output: Any) -> AgentReply:
    """Read a graph's or runnable's output (see `RunnableAgent`)."""
    if isinstance(output, BaseMessage):
        return AgentReply(message_text(output), _openai_messages([output]))
    if isinstance(output, Mapping) and "messages" in output:
        return _reply_of_state(output["messages"])
    if isinstance(output, Mapping) and "content" not in output:
        text = output.get("output")  # LangChain's agent executors answer in `output`
        if isinstance(text, str):
            return AgentReply(text, data=dict(output))
    if not isinstance(output, Mapping) or "content" in output:
        try:
            return reply_of(output)
        except AgentReplyError:
            pass
    if isinstance(output, Mapping):
        keys = ", ".join(repr(str(key)) for key in output) or "no keys"
        described = f"a dict with {keys}"
    else:
        described = type(output).__name__
    raise AgentReplyError(
        f"the graph was sent {{'messages': [...]}} and returned {described}: assay reads the "
        "reply from a state with `messages` (the last AI message), a message, a string, or a "
        "dict with `content` or `output`"
    )


def _reply_of_state(value: Any) -> AgentReply:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise AgentReplyError(
            f"the graph returned `messages` as {type(value).__name__}, not a list of messages"
        )
    try:
        messages = convert_to_messages(value)
    except Exception as exc:  # LangChain says which message and why
        raise AgentReplyError(
            f"the graph returned `messages` that are not chat messages: {exc}"
        ) from exc
    # The turn's own messages: those after the last user message (the graph echoes the
    # conversation it was sent), or all of them when it returned only new ones.
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    turn = messages[last_user + 1 :]
    answers = [message for message in turn if isinstance(message, AIMessage)]
    content = message_text(answers[-1]) if answers else None
    return AgentReply(content, _openai_messages(turn))


_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _openai_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Messages as OpenAI-style dicts: role, text content, an assistant's `tool_calls` (with
    JSON-text arguments) and a tool result's `tool_call_id` and `name`.

    Example:
        >>> from langchain_core.messages import ToolMessage
        >>> _openai_messages([
        ...     AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}]),
        ...     ToolMessage("42", tool_call_id="c1", name="f")])
        ... # doctest: +NORMALIZE_WHITESPACE
        [{'role': 'assistant', 'content': '', 'tool_calls': [{'id': 'c1', 'type': 'function',
          'function': {'name': 'f', 'arguments': '{"x": 1}'}}]},
         {'role': 'tool', 'content': '42', 'tool_call_id': 'c1', 'name': 'f'}]
    """
    converted: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {
            "role": _ROLES.get(message.type, message.type),
            "content": message_text(message),
        }
        if isinstance(message, AIMessage) and message.tool_calls:
            item["tool_calls"] = [
                {
                    "id": call.get("id"),
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": json.dumps(json_value(call["args"]), ensure_ascii=False),
                    },
                }
                for call in message.tool_calls
            ]
        if isinstance(message, ToolMessage):
            item["tool_call_id"] = message.tool_call_id
            if message.name:
                item["name"] = message.name
        converted.append(jsonable(item))
    return converted
