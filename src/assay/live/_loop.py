"""Running an evaluation on an event loop of its own, as `asyncio.run` does, except where an
agent misbehaves.

- **At the end**, `asyncio.run` cancels the tasks still pending and waits until every one has
  ended: an agent that catches its cancellation and goes on would hold the evaluation for as
  long as it likes. Here such tasks get `GRACE_S` to end once cancelled, then are abandoned.
- **An agent that blocks the loop** (`time.sleep` in an `async def`, a CPU-bound loop) stops
  every other case, every timeout and every signal handled on the loop. A watchdog thread
  outside the loop sees the loop stall; past `block_limit_s` it interrupts the agent that is
  blocking it with `LoopBlockedError` (raised in the agent's own code, through a signal to the
  main thread), which the runner records as that case's timeout.
- **Ctrl-C and SIGTERM** cancel the main coroutine, which saves what finished on its way out,
  and are raised as `KeyboardInterrupt` once it has ended; when an agent blocks the loop, it
  is interrupted first, so the loop can do that. A second signal raises at once.

Signals are only handled in the main thread (Python delivers them there); elsewhere the
evaluation runs as with `asyncio.run`, apart from the bounded end.

Example:
    >>> async def main() -> int:
    ...     return 7
    >>> run_to_end(main())
    7
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import signal
import threading
import time
import weakref
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

from assay._signals import Stopped

__all__ = [
    "AGENT_TASKS",
    "GRACE_S",
    "UNIT_NAME",
    "LoopBlockedError",
    "LoopWatch",
    "left_behind",
    "run_to_end",
    "stalled_seconds",
]

T = TypeVar("T")

GRACE_S = 1.0
"""Seconds the tasks still pending at the end get to end once cancelled."""

BEAT_S = 0.05
"""How often the loop tells the watchdog it is alive."""

RETRY_S = 0.2
"""How soon an interrupt is raised again when the one raised did not take: Python ignores an
exception raised in a garbage collector's callback or a `__del__` the signal landed in, and an
agent may swallow it; the loop, still held, never beat since."""

AGENT_TASKS: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
"""The tasks running an agent's code (the runner adds them): only these are ever interrupted
for blocking the loop, never assay's own."""

UNIT_NAME: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "assay_unit_name", default=None
)
"""The run id of the unit being executed, where an executor sets it: the name the runner
gives the agent tasks it starts, by which a `LoopWatch` says which unit held the loop."""

_WATCHDOG_SIGNAL: signal.Signals | None = getattr(signal, "SIGUSR1", None)

_GUARDS: dict[asyncio.AbstractEventLoop, LoopWatch] = {}

_LEFT: list[asyncio.Task[Any]] = []
"""Tasks still running when their loop closed. Kept, so that their code does not run again
when the garbage collector closes them at some later moment (a coroutine that is closed runs
its `except` and `finally` blocks, which an agent that refuses to stop may loop in)."""


def left_behind() -> bool:
    """Whether an evaluation of this process left an agent's task running: the process
    should then end without closing it (`assay run` ends with `os._exit`).

    Example:
        >>> left_behind()
        False
    """
    return bool(_LEFT)


def stalled_seconds() -> float:
    """Seconds the running loop has been held by code that did not yield (measured by the
    watchdog's heartbeat; 0 where there is none): time no case could use, which a case's
    deadline does not count.

    Example:
        >>> stalled_seconds()
        0.0
    """
    try:
        guard = _GUARDS.get(asyncio.get_running_loop())
    except RuntimeError:
        return 0.0
    return 0.0 if guard is None else guard.stalled_total


class LoopBlockedError(BaseException):
    """Raised in an agent's code that held the event loop past the limit. A BaseException,
    so that an agent's `except Exception` does not swallow it."""


