"""The capture of live runs: one collector per run (a context variable, carried into the tasks
the agent starts, and into its threads by `ContextThreadPoolExecutor` and `propagate`), `@tool`
and `record_tool_call` for tools, and LangChain callbacks (`assay.live.capture.langchain`, with
the `langchain` extra).

Example:
    >>> with capturing(TrajectoryCollector()) as collector:
    ...     _ = record_tool_call("search", {"q": "x"}, result="found")
    >>> [step.tool_calls[0].name for step in collector.to_steps()]
    ['search']
"""

from assay.live.capture.collector import (
    ModelCall,
    TrajectoryCollector,
    call_in_flight,
    capture_advice,
    capture_context,
    capturing,
    current_collector,
    outside_calls,
    record_tool_call,
    tool,
)
from assay.live.capture.threads import ContextThreadPoolExecutor, propagate

__all__ = [
    "ContextThreadPoolExecutor",
    "ModelCall",
    "TrajectoryCollector",
    "call_in_flight",
    "capture_advice",
    "capture_context",
    "capturing",
    "current_collector",
    "outside_calls",
    "propagate",
    "record_tool_call",
    "tool",
]
