"""The console summary, printed by a helper process that got rich ready while the run went on.

rich takes some 20 ms of CPU to import and warm up. Imported in the evaluating process, that
time is taken from scoring (the workers and the process that writes the reports share the
machine's cores). A helper forked at start-up imports rich while the evaluating process is
still importing the pipeline on one core, so the other core, idle until the workers start,
pays for it. At the end the helper gets the summary over a pipe, renders it whole, and writes
it to the standard output it shares with its parent.

It is only a faster way to the same output: where there is no fork, or the standard output
is not the process's own (a test capturing it, say), `start` gives None and the caller prints
the usual way; should the helper fail before writing, the summary is printed here instead.

Example:
    >>> printer = SummaryPrinter.start()  # None where the helper can't be used
    >>> if printer is not None:
    ...     printer.close()  # no summary after all (an error, Ctrl-C): the helper leaves
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from pathlib import Path

from assay._io import flush_standard_streams, message, read_message, write_all
from assay.results import RunSummary


class SummaryPrinter:
    """A forked helper that prints one summary, the same as `print_summary` would."""

    def __init__(self, pid: int, summaries: int) -> None:
        self._pid = pid
        self._summaries = summaries
        """The write end of the pipe the helper reads its summary from."""

    @classmethod
    def start(cls) -> SummaryPrinter | None:
        """Fork the helper, or None where printing here is the only way to the same output."""
        if not hasattr(os, "fork") or sys.stdout is not sys.__stdout__ or sys.stdout is None:
            return None
        try:
            sys.stdout.fileno()
        except (AttributeError, OSError, ValueError):
            return None
        flush_standard_streams()  # anything buffered now would be written by both processes
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no room for another process: print here
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:  # the helper: print, then leave without running the parent's exit code
            status = _NOT_PRINTED
            try:
                os.close(write_end)
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                status = _serve(read_end)
            finally:
                os._exit(status)
        os.close(read_end)
        return cls(pid, write_end)

    def print(self, summary: RunSummary, reports_dir: Path, *, verbose: bool = False) -> None:
        """Print `summary` (by the helper, or here if the helper could not)."""
        flush_standard_streams()  # whatever this process wrote meanwhile comes first
        if self._finish((summary, reports_dir, verbose)) != _PRINTED:
            from assay.reports.console import print_summary

            print_summary(summary, reports_dir, verbose=verbose)

    def close(self) -> None:
        """Let the helper go without printing (does nothing after `print`)."""
        self._finish(None)

    def _finish(self, request: tuple[RunSummary, Path, bool] | None) -> int | None:
        """Send the helper its one request and wait for it to end; its exit status, or None
        if it had ended already."""
        if self._summaries < 0:
            return None
        # A message, not the end of the pipe, tells the helper to go: worker processes
        # forked later hold copies of this write end, so its end may come later than ours.
        body = b""
        if request is not None:
            with contextlib.suppress(Exception):  # (it is plain data) else: printed here
                body = pickle.dumps(request, pickle.HIGHEST_PROTOCOL)
        with contextlib.suppress(OSError):  # the helper is gone: the caller prints instead
            write_all(self._summaries, message(body))
        os.close(self._summaries)
        self._summaries = -1
        try:
            _, status = os.waitpid(self._pid, 0)
        except ChildProcessError:
            return None
        return os.waitstatus_to_exitcode(status)


_PRINTED = 0
_NOT_PRINTED = 1
"""The helper's exit statuses. "Printed" includes a standard output that is gone: printing in
the parent would fail the same way."""


def _serve(requests: int) -> int:
    """The helper's work: get rich ready, wait for the summary, print it whole."""
    from assay.reports.console import preload, render_summary

    preload()
    # One message: a pickle of (summary, reports directory, verbose), or nothing to print.
    body = read_message(requests)
    if not body:  # nothing to print, or the parent ended without a word
        return _NOT_PRINTED
    summary, reports_dir, verbose = pickle.loads(body)
    # Rendered whole before any of it is written: a failure up to here prints nothing, and the
    # parent then prints the summary itself.
    text = render_summary(summary, reports_dir, verbose=verbose)
    with contextlib.suppress(OSError):  # the reader went away (`assay ... | head`)
        sys.stdout.write(text)
        sys.stdout.flush()
    return _PRINTED
