"""LangChain and LangGraph agents: a callback handler that records their runs, and the adapter
that runs them for `assay run` (optional extra `assay[langchain]`).

`make_trajectory_callback()` returns one callback handler that records, into the collector of
the case it runs for, every node a LangGraph graph enters, every model call (text, the tool
calls it asked for, token usage, model name) and every tool call (arguments, call id, result
or error), also inside sub-graphs and inside tools that are themselves agents: LangChain hands
a run's callbacks down to every runnable started within it, nested graphs included.

The handler is a plain (sync) handler with `run_inline = True`: LangChain calls it directly,
in order, in the task or thread where the event happens (an async graph's task, a sync graph's
worker thread; both carry the context they were started from), never through an executor
hop. There the context variable of the running case (`assay.run.capture.capturing`) is set,
so the handler finds that case's collector at each event, and one handler serves any number
of cases running at once.

`RunnableAgent(graph)` is how the runner drives anything with `ainvoke` / `invoke`: it sends
`{"messages": [the conversation]}` with the handler added to the case's config, and reads the
reply from what the graph returns.

This is the only module of assay that imports langchain_core.

Example:
    >>> import asyncio
    >>> from langchain_core.runnables import RunnableLambda
    >>> from assay.run.capture import TrajectoryCollector, capturing
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
import time
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.outputs import ChatGeneration, LLMResult

from assay._jsonable import jsonable
from assay.records import ToolCall, Usage
from assay.run._threads import in_thread
from assay.run.agents import AgentReply, AgentReplyError, record_messages, reply_of
from assay.run.capture import TrajectoryCollector, current_collector

__all__ = [
    "GraphInputError",
    "RunnableAgent",
    "TrajectoryCallbackHandler",
    "make_trajectory_callback",
    "message_text",
]


def make_trajectory_callback(
    collector: TrajectoryCollector | None = None,
) -> TrajectoryCallbackHandler:
    """A LangChain callback handler that records a run's steps into the collector of the case
    running at the time of each event (`assay.run.capture.current_collector()`), and outside a
    live run into `collector` (when given).

    So the seed's wiring works as it reads: `make_trajectory_callback(collector)` bound to a
    graph records into `collector` when the graph is invoked directly; under `AgentEvaluator`
    each case records into its own capture (concurrent cases never mix), and the evaluator
    copies each case's record into `collector` when the case ends.

    Pass it as `config={"callbacks": [handler]}` to `invoke` / `ainvoke`, or bind it to a
    compiled graph with `graph.with_config(callbacks=[handler])`.

    Example:
        >>> from langchain_core.tools import tool as lc_tool
        >>> @lc_tool
        ... def get_weather(city: str) -> str:
        ...     '''The weather in a city.'''
        ...     return f"sunny in {city}"
        >>> collector = TrajectoryCollector()
        >>> handler = make_trajectory_callback(collector)
        >>> get_weather.invoke({"city": "Paris"}, config={"callbacks": [handler]})
        'sunny in Paris'
        >>> [(call.name, call.args, call.result) for call in collector.tool_calls]
        [('get_weather', {'city': 'Paris'}, 'sunny in Paris')]
    """
    return TrajectoryCallbackHandler(collector)


class TrajectoryCallbackHandler(BaseCallbackHandler):
    """Records LangChain / LangGraph events into a `TrajectoryCollector` (see the module's text).

    A node entry is recorded once per LangGraph task: a run whose metadata names a node
    (`langgraph_node`) is that node's entry only when its task (`langgraph_checkpoint_ns`) is
    not the task of the run it was started from; the node's inner runnables, and a graph that a
    tool of the node invokes, share the task and are not entries. A sub-graph's nodes run as
    tasks of their own (their namespace extends the parent's), so they are entered too.
    """

    run_inline = True
    """Called in the event's own task or thread, in order (so the case's context is seen)."""

    def __init__(self, collector: TrajectoryCollector | None = None) -> None:
        super().__init__()
        self.collector = collector
        """The collector to record into outside a live run (inside one, the case's own)."""
        # The task of every live chain and tool run, so that a run's parent task is known.
        self._tasks: dict[UUID, object] = {}
        # Tool runs started and not finished: where they were recorded.
        self._tools: dict[UUID, tuple[TrajectoryCollector, ToolCall]] = {}
        # Model runs started and not finished: when, the model's name if the start said it,
        # and the node the call is made in.
        self._models: dict[UUID, tuple[float, str | None, str | None]] = {}

    def _target(self) -> TrajectoryCollector | None:
        running = current_collector()
        return running if running is not None else self.collector

    def _task_of_run(self, run_id: UUID | None) -> object:
        return self._tasks.get(run_id) if run_id is not None else None

    # Chains: node entries.

    def on_chain_start(
        self,
        serialized: dict[str, Any],
        inputs: dict[str, Any],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        task = _task_of(metadata)
        self._tasks[run_id] = task
        if task is None or self._task_of_run(parent_run_id) == task:
            return
        assert metadata is not None  # a task is only read from metadata
        node = str(metadata["langgraph_node"])
        if node.startswith("__") and node.endswith("__"):
            return  # LangGraph's own steps (`__start__` in older versions), not the user's nodes
        collector = self._target()
        if collector is not None:
            collector.enter_node(node)

    def on_chain_end(
        self,
        outputs: dict[str, Any],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._tasks.pop(run_id, None)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._tasks.pop(run_id, None)

    # Models.

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._models[run_id] = (
            time.perf_counter(),
            _model_name_at_start(metadata, kwargs),
            _node_of(metadata),
        )

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._models[run_id] = (
            time.perf_counter(),
            _model_name_at_start(metadata, kwargs),
            _node_of(metadata),
        )

    def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        started, model, node = self._models.pop(run_id, (None, None, None))
        collector = self._target()
        if collector is None:
            return
        if node is not None:  # parallel branches: the call's own node, not the last entered
            collector.node = node
        first = response.generations[0] if response.generations else []
        generation = first[0] if first else None
        message = generation.message if isinstance(generation, ChatGeneration) else None
        text: str | None = None
        calls: list[ToolCall] = []
        usage: Usage | None = None
        if isinstance(message, AIMessage):
            text = message_text(message) or None
            calls = [
                ToolCall(call["name"], _json_value(call["args"]), call.get("id"))
                for call in message.tool_calls
            ]
            usage = _usage_of_message(message)
            model = _model_name_of(message.response_metadata) or model
        elif generation is not None:
            text = generation.text or None
        if usage is None:
            usage = _usage_of_output(response.llm_output)
        model = _model_name_of(response.llm_output or {}) or model
        duration = (time.perf_counter() - started) * 1000.0 if started is not None else None
        collector.record_model_call(text, calls, usage=usage, model=model, duration_ms=duration)

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self._models.pop(run_id, None)

    # Tools.

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._tasks[run_id] = _task_of(metadata) or self._task_of_run(parent_run_id)
        collector = self._target()
        if collector is None:
            return
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        args: dict[str, Any] | str = _json_value(dict(inputs)) if inputs is not None else input_str
        call_id = kwargs.get("tool_call_id")
        node = _node_of(metadata)
        if node is not None:
            collector.node = node
        call = collector.start_tool(
            str(name), args, call_id=call_id if isinstance(call_id, str) else None
        )
        self._tools[run_id] = (collector, call)

    def on_tool_end(
        self,
        output: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._tasks.pop(run_id, None)
        started = self._tools.pop(run_id, None)
        if started is not None:
            collector, call = started
            if call.call_id is None:  # older langchain-core gives the id only with the result
                call_id = getattr(output, "tool_call_id", None)
                call.call_id = call_id if isinstance(call_id, str) else None
            collector.finish_tool(call, _result_of(output))

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._tasks.pop(run_id, None)
        started = self._tools.pop(run_id, None)
        if started is not None:
            collector, call = started
            call_id = kwargs.get("tool_call_id")
            if call.call_id is None and isinstance(call_id, str):
                call.call_id = call_id
            collector.finish_tool(call, error=f"{type(error).__name__}: {error}"[:500])


def _task_of(metadata: Mapping[str, Any] | None) -> object:
    """The LangGraph task a run belongs to (None outside a graph's node): the task's
    checkpoint namespace, unique per node entry; older versions without it, node and step."""
    if not metadata or not isinstance(metadata.get("langgraph_node"), str):
        return None
    namespace = metadata.get("langgraph_checkpoint_ns")
    if isinstance(namespace, str) and namespace:
        return namespace
    return (metadata["langgraph_node"], metadata.get("langgraph_step"))


def _node_of(metadata: Mapping[str, Any] | None) -> str | None:
    node = (metadata or {}).get("langgraph_node")
    return node if isinstance(node, str) else None


def _model_name_at_start(
    metadata: Mapping[str, Any] | None, kwargs: Mapping[str, Any]
) -> str | None:
    name = (metadata or {}).get("ls_model_name")
    if isinstance(name, str) and name:
        return name
    params = kwargs.get("invocation_params")
    return _model_name_of(params) if isinstance(params, Mapping) else None


def _model_name_of(data: Mapping[str, Any]) -> str | None:
    for key in ("model_name", "model", "model_id"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _usage_of_message(message: AIMessage) -> Usage | None:
    usage = message.usage_metadata
    if not usage:
        return None
    return Usage(usage.get("input_tokens"), usage.get("output_tokens"))


def _usage_of_output(llm_output: Mapping[str, Any] | None) -> Usage:
    """Usage from a provider's `llm_output["token_usage"]` (OpenAI's names, or the same
    names as `usage_metadata`)."""
    usage = (llm_output or {}).get("token_usage") or (llm_output or {}).get("usage")
    if not isinstance(usage, Mapping):
        return Usage()
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens"))
    return Usage(
        prompt if isinstance(prompt, int) else None,
        completion if isinstance(completion, int) else None,
    )


def _result_of(output: Any) -> Any:
    """A tool's output as a JSON value: a tool message's content, else the value itself."""
    if isinstance(output, BaseMessage):
        output = output.content
    return _json_value(output)


def _json_value(value: Any, depth: int = 0) -> Any:
    """`value` as JSON can hold it: containers kept, anything else JSON has no type for (a
    document object, a dataclass) as its text, so a run file can always be written."""
    if value is None or isinstance(value, str | int | float | bool):
        return jsonable(value)
    if depth < 50 and isinstance(value, list | tuple):
        return [_json_value(item, depth + 1) for item in value]
    if depth < 50 and isinstance(value, Mapping):
        return {str(key): _json_value(item, depth + 1) for key, item in value.items()}
    return str(value)[:10_000]


def message_text(message: BaseMessage) -> str:
    """The text of a message: its content when a string, else its text blocks joined.

    Example:
        >>> message_text(AIMessage([{"type": "text", "text": "Hi"}, {"type": "text", "text": "!"}]))
        'Hi!'
    """
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "".join(parts)


class GraphInputError(TypeError):
    """The graph's input is not `messages`-shaped (or the conversation cannot be made into
    LangChain messages), so assay cannot send it the conversation."""


class RunnableAgent:
    """A LangGraph graph or LangChain runnable as an `assay.run.agents.Agent`.

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
                        "arguments": json.dumps(_json_value(call["args"]), ensure_ascii=False),
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
