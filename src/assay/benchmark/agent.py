"""The agents of a benchmark, behind one adapter: `run(query)` returns the agent's answer,
and the adapter keeps the messages and logs that go into the traces.

Example:
    >>> class Echo(AgentAdapter):
    ...     def _run_agent(self, query):
    ...         return f"you said {query}"
    >>> agent = Echo(None, "echo")
    >>> agent.run("hi"), agent.gather_traces()["message_count"]
    ('you said hi', 2)
"""

from __future__ import annotations

import inspect
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

__all__ = ["AgentAdapter"]


class AgentAdapter(ABC):
    """Wraps an agent of any framework: subclasses implement `_run_agent(query)` (sync or
    async); `run` records the query and the answer as messages and calls the callbacks'
    `on_run_start(adapter)` and `on_run_end(adapter, answer)`."""

    def __init__(
        self,
        agent_instance: Any,
        name: str,
        callbacks: Sequence[Any] | None = None,
        model_id: str | None = None,
    ) -> None:
        self.agent = agent_instance
        self.name = name
        self.callbacks = list(callbacks or [])
        self.model_id = model_id
        self.messages: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []

    @abstractmethod
    def _run_agent(self, query: str) -> Any:
        """The agent's answer to `query` (or an awaitable of it)."""

    def run(self, query: str) -> Any:
        """Run the agent on `query`; its answer (an awaitable when `_run_agent` is async)."""
        for callback in self.callbacks:
            _hook(callback, "on_run_start", self)
        self.messages.append({"role": "user", "content": query})
        started = time.time()
        answer = self._run_agent(query)
        if inspect.isawaitable(answer):
            return self._finish_later(query, answer, started)
        return self._finish(query, answer, started)

    async def _finish_later(self, query: str, pending: Any, started: float) -> Any:
        return self._finish(query, await pending, started)

    def _finish(self, query: str, answer: Any, started: float) -> Any:
        self.messages.append({"role": "assistant", "content": answer})
        took = round(time.time() - started, 6)
        self.logs.append({"query": query, "duration_seconds": took, "status": "success"})
        for callback in self.callbacks:
            _hook(callback, "on_run_end", self, answer)
        return answer

    def get_messages(self) -> list[dict[str, Any]]:
        """The messages so far."""
        return list(self.messages)

    def gather_traces(self) -> dict[str, Any]:
        """The agent's trace: its messages and logs."""
        return {
            "type": type(self).__name__,
            "gathered_at": time.time(),
            "name": self.name,
            "message_count": len(self.messages),
            "messages": list(self.messages),
            "logs": list(self.logs),
        }


def _hook(owner: Any, name: str, *args: Any) -> None:
    method = getattr(owner, name, None)
    if callable(method):
        method(*args)
