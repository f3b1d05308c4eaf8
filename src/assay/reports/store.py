"""The reports directory: its file names, its lock, and the canonical JSON reports written into
it (one file per run, the append-only `results.jsonl`, `_aggregate.json`, `_config.json` and
the marker), kept or cut back to whole lines on resume. Reading them back is `reports.read`'s;
the file primitives (atomic writes, report names) are `reports.files`'.

Example:
    >>> import tempfile
    >>> with ReportWriter(Path(tempfile.mkdtemp())) as writer:
    ...     sorted(p.name for p in writer.directory.iterdir())
    ['.assay_reports', 'results.jsonl']
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec
import orjson
from msgspec import structs

from assay.__version__ import __version__
from assay._jsonable import dumps_lenient, json_type, nested_deeper_than
from assay._text import text_of
from assay.formats.registry import REPORTS_MARKER
from assay.reports.files import (
    ReportNames,
    inside,
    open_for_writing,
    read_regular,
    remove_temporaries,
    whole_object_lines,
    write_atomic,
    write_lines,
)
from assay.results import CaseResult, RunSummary, Score
from assay.schema.report import Aggregate, OpsRecord, RunReport, ScoreRecord, validate

AGGREGATE_FILE = "_aggregate.json"
RESULTS_FILE = "results.jsonl"
MARKER_FILE = REPORTS_MARKER
"""`.assay_reports`, written into every reports directory: reading runs, assay skips a
directory holding it, so that reports are never read back as runs. Small JSON:
`{"assay_reports": 1, "assay_version": ..., "note": ...}`."""
CONFIG_FILE = "_config.json"
"""What the runs were checked with, as an `EvalConfig` (`assay evaluate --config`, `assay run
--config` and `assay rescore --config` read it back): written into every reports directory."""
_OPTIONS = orjson.OPT_NON_STR_KEYS
LINES_PER_FLUSH = 64
"""`results.jsonl` lines written in one call: a write call per line cost more than the line
itself, and 64 lines are a few milliseconds of scoring."""


class ReportWriter:
    """Writes reports into one directory as results arrive.

    Per-run reports and the aggregate are written atomically; `results.jsonl` gets one line per
    run, after the run's report is in place, written every `LINES_PER_FLUSH` lines and when the
    writer closes (an exception included). Lines are written whole, by `os.write` calls that
    each end on a line's end: a kill at any moment leaves complete lines only (but for a write
    call the kernel itself cut short, which `read_results` tolerates), every one of which
    names a report that exists.

    Nothing is written through a symbolic link or over what is not a regular file: the
    directory itself may be a link (the user named it), but a `results.jsonl`,
    `_aggregate.json` or marker that is a link, a FIFO, a device or a directory is refused
    before anything is written, and no report is renamed onto such an entry.
    """

    def __init__(
        self,
        directory: Path,
        *,
        resume: bool = False,
        keep: Callable[[dict[str, Any]], bool] | None = None,
        lines_per_flush: int = LINES_PER_FLUSH,
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.resume = resume
        """Keep the results.jsonl lines an earlier evaluation wrote (a resumed live run), and
        add to them, instead of starting it afresh."""
        self.kept: list[dict[str, Any]] = []
        """With `resume`: the earlier lines kept, in file order (their reports exist)."""
        self._keep = keep
        """With `resume`: which earlier lines to keep (None: all); the others are dropped
        and their reports removed (runs of another eval set, or of a case since changed)."""
        self.directory = directory.resolve()
        self._directory_text = os.fspath(self.directory)
        self._names = ReportNames()
        self._descriptor: int | None = None
        self._size = 0
        """Bytes of whole lines in results.jsonl."""
        self._pending = bytearray()
        self._unwritten = 0
        self._lines_per_flush = lines_per_flush
        """Lines buffered before a write: 1 makes each line durable as its run ends (a live
        run, whose runs take far longer than a write)."""

    def __enter__(self) -> ReportWriter:
        path = inside(self.directory, RESULTS_FILE)
        descriptor = open_for_writing(path)
        try:
            _lock(descriptor, self._directory_text)
            # Temporaries an earlier evaluation left when it was killed: no evaluation can be
            # writing them now that this one holds the directory.
            irregular = remove_temporaries(self.directory)
            for name in irregular:
                if name in (AGGREGATE_FILE, MARKER_FILE):
                    raise OSError(
                        errno.EEXIST,
                        "not a regular file, refusing to replace it",
                        inside(self.directory, name),
                    )
                # A directory, link or FIFO named like a report keeps its name: the report
                # that would have had it gets the next free one.
                stem, dot, suffix = name.rpartition(".")
                if dot and suffix.lower() == "json":
                    self._names.allocate(stem)
            if self.resume:
                kept, whole = self._kept_lines(path)
                if not whole:
                    descriptor = self._rewrite(path, descriptor, kept)
                self._size = len(kept)
            os.ftruncate(descriptor, self._size)  # only once the directory is this evaluation's
            os.lseek(descriptor, self._size, os.SEEK_SET)
            # The earlier evaluation's aggregate describes reports this one replaces: were this
            # one killed, it would be left beside a results.jsonl it does not describe.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(inside(self.directory, AGGREGATE_FILE))  # noqa: PTH108
            write_atomic(inside(self.directory, MARKER_FILE), _marker())
        except BaseException:
            os.close(descriptor)
            raise
        self._descriptor = descriptor
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            try:
                pending, self._pending = self._pending, bytearray()
                if pending:
                    self._size = write_lines(descriptor, pending, self._size)
            except OSError:
                if exc_type is None:
                    raise
                # Already failing: the error in hand is the one to report, and the file was
                # cut back to whole lines.
            finally:
                os.close(descriptor)
        if exc_type is not None:
            # Workers may have written reports that were never named; a finished evaluation
            # named every one, and listing a directory of many thousand reports is not free.
            remove_temporaries(self.directory)

    def _kept_lines(self, path: str) -> tuple[bytes, bool]:
        """The whole lines of an earlier results.jsonl whose reports exist, remembered in
        `kept` with their report names reserved (a line cut short by a kill, a second line
        for one report, and the lines `keep` refuses are dropped); and whether they are the
        file's start, so that cutting the file back to their length leaves just them."""
        try:
            data = read_regular(path)
        except FileNotFoundError:
            return b"", True
        kept = bytearray()
        reserved: set[str] = set()
        for line, raw in whole_object_lines(data):
            report_file = line.get("report_file")
            if not isinstance(report_file, str) or not report_file.endswith(".json"):
                continue
            try:
                if not os.path.isfile(inside(self.directory, report_file)):  # noqa: PTH113
                    continue
            except ValueError:  # a name that would point elsewhere: not this writer's
                continue
            if report_file in reserved:
                continue
            if self._keep is not None and not self._keep(line):
                with contextlib.suppress(OSError):
                    os.unlink(inside(self.directory, report_file))  # noqa: PTH108
                continue
            self._names.reserve(report_file[: -len(".json")])
            reserved.add(report_file)
            self.kept.append(line)
            kept += raw
        return bytes(kept), data.startswith(kept)

    def _rewrite(self, path: str, descriptor: int, kept: bytes) -> int:
        """Replace results.jsonl by just the `kept` lines (a dropped line came before a kept
        one), and return the new file's descriptor, locked, in place of `descriptor`.

        The new file is written whole and renamed over the old one, so a kill leaves either
        file, never a mix of the two; the old file stays locked until the new one is.
        """
        write_atomic(path, kept)
        replaced = open_for_writing(path)
        try:
            _lock(replaced, self._directory_text)
        except BaseException:
            os.close(replaced)
            raise
        os.close(descriptor)
        return replaced

    def adopt(self, wanted: str | None, temporary: str, line: bytes) -> str:
        """Name a report written by `write_temporary` after `wanted` (a run or scenario id),
        write its `results.jsonl` line, and return the report's file name.

        The report may have been rendered and written by a worker process; naming it is the
        one step that has to happen here, in order. The report is in place before its line is
        written, so results.jsonl never lists a report that does not exist.
        """
        report_file = f"{self._names.allocate(wanted)}.json"
        os.replace(temporary, inside(self._directory_text, report_file))  # noqa: PTH105
        if self._descriptor is not None:
            # The line names the report file, which is only known here: splice it in as the
            # last member of the object rather than parse and re-serialise the line.
            pending = self._pending
            pending += line[:-1]
            pending += b',"report_file":'
            pending += orjson.dumps(report_file)
            pending += b"}\n"
            self._unwritten += 1
            if self._unwritten >= self._lines_per_flush:
                self._unwritten = 0
                try:
                    self._size = write_lines(self._descriptor, pending, self._size)
                finally:
                    # Written, or cut back to whole lines and failing: either way not again.
                    # A new buffer, not clear(): a traceback may still hold a view of this one.
                    self._pending = bytearray()
        return report_file

    def write_summary(self, summary: RunSummary) -> None:
        """Write `_aggregate.json`."""
        # Checked against its shape first: an aggregate that is not one is assay's own bug,
        # and must not be written as a report. Written leniently, as the reports are: a lone
        # surrogate that reached a figure's name (a YAML scenario's type written as "\ud800")
        # is escaped rather than lose the aggregate.
        aggregate = msgspec.to_builtins(validate(summary.to_report(), Aggregate))
        data = dumps_lenient(aggregate, option=_OPTIONS | orjson.OPT_INDENT_2)
        write_atomic(inside(self.directory, AGGREGATE_FILE), data)