def run_to_end(
    main: Coroutine[Any, Any, T],
    *,
    grace_s: float = GRACE_S,
    block_limit_s: float | None = None,
) -> T:
    """`main` run to its end on a new event loop, then the loop closed without waiting more
    than `grace_s` for what is left; an agent blocking the loop past `block_limit_s` (None:
    no limit) is interrupted.

    Raises:
        KeyboardInterrupt: Ctrl-C or SIGTERM cancelled `main` (what it saved on its way out is
            saved).
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    task = loop.create_task(main)
    guard = _Guard(loop, task, block_limit_s)
    try:
        with guard:
            try:
                return loop.run_until_complete(task)
            except asyncio.CancelledError:
                if guard.stopped_by is not None:
                    raise Stopped(guard.stopped_by) from None
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
            _LEFT.append(task)
        elif not task.cancelled():
            task.exception()  # an agent left behind: what it raised afterwards is ignored
    for finishing in (loop.shutdown_asyncgens(), loop.shutdown_default_executor()):
        with contextlib.suppress(TimeoutError):
            loop.run_until_complete(asyncio.wait_for(finishing, grace_s))


class LoopWatch:
    """A heartbeat on an event loop, watched from a thread of its own: how long the loop was
    held by code that did not yield (`stalled_seconds` on the loop), and, past
    `block_limit_s`, the names of the agents' tasks that held it (`blockers`). `run_to_end`
    also interrupts such an agent; where no signal reaches the loop's thread (a Ray worker's
    loop), this is what says which unit held it.

    Example:
        >>> async def main() -> list[str]:
        ...     watch = LoopWatch(asyncio.get_running_loop(), 1.0)
        ...     watch.start()
        ...     watch.stop()
        ...     return watch.blockers
        >>> asyncio.run(main())
        []
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, block_limit_s: float | None) -> None:
        self.loop = loop
        self.block_limit_s = block_limit_s
        self.blockers: list[str] = []
        """The names of the agent tasks that held the loop past the limit, in order."""
        self._last_beat = time.monotonic()
        self.stalled_total = 0.0
        """Seconds the loop was held past its heartbeat, in all."""
        self._beat_handle: asyncio.TimerHandle | None = None
        self._stop = threading.Event()
        self._watchdog: threading.Thread | None = None

    def start(self) -> None:
        """Start the heartbeat (from the loop's thread) and, with a limit, the watchdog."""
        _GUARDS[self.loop] = self
        self._beat()
        if self.block_limit_s is not None:
            self._watchdog = threading.Thread(
                target=self._watch, name="assay-loop-watchdog", daemon=True
            )
            self._watchdog.start()

    def stop(self) -> None:
        """Stop both."""
        if _GUARDS.get(self.loop) is self:
            del _GUARDS[self.loop]
        self._stop.set()
        if self._watchdog is not None:
            self._watchdog.join()
        if self._beat_handle is not None:
            self._beat_handle.cancel()

    def _beat(self) -> None:
        now = time.monotonic()
        late = now - self._last_beat - BEAT_S
        if late > BEAT_S:  # more than scheduling jitter: the loop was held
            self.stalled_total += late
        self._last_beat = now
        self._beat_handle = self.loop.call_later(BEAT_S, self._beat)

    def held_for(self) -> float:
        """Seconds since the loop's last heartbeat: how long it has been held, when it is."""
        return time.monotonic() - self._last_beat

    def _watch(self) -> None:
        """In a thread of its own: `_on_stall` whenever the loop has been stalled past the
        limit (again each further limit, or after `RETRY_S` when the interrupt was lost)."""
        limit = self.block_limit_s
        assert limit is not None
        fired_at = 0.0
        while not self._stop.wait(BEAT_S):
            if self.held_for() <= limit:
                continue
            since = time.monotonic() - fired_at
            if since > limit or (since > RETRY_S and self._interrupt_lost()):
                fired_at = time.monotonic()
                self._on_stall()

    def _interrupt_lost(self) -> bool:
        """Whether an interrupt was raised in the code holding the loop and did not stop it
        (only `run_to_end`'s guard raises one)."""
        return False

    def _on_stall(self) -> None:
        task = self._agent_task()
        if task is not None:
            self.blockers.append(task.get_name())

    def _agent_task(self) -> asyncio.Task[Any] | None:
        """The agent's task running on the loop now, if one is."""
        try:
            current = asyncio.current_task(self.loop)
        except RuntimeError:
            return None
        return current if current is not None and current in AGENT_TASKS else None


class _Guard(LoopWatch):
    """While entered, in the main thread: Ctrl-C and SIGTERM handled as the module says, and
    a watchdog on the loop that interrupts an agent holding it."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        task: asyncio.Task[Any],
        block_limit_s: float | None,
    ) -> None:
        super().__init__(loop, block_limit_s)
        self.task = task
        self.interrupts = 0
        self.stopped_by: int | None = None
        """The first of Ctrl-C and SIGTERM that came, if one did."""
        self._previous: dict[int, Any] = {}
        self._raised_at_beat: float | None = None
        """The heartbeat the last `LoopBlockedError` was raised after, and in which task."""
        self._raised_in: asyncio.Task[Any] | None = None

    def __enter__(self) -> _Guard:
        if threading.current_thread() is not threading.main_thread():
            return self
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) in (signal.default_int_handler, signal.SIG_DFL):
                self._previous[signum] = signal.signal(signum, self._on_interrupt)
        watchdog = _WATCHDOG_SIGNAL
        if (
            self.block_limit_s is not None
            and watchdog is not None
            and signal.getsignal(watchdog) in (signal.SIG_DFL, None)
        ):
            self._previous[watchdog] = signal.signal(watchdog, self._on_watchdog)
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _on_stall(self) -> None:
        super()._on_stall()
        assert _WATCHDOG_SIGNAL is not None
        signal.pthread_kill(threading.main_thread().ident or 0, _WATCHDOG_SIGNAL)

    def _on_watchdog(self, signum: int, frame: FrameType | None) -> None:
        # In the main thread, in whatever code holds the loop: interrupt it only if it is an
        # agent's (the loop may have moved on since the watchdog looked).
        limit = self.block_limit_s
        task = self._agent_task()
        if limit is None or task is None or self.held_for() <= limit:
            return
        if self._raised_at_beat == self._last_beat and task is not self._raised_in:
            return  # the last interrupt took; the loop runs what was ready before it beats
        self._raised_at_beat, self._raised_in = self._last_beat, task
        raise LoopBlockedError(f"blocked the event loop for more than {limit:g} s")

    def _interrupt_lost(self) -> bool:
        # The task interrupted still runs and the loop has not beaten since: the interrupt was
        # swallowed where it landed.
        return self._raised_at_beat == self._last_beat and self._agent_task() is self._raised_in

    def _agent_running(self) -> bool:
        return self._agent_task() is not None

    # Ctrl-C and SIGTERM.

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        self.interrupts += 1
        if self.stopped_by is None:
            self.stopped_by = signum
        if self.interrupts > 1 or self.task.done():
            raise Stopped(signum)
        self.task.cancel()
        # Wake the loop, which may be waiting on its selector.
        self.loop.call_soon_threadsafe(lambda: None)
        if self._agent_running():
            # An agent's code holds the loop (it may never give it back): take it back, so
            # the cancellation can run; the run is dropped with the rest of those in flight.
            raise LoopBlockedError("interrupted with the evaluation")
