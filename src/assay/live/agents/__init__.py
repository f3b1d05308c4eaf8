"""Agents as the runner sees them: one protocol over every kind of agent a team has.

`as_agent(graph)` accepts
- a sync or async callable taking the conversation so far (OpenAI-style messages) and
  returning the reply text, or a dict with `content` and optionally the turn's `messages`
  (assistant tool calls and tool results are read from them) and any other fields (an
  idempotent operation's `status` and `data`); a callable that takes a `config` argument
  gets the case's runtime configuration;
- anything with `ainvoke` / `invoke` (LangGraph compiled graphs, LangChain runnables), run
  by `assay.live.agents.langchain` with a callback handler that records its steps;
- an object that already speaks the protocol (`respond`), such as
  `assay.live.agents.tool_agent.ToolAgent`.

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

from typing import Any

from assay.live.agents.function import CallableAgent
from assay.live.agents.protocol import (
    Agent,
    AgentReply,
    AgentReplyError,
    Conversation,
    record_messages,
    reply_of,
)

__all__ = [
    "Agent",
    "AgentReply",
    "AgentReplyError",
    "CallableAgent",
    "Conversation",
    "as_agent",
    "record_messages",
    "reply_of",
]


def as_agent(graph: Any) -> Agent:
    """The `Agent` for any kind of agent `AgentEvaluator` accepts (see the module's text).

    Raises:
        TypeError: `graph` is none of those.
    """
    if isinstance(graph, Agent) and not callable(getattr(graph, "ainvoke", None)):
        return graph
    if callable(getattr(graph, "ainvoke", None)) or callable(getattr(graph, "invoke", None)):
        try:
            from assay.live.agents.langchain import RunnableAgent  # only for agents that need it
        except ImportError as exc:
            raise TypeError(
                f"{type(graph).__name__!r} has invoke/ainvoke, which assay runs as a LangChain "
                f"runnable: install LangChain (pip install langchain-core langgraph): {exc}"
            ) from exc
        return RunnableAgent(graph)
    if callable(graph):
        return CallableAgent(graph)
    raise TypeError(
        f"cannot run {type(graph).__name__!r} as an agent: give a callable taking the "
        "conversation's messages, an object with ainvoke/invoke (LangGraph, LangChain), or "
        "an assay ToolAgent"
    )