def _marker() -> bytes:
    """The content of `MARKER_FILE`."""
    return orjson.dumps(
        {
            "assay_reports": 1,
            "assay_version": __version__,
            "note": "assay reports; assay never reads this directory as runs",
        },
        option=orjson.OPT_APPEND_NEWLINE,
    )


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
    """The per-run report and its `results.jsonl` line (without the per-key records), both
    written through `RunReport`.

    Pure, and bytes out: it runs where the scoring runs (a worker process, say). The report
    does not name its own file; the `results.jsonl` line does.

    Example:
        >>> from assay.results import OpsMetrics, Score
        >>> result = CaseResult("11", "r1", None, None, "q", "7",
        ...                     Score.scored("s", 1.0, passed=True, details={"details": [1]}),
        ...                     OpsMetrics(), expected_answer="7")
        >>> report, line = render(result)
        >>> orjson.loads(report)["score"]["details"], orjson.loads(line)["score"]["details"]
        ({'details': [1]}, {})
        >>> "expected_answer" in orjson.loads(line)
        False
        >>> from assay.schema.report import TranscriptEntry
        >>> result.transcript = [TranscriptEntry(role="user", text="q")]
        >>> report, line = render(result)
        >>> orjson.loads(report)["transcript"], "transcript" in orjson.loads(line)
        ([{'role': 'user', 'text': 'q'}], False)
    """
    report = record_of(result)
    # Per-key records, the gold answer and the transcript stay in the per-run file.
    line = structs.replace(
        report,
        expected_answer=None,
        transcript=None,
        transcript_left_out=None,
        score=_without_records(report.score),
        scores=[_without_records(part) for part in report.scores],
        benchmark=None if report.benchmark is None else {
            key: report.benchmark.get(key) for key in _BENCHMARK_LINE_KEYS
        },
    )
    return _encode(report), _encode(line)


