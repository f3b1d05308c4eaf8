"""A plain Python function (sync or async) as an agent.

A sync function runs in a worker thread so that other cases go on meanwhile; a timeout cannot
stop a thread, so such an agent is abandoned (its case recorded as timed out) and finishes in
the background. An async function is cancelled.

Example:
    >>> import asyncio
    >>> agent = CallableAgent(lambda messages: f"you said {messages[-1]['content']}")
    >>> asyncio.run(agent.respond([{"role": "user", "content": "hi"}], {})).content
    'you said hi'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from assay.live._threads import in_thread
from assay.live.agents.protocol import AgentReply, Conversation, reply_of

__all__ = ["CallableAgent"]


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

