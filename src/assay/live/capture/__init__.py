"""The capture of live runs: one collector per run (a context variable, carried into the threads
and tasks the agent starts), `@tool` and `record_tool_call` for tools, and LangChain callbacks
(`assay.live.capture.langchain`, with the `langchain` extra).

Example:
    >>> with capturing(TrajectoryCollector()) as collector:
    ...     _ = record_tool_call("search", {"q": "x"}, result="found")
    >>> [step.tool_calls[0].name for step in collector.to_steps()]
    ['search']
"""

from assay.live.capture.collector import (
    ModelCall,
    TrajectoryCollector,
    capture_context,
    capturing,
    current_collector,
    record_tool_call,
    tool,
)

__all__ = [
    "ModelCall",
    "TrajectoryCollector",
    "capture_context",
    "capturing",
    "current_collector",
    "record_tool_call",
    "tool",
]
