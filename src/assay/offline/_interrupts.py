"""Ctrl-C and SIGTERM that wait for the end of a step, so that an interrupted evaluation
leaves whole reports, each counted (see `DeferrableInterrupts`).

Example:
    >>> with DeferrableInterrupts() as interrupts, interrupts.step:
    ...     pass
"""

from __future__ import annotations

import signal
from typing import Any

from assay._signals import Stopped

__all__ = ["DeferrableInterrupts", "Step"]


class DeferrableInterrupts:
    """Ctrl-C (and SIGTERM, what `timeout` and service managers send) that waits for the end
    of a `step`, in the main thread.

    Python raises KeyboardInterrupt wherever the main thread happens to be; between naming a
    report and counting it, that would leave a report the summary and results.jsonl never
    mention. SIGTERM is handled as Ctrl-C is: the report in hand is finished and the aggregate
    of what finished is written, where the default action would end the process at once.
    Where another handler is installed (or in another thread, where handlers cannot be
    installed), each signal behaves as it always does.
    """

    _DEFAULTS = ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL))
    """Each signal handled, and the handler it must have for this to take it over."""

    def __init__(self) -> None:
        self._previous: list[tuple[int, Any]] = []
        self.step = Step()
        """`with interrupts.step:` runs the block to its end before an interrupt is raised."""

    def __enter__(self) -> DeferrableInterrupts:
        for signum, default in self._DEFAULTS:
            if signal.getsignal(signum) is default:
                try:
                    self._previous.append((signum, signal.signal(signum, self.step.interrupt)))
                except ValueError:  # not the main thread
                    break
        return self

    def __exit__(self, *exc_info: object) -> None:
        while self._previous:
            signum, previous = self._previous.pop()
            signal.signal(signum, previous)


class Step:
    """The step context of `DeferrableInterrupts` (a class, not a generator: one per run)."""

    __slots__ = ("busy", "pending")

    def __init__(self) -> None:
        self.busy = False
        self.pending: int | None = None
        """The signal that came during the step, raised at its end."""

    def interrupt(self, signum: int, frame: object) -> None:
        if self.busy:
            self.pending = signum
        else:
            raise Stopped(signum)

    def __enter__(self) -> None:
        self.busy = True

    def __exit__(self, *exc_info: object) -> None:
        self.busy = False
        if self.pending is not None:
            signum, self.pending = self.pending, None
            raise Stopped(signum)
