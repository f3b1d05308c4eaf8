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

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from assay.reports.read import (
    LineProblem,
    ResultLines,
    parse_results,
    read_regular,
    read_results,
    result_of_line,
)
from assay.reports.store import AGGREGATE_FILE, RESULTS_FILE
from assay.results import RUN_FAILURES, CaseResult, RunSummary, Score, ScoreStatus
from assay.schema import SCHEMA_VERSION
from assay.schema.report import Aggregate, validate

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = [
    "DATAFRAME_COLUMNS",
    "LoadedReports",
    "ReportsError",
    "load_dataframe",
    "load_reports",
    "results_dataframe",
]

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


DATAFRAME_COLUMNS = {
    "run_id": "string",
    "scenario_id": "string",
    "repeat": "Int64",
    "runner": "string",
    "model": "string",
    "passed": "bool",
    "score": "float64",
    "status": "string",
    "error_kind": "string",
    "tokens_in": "Int64",
    "tokens_out": "Int64",
    "cost_usd": "float64",
    "duration_ms": "float64",
}
"""The columns of `load_dataframe`'s frame and their dtypes, in order; each scorer's score
(`score_<scorer>`, float64) comes between `error_kind` and `tokens_in`."""

SCORER_COLUMN_PREFIX = "score_"
"""A scorer's (a live criterion's) score column is its name after this prefix."""


def load_dataframe(directory: Path | str) -> DataFrame:
    """The runs of a reports directory, offline (`assay evaluate`) or live (`assay run`,
    `AgentEvaluator(reports_dir=...)`), as a pandas DataFrame: one row per run, in the order
    of `results.jsonl`. Needs pandas (`pip install pandas`, or `pip install 'assay[pandas]'`).

    Columns (`DATAFRAME_COLUMNS`): `run_id`, `scenario_id`, `repeat` (live repetitions, from
    1; NA otherwise), `runner`, `model`, `passed` (scored and passed), `score` (NaN when not
    scored), `status` (`scored`, `unscored`, `error`), `error_kind` (why the verdict is an
    error: `agent_error`, `timeout`, `scorer_error`...; NA otherwise), then one
    `score_<scorer>` column per scorer or criterion (NaN where it gave no score), then
    `tokens_in`, `tokens_out`, `cost_usd` and `duration_ms` (NA or NaN when not known).
    `EvalReport.to_pandas()` gives the same frame (`results_dataframe`).

    A line of `results.jsonl` that is not a result is left out and reported, never fatal:
    `frame.attrs["problems"]` lists each as `path:LINE: reason`, and a warning says how many
    there are. The directory need not hold `_aggregate.json`: an interrupted evaluation's runs
    load too.

    Raises:
        ReportsError: no such directory, or no readable `results.jsonl` in it.
        ImportError: pandas is not installed.

    Example:
        >>> import tempfile
        >>> from assay.offline import EvaluateOptions, evaluate
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
        >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
        >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
        >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
        >>> frame = load_dataframe(root / "out")
        >>> frame[["scenario_id", "passed", "score"]].to_dict("records")
        [{'scenario_id': '1', 'passed': True, 'score': 1.0}]
    """
    path = Path(directory)
    try:
        import pandas  # noqa: F401  (without it, nothing is read)
    except ImportError as error:
        raise _without_pandas() from error
    if not path.is_dir():
        raise ReportsError(f"{path}: not a directory")
    source = path / RESULTS_FILE
    try:
        data = read_regular(source)
    except OSError as error:
        raise ReportsError(f"{path}: cannot read {RESULTS_FILE}: {_reason(error)}") from None
    results: list[CaseResult] = []
    problems: list[str] = []
    chunks = data.split(b"\n")
    for number, chunk in enumerate(chunks, start=1):
        # Line by line through the one reader of `results.jsonl`, so that each problem keeps
        # its line number (a cut-short last line is one only at the end of the file).
        found = parse_results(chunk if number == len(chunks) else chunk + b"\n")
        problems.extend(f"{source}:{number}: {p.reason}" for p in found.problems)
        if found.cut_line is not None:
            problems.append(
                f"{source}:{number}: cut short (the evaluation was stopped while writing it)"
            )
        for line in found.results:
            try:
                results.append(result_of_line(line))
            except ValueError as error:
                problems.append(f"{source}:{number}: {error}")
    frame = results_dataframe(results)
    frame.attrs["problems"] = problems
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        warnings.warn(
            f"{len(problems)} line(s) of {source} left out, see frame.attrs['problems']: "
            f"{problems[0]}{more}",
            stacklevel=2,
        )
    return frame


