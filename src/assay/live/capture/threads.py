"""Threads an agent starts, carrying its case's capture along.

A thread does not inherit the context of the code that starts it, so a `@tool` called in it
cannot tell which case it runs for (see `assay.live.capture.tool`). These start the work in a
copy of the starter's context instead, as `asyncio.to_thread` does: every call is then
recorded into its own case, however many cases run at once.

Example:
    >>> from assay.live.capture import TrajectoryCollector, capturing, tool
    >>> @tool
    ... def square(x: int) -> int:
    ...     return x * x
    >>> collector = TrajectoryCollector()
    >>> with capturing(collector), ContextThreadPoolExecutor(max_workers=4) as pool:
    ...     list(pool.map(square, range(5)))
    [0, 1, 4, 9, 16]
    >>> len(collector.tool_calls)
    5
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["ContextThreadPoolExecutor", "propagate"]

P = ParamSpec("P")
T = TypeVar("T")


class ContextThreadPoolExecutor(ThreadPoolExecutor):
    """A `ThreadPoolExecutor` whose tasks run in a copy of the context they were submitted
    from (`submit`, and `map`, which submits): a drop-in replacement that lets `@tool` calls
    made in its threads be recorded into the case that submitted them."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        # A copy per task: one context cannot be entered by two threads at once.
        context = contextvars.copy_context()

        def run() -> T:
            return context.run(fn, *args, **kwargs)

        return super().submit(run)


def propagate(function: Callable[P, T]) -> Callable[P, T]:
    """`function`, to be run in another thread (`threading.Thread(target=propagate(work))`) in
    a copy of the context current now, so that the `@tool` calls it makes are recorded into
    the case that is running here.

    Example:
        >>> import threading
        >>> from assay.live.capture import TrajectoryCollector, capturing, current_collector
        >>> seen = []
        >>> collector = TrajectoryCollector()
        >>> def work() -> None:
        ...     seen.append(current_collector())
        >>> with capturing(collector):
        ...     thread = threading.Thread(target=propagate(work))
        >>> thread.start(); thread.join()
        >>> seen == [collector]
        True
    """
    context = contextvars.copy_context()

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        # A copy per call: the function may run in several threads at once.
        return context.copy().run(function, *args, **kwargs)

    return run
