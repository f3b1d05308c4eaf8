"""Running an evaluation on an event loop of its own, as `asyncio.run` does, except at the
end: an agent left behind past its deadline is not waited for.

`asyncio.run` cancels the tasks still pending when the main coroutine returns and waits until
every one has ended. An agent that catches its cancellation and goes on (or never awaits
again) would hold the evaluation, and `assay run`, for as long as it likes. Here such tasks
get `GRACE_S` to end once cancelled; a task still running then is abandoned with the loop.
Ctrl-C cancels the main coroutine, as with `asyncio.run`, and is raised as
`KeyboardInterrupt` once it has ended (a second Ctrl-C raises at once).

Example:
    >>> async def main() -> int:
    ...     return 7
    >>> run_to_end(main())
    7
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

__all__ = ["GRACE_S", "run_to_end"]

T = TypeVar("T")

GRACE_S = 1.0
"""Seconds the tasks still pending at the end get to end once cancelled."""


def run_to_end(main: Coroutine[Any, Any, T], *, grace_s: float = GRACE_S) -> T:
    """`main` run to its end on a new event loop, then the loop closed without waiting more
    than `grace_s` for what is left.

    Raises:
        KeyboardInterrupt: Ctrl-C cancelled `main` (what it saved on its way out is saved).
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    task = loop.create_task(main)
    interrupts = _Interrupts(loop, task)
    try:
        with interrupts:
            try:
                return loop.run_until_complete(task)
            except asyncio.CancelledError:
                if interrupts.count:
                    raise KeyboardInterrupt from None
                raise
    finally:
        try:
            _end_pending(loop, grace_s)
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _end_pending(loop: asyncio.AbstractEventLoop, grace_s: float) -> None:
    """Cancel what is still pending, give it `grace_s`, and leave what did not end."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending, timeout=grace_s))
    for task in pending:
        if not task.done():
            # Left on purpose: no "Task was destroyed but it is pending!" about it.
            with contextlib.suppress(AttributeError):
                task._log_destroy_pending = False  # type: ignore[attr-defined]
        elif not task.cancelled():
            task.exception()  # an agent left behind: what it raised afterwards is ignored
    for finishing in (loop.shutdown_asyncgens(), loop.shutdown_default_executor()):
        with contextlib.suppress(TimeoutError):
            loop.run_until_complete(asyncio.wait_for(finishing, grace_s))


class _Interrupts:
    """While entered (in the main thread, where Ctrl-C is Python's default): the first
    Ctrl-C cancels `task`, a second one raises `KeyboardInterrupt` at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        self.loop = loop
        self.task = task
        self.count = 0
        self._previous: Any = None

    def __enter__(self) -> _Interrupts:
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self._previous = signal.signal(signal.SIGINT, self._on_interrupt)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.count == 1 and not self.task.done():
            self.task.cancel()
            # Wake the loop, which may be waiting on its selector.
            self.loop.call_soon_threadsafe(lambda: None)
            return
        raise KeyboardInterrupt
