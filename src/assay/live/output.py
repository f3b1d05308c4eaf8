"""The reports directory of a live evaluation: the offline reports, plus the captured runs.

`assay run` writes what `assay evaluate` writes (per-run reports, `results.jsonl`,
`_aggregate.json`, the marker) and, beside them:
- `runs.jsonl`: every captured run in assay's own run format, which `assay evaluate` reads;
- `evalset.jsonl`: the cases, which `assay evaluate --scenarios` reads as ground truth, so
  `assay evaluate --trajectories DIR/runs.jsonl --scenarios DIR/evalset.jsonl` re-scores the
  runs with the same scorers and gets the same scores.

Each finished run is saved at once, its `runs.jsonl` line first, then its report, then its
`results.jsonl` line: a run is finished exactly when its `results.jsonl` line exists. A resumed
evaluation (`resume=True`) keeps those runs, drops a `runs.jsonl` line whose result never
landed, and runs the rest. The aggregate is always built from the `results.jsonl` lines in the
eval set's order, so a resumed evaluation's aggregate equals an uninterrupted one's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from assay.formats.assay_jsonl import trajectory_to_line
from assay.live.runner import RunKey, Unit, UnitOutcome, key_of
from assay.live.views import live_figures
from assay.reports.aggregate import ResultFigures, SummaryBuilder
from assay.reports.files import (
    inside,
    open_for_writing,
    read_regular,
    whole_object_lines,
    write_atomic,
    write_temporary,
)
from assay.reports.read import result_of_line as parse_result
from assay.reports.store import CONFIG_FILE, RESULTS_FILE, ReportWriter, render, write_config
from assay.results import CaseResult, RunSummary
from assay.schema.evalset import EvalCase

__all__ = [
    "EVALSET_FILE",
    "RUNS_FILE",
    "SETTINGS_FILE",
    "LiveReports",
    "ResumeRefusedError",
    "result_of_line",
]

RUNS_FILE = "runs.jsonl"
"""The captured runs, one per line, in assay's run format."""

EVALSET_FILE = "evalset.jsonl"
"""The eval set's cases, one per line (ground truth for `assay evaluate`)."""

SETTINGS_FILE = CONFIG_FILE
"""What the runs were checked with (`_config.json`, an `EvalConfig`), so that `--resume` can
refuse to mix runs checked otherwise. A report is never named so: report names never start
with `_`."""


