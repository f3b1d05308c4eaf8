"""The environment of a benchmark task: its state and the tools that act on it, every
invocation recorded (in the environment's trace, and as the run's tool calls, which the
trajectory scorers read).

Example:
    >>> class Bank(Environment):
    ...     def setup_state(self, environment_data):
    ...         return dict(environment_data)
    ...     def create_tools(self):
    ...         def balance(account: str) -> int:
    ...             return self.state[account]
    ...         return {"balance": balance}
    >>> bank = Bank({"alice": 5})
    >>> bank.get_tool("balance")(account="alice")
    5
    >>> bank.gather_traces()["tools"]["balance"]["invocations"][0]["outputs"]
    5
"""

from __future__ import annotations

import functools
import inspect
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from assay.live.capture import record_tool_call

__all__ = ["Environment", "RecordedTool"]


class RecordedTool:
    """A tool whose every invocation is recorded: inputs, outputs (or the error), status and
    time. Calling it calls the tool."""

    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        self.name = name
        self.function = function
        self.invocations: list[dict[str, Any]] = []
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = _inputs(self.function, args, kwargs)
        started = time.time()
        try:
            outputs = self.function(*args, **kwargs)
        except Exception as exc:
            self._record(inputs, {"error": f"{type(exc).__name__}: {exc}"}, "error", started)
            raise
        if inspect.isawaitable(outputs):
            return self._finish_later(inputs, outputs, started)
        self._record(inputs, outputs, "success", started)
        return outputs

    async def _finish_later(self, inputs: dict[str, Any], pending: Any, started: float) -> Any:
        try:
            outputs = await pending
        except Exception as exc:
            self._record(inputs, {"error": f"{type(exc).__name__}: {exc}"}, "error", started)
            raise
        self._record(inputs, outputs, "success", started)
        return outputs

    def _record(self, inputs: dict[str, Any], outputs: Any, status: str, started: float) -> None:
        self.invocations.append(
            {
                "id": len(self.invocations),
                "inputs": inputs,
                "outputs": outputs,
                "status": status,
                "timestamp": started,
                "duration_s": round(time.time() - started, 6),
            }
        )
        # The run's tool calls, as an agent's decorated tools record them.
        record_tool_call(self.name, inputs, result=outputs)

    def gather_traces(self) -> dict[str, Any]:
        """This tool's invocations."""
        return {
            "type": type(self.function).__name__,
            "invocations": list(self.invocations),
            "total_invocations": len(self.invocations),
        }


def _inputs(
    function: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """The call's arguments by parameter name (positional ones named where the signature
    says how)."""
    if not args:
        return dict(kwargs)
    try:
        bound = inspect.signature(function).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {**{f"arg{i}": value for i, value in enumerate(args)}, **kwargs}
    return dict(bound.arguments)


class Environment(ABC):
    """A task's world: `setup_state` builds its state from the task's `environment_data`,
    `create_tools` the tools that act on it (name -> callable). The tools are wrapped so that
    every invocation is recorded."""

    def __init__(self, environment_data: dict[str, Any], callbacks: Sequence[Any] | None = None):
        self.environment_data = environment_data
        self.callbacks = list(callbacks or [])
        for callback in self.callbacks:
            _call(callback, "on_setup_start", self)
        self.state: Any = self.setup_state(environment_data)
        self.tools: dict[str, RecordedTool] = {
            name: tool if isinstance(tool, RecordedTool) else RecordedTool(name, tool)
            for name, tool in dict(self.create_tools()).items()
        }
        for callback in self.callbacks:
            _call(callback, "on_setup_end", self)

    @abstractmethod
    def setup_state(self, environment_data: dict[str, Any]) -> Any:
        """The environment's state, from the task's `environment_data`."""

    @abstractmethod
    def create_tools(self) -> Mapping[str, Callable[..., Any]]:
        """The tools, by name."""

    def get_tools(self) -> dict[str, RecordedTool]:
        """Every tool, by name."""
        return dict(self.tools)

    def get_tool(self, name: str) -> RecordedTool | None:
        """The tool named `name`, or None."""
        return self.tools.get(name)

    def gather_traces(self) -> dict[str, Any]:
        """The environment's trace: its tools and their invocations."""
        return {
            "type": type(self).__name__,
            "gathered_at": time.time(),
            "tool_count": len(self.tools),
            "tools": {name: tool.gather_traces() for name, tool in self.tools.items()},
        }

    def gather_config(self) -> dict[str, Any]:
        """What the environment was set up with."""
        return {"type": type(self).__name__, "tool_names": sorted(self.tools)}


def _call(owner: Any, hook: str, *args: Any) -> None:
    method = getattr(owner, hook, None)
    if callable(method):
        method(*args)
