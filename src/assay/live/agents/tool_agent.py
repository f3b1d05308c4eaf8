"""The built-in tool-calling agent: a model on assay's model client and plain Python tools.

For teams with no agent framework: `ToolAgent(model, tools, system=...)` asks the model with
the conversation and the tools' schemas (built from each function's signature, type hints and
docstring), runs every tool call the model asks for, sends the results back, and repeats until
the model replies without asking for a tool. It speaks the runner's `Agent` protocol, and
records into the capture of the case it runs for (`current_collector()`): each model call
(its text, the calls it asked for, its token usage, the model) and each tool call (arguments,
result or error).

How a turn ends:

- the model replies without tool calls: that reply's text is the agent's reply;
- `max_steps` steps (a step is one model call and the tool calls it asked for) all asked for
  tools: the agent stops asking. Its reply then has `content=None` and
  `data={"stop_reason": "max_steps", "error": "..."}` saying so; the tools of the last step
  have run, so the conversation stays one a model accepts;
- a model call fails: its `assay.models.ModelError` (`ModelTimeout`, `ModelRateLimited`,
  `ModelHTTPError` with its `status`, ...) propagates, for the runner to retry or record.

A tool call that cannot be made or fails is data for the model, not the end of the turn: an
unknown tool, arguments that do not fit the tool's parameters, or an exception raised by the
tool is sent back as the tool message `{"error": "..."}` and recorded as the call's error.
Sync tools run in a worker thread, one call after another in the order the model asked.

Example:
    >>> import asyncio
    >>> from assay.models import ChatResponse
    >>> from assay.live.capture import TrajectoryCollector, capturing
    >>> from assay.records import ToolCall
    >>> class Scripted:  # any ModelClient; here: one tool call, then an answer
    ...     def __init__(self):
    ...         self.replies = [
    ...             ChatResponse("", tool_calls=(ToolCall("add", {"a": 2, "b": 3}, "c1"),)),
    ...             ChatResponse("2 + 3 = 5"),
    ...         ]
    ...     async def complete(self, request):
    ...         return self.replies.pop(0)
    ...     async def aclose(self):
    ...         pass
    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> agent = ToolAgent("local/model", [add], client=Scripted())
    >>> collector = TrajectoryCollector()
    >>> with capturing(collector):
    ...     reply = asyncio.run(agent.respond([{"role": "user", "content": "2+3?"}], {}))
    >>> reply.content, collector.tool_calls
    ('2 + 3 = 5', [ToolCall(name='add', args={'a': 2, 'b': 3}, call_id='c1', result=5)])
"""

from __future__ import annotations

import asyncio
import inspect
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import orjson

from assay._jsonable import dumps_lenient
from assay.live._threads import in_thread
from assay.live.agents import AgentReply, Conversation
from assay.live.agents._tool_schema import ArgumentsError, ToolSpec, function_tool
from assay.live.capture import TrajectoryCollector, current_collector
from assay.models._tool_calls import arguments_text
from assay.models.types import ChatRequest, ChatResponse, ModelClient
from assay.records import ToolCall, Usage

__all__ = ["MAX_STEPS_REACHED", "ToolAgent"]

MAX_STEPS_REACHED: Final = "max_steps"
"""`AgentReply.data["stop_reason"]` of a turn that ended at the step limit."""

_ERROR_CHARS = 500

ClientFactory = Callable[[], ModelClient]


