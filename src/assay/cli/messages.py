"""What the commands say on standard error, when the process has one.

A process started with standard error closed has `sys.stderr` set to None, and `print` to
None writes to standard output instead: into a summary, or into data a script reads.

Example:
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as said:
    ...     error("no such file or directory: runs/")
    >>> said.getvalue()
    'assay: error: no such file or directory: runs/\\n'
"""

from __future__ import annotations

import sys


def error(message: str) -> None:
    """Say `assay: error: <message>` on standard error."""
    say(f"assay: error: {message}")


def say(line: str) -> None:
    """Write `line` on standard error, or nowhere if the process has none."""
    if sys.stderr is not None:
        print(line, file=sys.stderr)
