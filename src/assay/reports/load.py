"""Loading a reports directory back: its aggregate, its `results.jsonl` lines, and each run's
report, for everything that shows an evaluation without re-scoring it (`assay report`, the
HTML report, `assay compare`, JUnit XML).

The directory's content is data: the aggregate is checked against its schema, a line of
`results.jsonl` that is not a result is a problem with its line number (see
`assay.reports.read`), and a run's report is read only from a plain file inside the directory.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from assay.offline import EvaluateOptions, evaluate
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
    >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
    >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
    >>> loaded = load_reports(root / "out")
    >>> loaded.summary.totals["passed"], len(loaded.results)
    (1, 1)
    >>> loaded.run_report(loaded.results[0])["score"]["passed"]
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from assay.reports.read import LineProblem, ResultLines, read_regular, read_results
from assay.reports.store import AGGREGATE_FILE
from assay.results import RunSummary
from assay.schema import SCHEMA_VERSION
from assay.schema.report import Aggregate, validate

__all__ = ["LoadedReports", "ReportsError", "load_reports"]

MAX_REPORT_BYTES = 64 * 1024**2
"""Largest per-run report or aggregate read back: far above what assay writes (answers are
capped when parsed, and a report holds one run), so only a file that is not assay's own reaches
it."""


class ReportsError(Exception):
    """A reports directory that cannot be shown: missing, not assay's, or its aggregate
    unreadable."""


@dataclass(slots=True)
class LoadedReports:
    """One reports directory, read back."""

    directory: Path
    """The reports directory."""

    aggregate: dict[str, Any]
    """`_aggregate.json` as written, checked against its schema (`assay schema aggregate`):
    `schema_version` and `assay_version` say what wrote it."""

    summary: RunSummary
    """The aggregate as the console summary takes it."""

    lines: ResultLines
    """The lines of `results.jsonl`: results, problems, and a cut-short last line."""

    @property
    def results(self) -> list[dict[str, Any]]:
        """One dict per run, in the order the evaluation finished them (`assay schema line`)."""
        return self.lines.results

    @property
    def problems(self) -> list[LineProblem]:
        """The lines of `results.jsonl` that are not results."""
        return self.lines.problems

    def run_report(self, line: dict[str, Any]) -> dict[str, Any] | None:
        """The per-run report a `results.jsonl` line names (`assay schema run`), or None when
        it is missing, is not a plain file of this directory, or is not a JSON object."""
        name = line.get("report_file")
        if not isinstance(name, str) or not _plain_name(name):
            return None
        try:
            value = orjson.loads(read_regular(self.directory / name, MAX_REPORT_BYTES))
        except (OSError, orjson.JSONDecodeError):
            return None
        return value if isinstance(value, dict) else None


def load_reports(directory: Path | str) -> LoadedReports:
    """The reports directory `directory`, as `assay evaluate --reports-dir` wrote it.

    Raises:
        ReportsError: no such directory, no readable `_aggregate.json` (an evaluation that is
            still running, or was killed before writing it), an aggregate of another shape or
            of a newer schema version, or no readable `results.jsonl`.
    """
    path = Path(directory)
    if not path.is_dir():
        raise ReportsError(f"{path}: not a directory")
    try:
        raw = orjson.loads(read_regular(path / AGGREGATE_FILE, MAX_REPORT_BYTES))
    except FileNotFoundError:
        raise ReportsError(
            f"{path}: no {AGGREGATE_FILE} (not a reports directory, or its evaluation was "
            "killed before it finished)"
        ) from None
    except OSError as error:
        raise ReportsError(f"{path / AGGREGATE_FILE}: cannot read: {_reason(error)}") from None
    except orjson.JSONDecodeError as error:
        raise ReportsError(f"{path / AGGREGATE_FILE}: invalid JSON: {error.msg}") from None
    aggregate = _checked_aggregate(raw, path / AGGREGATE_FILE)
    try:
        lines = read_results(path)
    except OSError as error:
        raise ReportsError(f"{path}: cannot read results.jsonl: {_reason(error)}") from None
    return LoadedReports(path, aggregate, _summary(aggregate), lines)


def _checked_aggregate(raw: Any, source: Path) -> dict[str, Any]:
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise ReportsError(
            f"{source}: schema version {version} is newer than this assay reads "
            f"({SCHEMA_VERSION}); upgrade assay"
        )
    try:
        validate(raw, Aggregate)
    except ValueError as error:
        raise ReportsError(f"{source}: not an assay aggregate: {error}") from None
    assert isinstance(raw, dict)  # the shape accepts only an object
    return raw


def _summary(aggregate: dict[str, Any]) -> RunSummary:
    return RunSummary(
        generated_at=aggregate["generated_at"],
        runners=aggregate["runners"],
        models=aggregate["models"],
        totals=aggregate["totals"],
        by_scenario_type=aggregate["by_scenario_type"],
        by_runner_model=aggregate["by_runner_model"],
        ops=aggregate["ops"],
        metrics_mean=aggregate["metrics_mean"],
        not_scored=aggregate["not_scored"],
        scenario_problems=aggregate["scenario_problems"],
        interrupted=aggregate.get("interrupted", False),
        worst_failures=aggregate.get("worst_failures", []),
        by_scorer=aggregate.get("by_scorer", {}),
        judge_usage=aggregate.get("judge_usage", {}),
        red_flags=aggregate.get("red_flags", {}),
        options=aggregate.get("options", {}),
        scorers=aggregate.get("scorers", []),
        live=aggregate.get("live") or {},
        repeats=aggregate.get("repeats"),
        source_agreement=aggregate.get("source_agreement"),
    )


def _plain_name(name: str) -> bool:
    return name not in ("", ".", "..") and not any(c in name for c in "/\\\0")


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
