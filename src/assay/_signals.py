"""Ctrl-C and SIGTERM as one exception that remembers which it was.

Both stop a run the same way (what finished is saved, the aggregate of it written); the exit
code then says which stopped it, as shells do: 130 for Ctrl-C (SIGINT), 143 for SIGTERM.

Example:
    >>> import signal
    >>> exit_code_of(Stopped(signal.SIGTERM)), exit_code_of(KeyboardInterrupt())
    (143, 130)
"""

from __future__ import annotations

import signal

__all__ = ["Stopped", "exit_code_of"]


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal (a KeyboardInterrupt, so that whatever handles Ctrl-C
    handles SIGTERM too)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        """The signal that stopped the run."""


def exit_code_of(interrupt: KeyboardInterrupt) -> int:
    """The exit code of a command stopped by `interrupt`: 128 plus the signal's number."""
    signum = interrupt.signum if isinstance(interrupt, Stopped) else signal.SIGINT
    return 128 + int(signum)