def results_dataframe(results: Iterable[CaseResult]) -> DataFrame:
    """Results in memory as `load_dataframe`'s frame (what `EvalReport.to_pandas()` gives):
    one row per result, in order, `attrs["problems"]` empty.

    Raises:
        ImportError: pandas is not installed.
    """
    try:
        import pandas as pd
    except ImportError as error:
        raise _without_pandas() from error
    rows = list(results)
    scorers = list(dict.fromkeys(part.scorer for result in rows for part in _checks(result)))
    values: dict[str, list[Any]] = {name: [] for name in DATAFRAME_COLUMNS}
    values.update({SCORER_COLUMN_PREFIX + name: [] for name in scorers})
    for result in rows:
        for name, value in _row(result).items():
            values[name].append(value)
        parts = {part.scorer: part for part in _checks(result)}
        for name in scorers:
            part = parts.get(name)
            scored = part is not None and part.status is ScoreStatus.SCORED
            values[SCORER_COLUMN_PREFIX + name].append(
                _number(part.value) if part is not None and scored else math.nan
            )
    # The run's own columns, each scorer's score, then what the run cost.
    head = list(DATAFRAME_COLUMNS)[: list(DATAFRAME_COLUMNS).index("tokens_in")]
    order = [*head, *(SCORER_COLUMN_PREFIX + name for name in scorers)]
    order += [name for name in DATAFRAME_COLUMNS if name not in head]
    frame = pd.DataFrame(
        {
            name: pd.Series(values[name], dtype=DATAFRAME_COLUMNS.get(name, "float64"))
            for name in order
        },
        index=pd.RangeIndex(len(rows)),
    )
    frame.attrs["problems"] = []
    return frame


def _checks(result: CaseResult) -> list[Score]:
    """The scorers' (criteria's) scores of a run; none when the run itself failed (the
    agent's error, a timeout: its verdict is that error, no scorer's)."""
    score = result.score
    failed = score.status is ScoreStatus.ERROR and score.details.get("reason") in RUN_FAILURES
    return [] if failed else result.parts()


def _row(result: CaseResult) -> dict[str, Any]:
    """The run's own columns of its row (`DATAFRAME_COLUMNS`)."""
    score, ops = result.score, result.ops
    scored = score.status is ScoreStatus.SCORED
    reason = score.details.get("reason") if score.status is ScoreStatus.ERROR else None
    return {
        "run_id": result.run_id or result.scenario_id,
        "scenario_id": result.scenario_id,
        "repeat": result.repeat,
        "runner": result.runner,
        "model": result.model,
        "passed": scored and score.passed is True,
        "score": _number(score.value) if scored else math.nan,
        "status": score.status.value,
        "error_kind": None if reason is None else str(reason),
        "tokens_in": ops.tokens_in,
        "tokens_out": ops.tokens_out,
        "cost_usd": _number(ops.est_cost_usd),
        "duration_ms": _number(ops.duration_ms),
    }


def _number(value: Any) -> float:
    """A score, a cost or a duration as a float, NaN when there is none."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return math.nan


def _without_pandas() -> ImportError:
    return ImportError(
        "a DataFrame of results needs pandas: pip install pandas "
        "(or pip install 'assay[pandas]')",
        name="pandas",
    )
