"""The canonical JSON reports: one file per run, `results.jsonl`, and `_aggregate.json`."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson

from assay._jsonable import dumps_lenient
from assay.reports.files import (
    ReportNames,
    inside,
    remove_temporaries,
    write_atomic,
)
from assay.results import CaseResult, RunSummary

AGGREGATE_FILE = "_aggregate.json"
RESULTS_FILE = "results.jsonl"
_OPTIONS = orjson.OPT_NON_STR_KEYS
LINES_PER_FLUSH = 64
"""`results.jsonl` lines written between flushes: a write call per line cost more than the
line itself, and 64 lines are a few milliseconds of scoring."""


class ReportWriter:
    """Writes reports into one directory as results arrive.

    Per-run reports and the aggregate are written atomically; `results.jsonl` gets one line per
    run, flushed every `LINES_PER_FLUSH` lines and when the writer closes (an exception
    included), so a crash keeps every line but those of the last few milliseconds, whose
    report files are written already.
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory.resolve()
        self._directory_text = os.fspath(self.directory)
        self._names = ReportNames()
        self._lines: IO[bytes] | None = None
        self._unflushed = 0

    def __enter__(self) -> ReportWriter:
        # O_NOFOLLOW: a results.jsonl that is a symbolic link is refused (ELOOP), never followed
        # to truncate a file outside the reports directory.
        path = inside(self.directory, RESULTS_FILE)
        flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            descriptor = os.open(path, flags, 0o666)
        except OSError as error:
            if os.path.islink(path):  # noqa: PTH114
                raise OSError(
                    error.errno, "refusing to write through a symbolic link", path
                ) from None
            raise
        try:
            _lock(descriptor, self._directory_text)
            os.ftruncate(descriptor, 0)  # only once the directory is this evaluation's
            # Temporaries an earlier evaluation left when it was killed: no evaluation can be
            # writing them now that this one holds the directory.
            remove_temporaries(self.directory)
        except BaseException:
            os.close(descriptor)
            raise
        self._lines = open(descriptor, "wb", buffering=1 << 17)  # noqa: PTH123
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._lines is not None:
            self._lines.close()
            self._lines = None
        if exc_type is not None:
            # Workers may have written reports that were never named; a finished evaluation
            # named every one, and listing a directory of many thousand reports is not free.
            remove_temporaries(self.directory)

    def adopt(self, wanted: str | None, temporary: str, line: bytes) -> str:
        """Name a report written by `write_temporary` after `wanted` (a run or scenario id),
        write its `results.jsonl` line, and return the report's file name.

        The report may have been rendered and written by a worker process; naming it is the
        one step that has to happen here, in order.
        """
        report_file = f"{self._names.allocate(wanted)}.json"
        os.replace(temporary, inside(self._directory_text, report_file))  # noqa: PTH105
        if self._lines is not None:
            # The line names the report file, which is only known here: splice it in as the
            # last member of the object rather than parse and re-serialise the line.
            member = b',"report_file":' + orjson.dumps(report_file) + b"}"
            self._lines.write(line[:-1] + member + b"\n")
            self._unflushed += 1
            if self._unflushed == LINES_PER_FLUSH:
                self._lines.flush()
                self._unflushed = 0
        return report_file

    def write_summary(self, summary: RunSummary) -> None:
        """Write `_aggregate.json`."""
        # Lenient, as the reports are: a lone surrogate that reached a figure's name (a YAML
        # scenario's type written as "\ud800") is escaped rather than lose the aggregate.
        data = dumps_lenient(summary.to_report(), option=_OPTIONS | orjson.OPT_INDENT_2)
        write_atomic(inside(self.directory, AGGREGATE_FILE), data)


def _lock(descriptor: int, directory: str) -> None:
    """Take the reports directory for this evaluation by locking its `results.jsonl`, or fail
    at once if another evaluation has it.

    Two evaluations writing into one directory interleave their results.jsonl lines and leave
    reports that neither lists. The lock is the kernel's (`flock`) and lasts as long as the
    file is open: a process that is killed releases it, so a stale lock is never obeyed.
    Forked workers share it. Where the platform has no such locks, nothing is locked.

    Raises:
        OSError: EBUSY, another evaluation is writing into the directory.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no advisory locks on this platform
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise OSError(
            errno.EBUSY, "another evaluation is writing into this reports directory", directory
        ) from None


def render(result: CaseResult) -> tuple[bytes, bytes]:
    """The per-run report and its `results.jsonl` line (without the per-key records).

    Pure, and bytes out: it runs where the scoring runs (a worker process, say). The report
    does not name its own file; the `results.jsonl` line does.
    """
    report = result.to_report()
    data = _dumps(report)
    # Per-key records stay in the per-run file.
    report["score"] = _without_records(report["score"])
    if "scores" in report:
        report["scores"] = [_without_records(part) for part in report["scores"]]
    return data, _dumps(report)


def _without_records(score: dict[str, Any]) -> dict[str, Any]:
    details = score["details"]
    if "details" not in details:
        return score
    return dict(score, details={k: v for k, v in details.items() if k != "details"})


def _dumps(value: Any) -> bytes:
    # A value orjson cannot write (an int beyond 64 bits, an odd object, a key that is not a
    # string) must not lose the report: such values are written as strings instead. Reports
    # are written without OPT_NON_STR_KEYS, which costs orjson its fast path on every key;
    # the rare report with other keys takes the lenient way.
    return dumps_lenient(value)