class ToolAgent:
    """A tool-calling loop over a chat model (see the module's text).

    Args:
        model: `provider/model`, as for judges (e.g. `openai/gpt-4.1-mini`).
        tools: Plain Python functions, sync or async, decorated with `assay.evaluation.tool`
            or not. Each parameter must be passable by name and have a type hint among str,
            int, float, bool, list, dict, Optional, Literal and Enum (or none: any value).
        system: A system prompt put before the conversation.
        max_steps: Most model calls in one turn (each followed by the tool calls it asked for).
        client: The model client to use, as it is (its owner closes it).
        client_factory: Makes a client, once per event loop (closed by `aclose`); used when
            `client` is not given.
        temperature: Sampling temperature; None (the default) leaves it to the server.
        name: The agent's name in reports (default `ToolAgent(<model>)`).
        **client_options: With neither `client` nor `client_factory`: options of the client
            made for `model` from the environment, as for a judge (`base_url`, `api_key`,
            `timeout_s`, `call_timeout_s`, `max_retries`, `max_concurrency`, `budget`,
            `prices`, `cache`, `cache_dir`). The cache is `off` unless `cache` is given, so
            that repeated runs of a case are really repeated.

    Raises:
        TypeError: a tool that cannot be described to the model, or an unknown client option.
        ValueError: two tools of one name, or `max_steps` below 1.

    Example:
        >>> def lookup(order_id: str) -> dict:
        ...     '''Find an order.'''
        ...     return {"status": "shipped"}
        >>> agent = ToolAgent("openai/gpt-4.1-mini", [lookup], system="Be brief.")
        >>> agent.name, agent.tool_definitions[0]["function"]["name"]
        ('ToolAgent(openai/gpt-4.1-mini)', 'lookup')
    """

    def __init__(
        self,
        model: str,
        tools: Sequence[Callable[..., Any]] = (),
        system: str | None = None,
        *,
        max_steps: int = 10,
        client: ModelClient | None = None,
        client_factory: ClientFactory | None = None,
        temperature: float | None = None,
        name: str | None = None,
        **client_options: Any,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be 1 or more, not {max_steps}")
        specs: dict[str, ToolSpec] = {}
        for function in tools:
            spec = function_tool(function)
            if spec.name in specs:
                raise ValueError(f"two tools are named {spec.name!r}")
            specs[spec.name] = spec
        if client_options:
            from assay.scorers._judge_client import default_client_factory

            accepted = set(inspect.signature(default_client_factory).parameters) - {"model"}
            unknown = sorted(set(client_options) - accepted)
            if unknown:
                raise TypeError(
                    f"unknown client option {unknown[0]!r}; the options are "
                    f"{', '.join(sorted(accepted))}"
                )
        self.model = model
        """The model asked, `provider/model`."""
        self.system = system
        """The system prompt, or None."""
        self.max_steps = max_steps
        """Most model calls in one turn."""
        self.temperature = temperature
        """Sampling temperature sent with every call (None: the server's)."""
        self.name = name or f"ToolAgent({model})"
        """The agent's name, as reports show it."""
        self.tools = specs
        """The tools by name."""
        self.tool_definitions = [spec.definition() for spec in specs.values()]
        """The tools as sent to the model (OpenAI function tools)."""
        self._client = client
        self._client_factory = client_factory
        self._client_options = client_options
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ModelClient] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        return f"ToolAgent({self.model!r}, tools={list(self.tools)}, max_steps={self.max_steps})"

    def client(self) -> ModelClient:
        """The model client for the running event loop (made on first use unless given).

        Raises:
            ModelConfigError: no base URL or key for the model's provider in the environment.
        """
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        found = self._clients.get(loop)
        if found is None:
            factory = self._client_factory
            if factory is None:
                from assay.scorers._judge_client import default_client_factory

                options = {"cache": "off", **self._client_options}
                factory = self._client_factory = default_client_factory(self.model, **options)
            found = self._clients[loop] = factory()
        return found

    async def aclose(self) -> None:
        """Close the client this agent made for the running event loop (not a given one)."""
        found = self._clients.pop(asyncio.get_running_loop(), None)
        if found is not None:
            await found.aclose()

    async def respond(self, conversation: Conversation, config: Mapping[str, Any]) -> AgentReply:
        """Run the loop over `conversation` (its last message is the user's) until the model
        replies without tool calls or `max_steps` run out.

        `config` is not read: the model, tools and prompt are the agent's own.

        Returns:
            The reply, with this turn's assistant and tool messages in `messages`.

        Raises:
            ModelError: a model call failed (after the client's retries).
        """
        client = self.client()
        collector = current_collector()
        messages: list[dict[str, Any]] = [dict(message) for message in conversation]
        if self.system is not None:
            messages.insert(0, {"role": "system", "content": self.system})
        turn: list[dict[str, Any]] = []
        for step in range(self.max_steps):
            request = ChatRequest(
                self.model,
                tuple(messages),
                temperature=self.temperature,
                tools=tuple(self.tool_definitions),
            )
            response = await client.complete(request)
            # The reply is the model's answer whatever it says: a cache may keep it.
            await response.confirm(True)
            calls = [
                ToolCall(call.name, call.args, call.call_id or f"call_{step}_{index}")
                for index, call in enumerate(response.tool_calls)
            ]
            if collector is not None:
                _record_model_call(collector, response, calls, self.model)
            # A message that only asks for tools has no content (null, as OpenAI sends it).
            content = response.text if not calls else response.text or None
            assistant: dict[str, Any] = {"role": "assistant", "content": content}
            if calls:
                assistant["tool_calls"] = [
                    {
                        "id": call.call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments_text(call)},
                    }
                    for call in calls
                ]
            messages.append(assistant)
            turn.append(assistant)
            if not calls:
                return AgentReply(response.text, turn)
            for call in calls:
                content = await self._run(call, collector)
                message = {"role": "tool", "tool_call_id": call.call_id, "content": content}
                messages.append(message)
                turn.append(message)
        reason = (
            f"stopped after {self.max_steps} model call{'s' if self.max_steps != 1 else ''}: "
            "the model still asked for tools and gave no reply (max_steps)"
        )
        return AgentReply(None, turn, {"stop_reason": MAX_STEPS_REACHED, "error": reason})

    async def _run(self, call: ToolCall, collector: TrajectoryCollector | None) -> str:
        """Make one tool call; the tool message's content (the result, or `{"error": ...}`)."""
        recorded = (
            collector.start_tool(call.name, call.args, call_id=call.call_id)
            if collector is not None
            else None
        )
        error: str | None = None
        result: Any = None
        spec = self.tools.get(call.name)
        if spec is None:
            known = ", ".join(self.tools) or "none"
            error = f"unknown tool {call.name!r} (the tools are: {known})"
        else:
            try:
                arguments = spec.check(call.args)
            except ArgumentsError as exc:
                error = f"bad arguments for {call.name}: {exc}"
            else:
                try:
                    result = await _call(spec, arguments)
                except Exception as exc:  # the tool's failure is the model's to handle
                    error = f"{type(exc).__name__}: {exc}"
        if error is not None:
            error = error[:_ERROR_CHARS]
        if collector is not None and recorded is not None:
            collector.finish_tool(recorded, result, error=error)
        if error is not None:
            return orjson.dumps({"error": error}).decode()
        return result if isinstance(result, str) else dumps_lenient(result).decode()


async def _call(spec: ToolSpec, arguments: dict[str, Any]) -> Any:
    if spec.is_async:
        return await spec.function(**arguments)
    # A thread, so that a slow tool does not hold up other cases; the context (and so the
    # case's collector) goes with it.
    result = await in_thread(spec.function, **arguments)
    if inspect.isawaitable(result):
        result = await result
    return result


def _record_model_call(
    collector: TrajectoryCollector, response: ChatResponse, calls: list[ToolCall], model: str
) -> None:
    tokens = response.usage
    # A server that reports no usage reads as 0 and 0: not recorded, rather than free.
    usage = Usage(tokens.input_tokens, tokens.output_tokens) if tokens.total else Usage()
    collector.record_model_call(
        response.text or None,
        [ToolCall(call.name, call.args, call.call_id) for call in calls],
        usage=usage,
        model=response.model or model,
        duration_ms=response.latency_ms or None,
    )
