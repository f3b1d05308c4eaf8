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
    r"""Say `assay: error: <message>` on standard error, as one line with every control
    character written as an escape (`reports.console.shown`).

    Example:
        >>> import contextlib, io
        >>> with contextlib.redirect_stderr(io.StringIO()) as said:
        ...     error("eval_id used by more than one case: a\x1b[2Jb")
        >>> said.getvalue()
        'assay: error: eval_id used by more than one case: a\\x1b[2Jb\n'
    """
    # A message holds data from the user's files and code (an eval id, a criterion's name, an
    # exception's text): escaped here, once for every message, it never drives the terminal.
    # Imported only when something goes wrong, so that start-up stays fast.
    from assay.reports.console import shown

    say(f"assay: error: {shown(message)}")


def say(line: str) -> None:
    """Write `line` on standard error, or nowhere if the process has none."""
    if sys.stderr is not None:
        print(line, file=sys.stderr)