class LiveReports:
    """Writes a live evaluation's reports directory as runs finish.

    Example:
        >>> import tempfile
        >>> with LiveReports(Path(tempfile.mkdtemp())) as reports:
        ...     sorted(reports.finished)
        []
    """

    def __init__(
        self,
        directory: Path,
        *,
        resume: bool = False,
        cases: Sequence[EvalCase] = (),
        keys: Iterable[RunKey] = (),
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.directory = directory
        self.resume = resume
        self.settings = dict(settings or {})
        """What the runs are checked with, as an `EvalConfig`'s JSON (`SETTINGS_FILE`)."""
        if resume:
            _check_same_settings(directory, self.settings)
        wanted = set(keys)
        changed = _changed_cases(directory, cases) if resume else set()

        def keep(line: dict[str, Any]) -> bool:
            # A run of this evaluation, of a case that reads as it did when the run was made.
            key = key_of(line)
            return key in wanted and key[0] not in changed

        self._writer = ReportWriter(
            directory, resume=resume, keep=keep if resume else None, lines_per_flush=1
        )
        self._runs: int | None = None
        self.lines: dict[RunKey, dict[str, Any]] = {}
        """`results.jsonl` line by run: kept from before (resume) and written now."""
        self.results: dict[RunKey, CaseResult] = {}
        """The result of each of `lines`: read back from a kept line, or the one written."""

    @property
    def finished(self) -> set[RunKey]:
        """The runs whose result is saved (kept from an earlier evaluation, or written now)."""
        return set(self.lines)

    def __enter__(self) -> LiveReports:
        writer = self._writer.__enter__()
        try:
            for line in writer.kept:
                key = key_of(line)
                kept = result_of_line(line) if key is not None else None
                if kept is not None and key is not None:
                    self.lines[key] = line
                    self.results[key] = kept
            self._runs = self._open_runs()
        except BaseException:
            writer.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self._runs is not None:
                os.close(self._runs)
                self._runs = None
        finally:
            self._writer.__exit__(exc_type, exc, traceback)

    def _open_runs(self) -> int:
        """`runs.jsonl` for appending; on resume, first cut to the runs whose result landed."""
        path = inside(self._writer.directory, RUNS_FILE)
        kept = b""
        if self.resume and os.path.lexists(path):
            data = read_regular(path)
            kept = b"".join(
                raw for value, raw in whole_object_lines(data) if key_of(value) in self.lines
            )
        write_atomic(path, kept)
        return open_for_writing(path, append=True)

    def write_cases(self, cases: Sequence[EvalCase]) -> None:
        """Write `evalset.jsonl` (the cases, one per line) and `SETTINGS_FILE`."""
        write_config(self._writer.directory, self.settings)
        data = b"".join(_case_line(case) + b"\n" for case in cases)
        write_atomic(inside(self._writer.directory, EVALSET_FILE), data)

    def save(self, outcome: UnitOutcome) -> str:
        """Save one finished run: its `runs.jsonl` line, its report, its `results.jsonl` line.
        Returns the report's file name."""
        assert self._runs is not None, "used inside `with`"
        line = trajectory_to_line(outcome.run) + b"\n"
        done = 0
        while done < len(line):
            done += os.write(self._runs, line[done:])
        report, result_line = render(outcome.result)
        temporary = write_temporary(self._writer.directory, report)
        report_file = self._writer.adopt(outcome.unit.run_id, temporary, result_line)
        outcome.result.report_file = report_file
        entry = orjson.loads(result_line)
        entry["report_file"] = report_file
        self.lines[outcome.unit.key] = entry
        self.results[outcome.unit.key] = outcome.result
        return report_file

    def finish(
        self,
        units: Sequence[Unit],
        *,
        cases: int,
        weights: Mapping[str, float],
        interrupted: bool,
        options: dict[str, Any],
        scorers: list[dict[str, Any]],
        problems: list[dict[str, Any]],
    ) -> RunSummary:
        """Write `_aggregate.json` from the saved results, in the order of `units`."""
        builder = SummaryBuilder()
        builder.set_scenarios_loaded(cases)
        results = []
        for unit in units:
            result = self.results.get(unit.key)
            if result is None:
                continue
            results.append(result)
            builder.add_figures(ResultFigures.of(result), result.report_file)
        figures = live_figures(results, weights)
        summary = builder.finish(problems, interrupted=interrupted, pass_rate=figures["pass_rate"])
        summary.options = options
        summary.scorers = scorers
        figures["units"] = len(units)
        figures["finished"] = len(results)
        summary.live = figures
        self._writer.write_summary(summary)
        return summary


class ResumeRefusedError(ValueError):
    """`--resume` into a directory whose runs were checked with other criteria."""


def _check_same_settings(directory: Path, settings: Mapping[str, Any]) -> None:
    """Refuse to resume runs checked with other criteria than `settings`, or runs of a
    directory that no longer says how they were checked or on which cases (before anything
    in the directory is touched).

    Raises:
        ResumeRefusedError: the directory's runs were checked otherwise, or its
            `SETTINGS_FILE` or `EVALSET_FILE` is missing or unreadable while it holds results.
    """
    if not _holds_results(directory):
        return  # nothing to resume from: every run is made anew
    documents: dict[str, Any] = {}
    for name in (SETTINGS_FILE, EVALSET_FILE):
        try:
            data = read_regular(inside(directory, name))
            documents[name] = orjson.loads(data) if name == SETTINGS_FILE else data
        except (OSError, orjson.JSONDecodeError) as error:
            what = "is missing" if isinstance(error, FileNotFoundError) else "cannot be read"
            raise ResumeRefusedError(
                f"cannot resume into {directory}: its {name} {what}, so its runs may have "
                "been made on other cases or checked otherwise; run without --resume, or into "
                "a fresh directory"
            ) from None
    before = documents[SETTINGS_FILE]
    if not isinstance(before, dict) or before.get("criteria") != orjson.loads(
        orjson.dumps(settings.get("criteria"))
    ):
        raise ResumeRefusedError(
            f"cannot resume into {directory}: its runs were checked with other criteria "
            f"(see its {SETTINGS_FILE}); run without --resume, or into a fresh directory"
        )


def _holds_results(directory: Path) -> bool:
    """Whether the directory's `results.jsonl` holds anything at all."""
    try:
        return os.stat(inside(directory, RESULTS_FILE)).st_size > 0  # noqa: PTH116
    except OSError:
        return False


def _changed_cases(directory: Path, cases: Sequence[EvalCase]) -> set[str]:
    """Ids of the cases that read otherwise than in the `evalset.jsonl` an earlier evaluation
    wrote into `directory` (their runs are made again on resume); none when there is none."""
    try:
        data = read_regular(inside(directory, EVALSET_FILE))
    except OSError:
        return set()
    before = {
        value.get("eval_id"): raw.rstrip(b"\n") for value, raw in whole_object_lines(data)
    }
    return {
        case.eval_id
        for case in cases
        if case.eval_id in before and before[case.eval_id] != _case_line(case)
    }


def _case_line(case: EvalCase) -> bytes:
    """The line of `evalset.jsonl` that holds `case`."""
    return case.model_dump_json(exclude_defaults=True).encode()


def result_of_line(line: Mapping[str, Any]) -> CaseResult | None:
    """The result a `results.jsonl` line records, or None for a line assay did not write
    (`assay.reports.read.result_of_line`)."""

    try:
        return parse_result(line)
    except ValueError:
        return None
