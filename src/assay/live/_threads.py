"""Running a user's synchronous code (a sync agent, a sync tool) off the event loop, in a thread
that a timeout can leave behind.

`asyncio.to_thread` would do, but for one thing: its threads belong to the loop's default
executor, which `asyncio.run` waits for before it returns, and the interpreter again at exit.
A sync agent that hangs past its timeout cannot be stopped (Python cannot kill a thread); with
`to_thread` it would still hold the whole evaluation, and `assay run`, until it returned, if
ever. Here each call gets a daemon thread: the awaiting coroutine can be cancelled at the
timeout, and a thread still running then is abandoned, never waited for. The thread runs in
a copy of the caller's context, so the case's capture goes along, and keeps its case in flight
while it runs (`call_in_flight`): a tool called from a thread it started is never taken for the
next case's.

Example:
    >>> import asyncio
    >>> asyncio.run(in_thread(sum, [1, 2, 3]))
    6
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from assay.live.capture import call_in_flight

__all__ = ["in_thread"]

T = TypeVar("T")


async def in_thread(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`function(*args, **kwargs)` in a daemon thread of its own, awaited."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Callable[[], None]) -> None:
        # A closed loop: nobody waits for this call any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(outcome)

    def target() -> None:
        try:
            result = context.run(call_in_flight, function, *args, **kwargs)
        except BaseException as exc:  # handed to the awaiting coroutine, raised there
            error = exc
            settle(lambda: None if future.done() else future.set_exception(error))
        else:
            settle(lambda: None if future.done() else future.set_result(result))

    threading.Thread(target=target, name="assay-sync-call", daemon=True).start()
    return await future