def record_of(result: CaseResult) -> RunReport:
    """The per-run report of a result (see `assay.reports.read.result_of_line` for the way
    back)."""
    ops = result.ops
    return RunReport(
        scenario_id=result.scenario_id,
        scenario_type=result.scenario_type,
        run_id=result.run_id,
        runner=result.runner,
        model=result.model,
        question=result.question,
        answer=result.answer,
        score=_score_record(result.score),
        ops=OpsRecord(
            turn_count=ops.turn_count,
            tool_call_count=ops.tool_call_count,
            unique_tools=ops.unique_tools,
            tokens_in=ops.tokens_in,
            tokens_out=ops.tokens_out,
            duration_ms=ops.duration_ms,
            est_cost_usd=ops.est_cost_usd,
            context_overflow=ops.context_overflow,
            escalated=ops.escalated,
        ),
        source=result.source,
        scores=[_score_record(part) for part in result.scores],
        expected_answer=result.expected_answer,
        repeat=result.repeat,
        source_passed=result.source_passed,
        notes=result.notes or None,
        benchmark=result.benchmark,
        transcript=result.transcript,
        transcript_left_out=result.transcript_left_out or None,
    )


def _score_record(score: Score) -> ScoreRecord:
    return ScoreRecord(
        scorer=score.scorer,
        status=score.status.value,
        passed=score.passed,
        score=score.value,
        rationale=score.rationale,
        details=score.details,
    )


def _without_records(score: ScoreRecord) -> ScoreRecord:
    details = score.details
    if "details" not in details:
        return score
    return structs.replace(score, details={k: v for k, v in details.items() if k != "details"})


_BENCHMARK_LINE_KEYS = ("task_id", "repeat_idx", "status", "error")
"""What a `results.jsonl` line keeps of a benchmark's report (the traces stay in the run's
report)."""

_ENCODER = msgspec.json.Encoder()
_DEPTH = 200
"""Nesting past which a value a run brought (its answer, a scorer's details) is not written:
below orjson's limit, which the lenient way of writing uses."""


def _encode(record: RunReport) -> bytes:
    try:
        return _ENCODER.encode(record)
    except (TypeError, ValueError, RecursionError):
        pass
    # A value no JSON holds as it is (a lone surrogate in a text, a key that is not a string,
    # an odd object an agent returned, nesting past any parser's limit) must not lose the
    # report: written the lenient way, as strings, instead.
    plain = msgspec.to_builtins(_within_depth(record), enc_hook=text_of)
    return dumps_lenient(plain)


def _within_depth(record: RunReport) -> RunReport:
    def cut(value: Any) -> Any:
        if nested_deeper_than(value, _DEPTH):
            return f"<{json_type(value)} nested deeper than {_DEPTH} levels: not written>"
        return value

    def cut_score(score: ScoreRecord) -> ScoreRecord:
        return structs.replace(score, details={k: cut(v) for k, v in score.details.items()})

    return structs.replace(
        record,
        answer=cut(record.answer),
        expected_answer=cut(record.expected_answer),
        benchmark=None if record.benchmark is None else {
            k: cut(v) for k, v in record.benchmark.items()
        },
        score=cut_score(record.score),
        scores=[cut_score(part) for part in record.scores],
    )


def write_config(directory: Path | str, document: dict[str, Any]) -> None:
    """Write `CONFIG_FILE` (the JSON of an `EvalConfig`) into a reports directory, atomically.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> write_config(folder, {"scorer_default": "static_json"})
        >>> orjson.loads((Path(folder) / CONFIG_FILE).read_bytes())
        {'scorer_default': 'static_json'}
    """
    # Not sorted: the criteria's order is the order of every run's verdicts.
    data = dumps_lenient(document, orjson.OPT_INDENT_2)
    write_atomic(inside(directory, CONFIG_FILE), data + b"\n")
