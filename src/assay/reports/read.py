"""Reading a reports directory back: the lines of its `results.jsonl`.

An evaluation writes `results.jsonl` in whole lines, but one that was killed may still have
left its last line cut short (the kernel can stop a write part-way). Such a line is not a
result: it is left out and noted, never read as one, and never fatal. Any other line that is
not a JSON object is a problem with its line number; the lines around it are still read.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> reports = Path(tempfile.mkdtemp())
    >>> _ = (reports / "results.jsonl").write_bytes(b'{"run_id": "a"}\\n[1]\\n{"run_id": "b')
    >>> lines = read_results(reports)
    >>> [line["run_id"] for line in lines.results], lines.cut_line
    (['a'], 3)
    >>> [(problem.line, problem.reason) for problem in lines.problems]
    [(2, 'not a JSON object: an array')]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assay._jsonable import json_type_phrase
from assay.reports.files import read_regular, whole_object_lines
from assay.reports.store import RESULTS_FILE
from assay.results import CaseResult, OpsMetrics, Score, ScoreStatus
from assay.schema.report import ResultLine, RunReport, ScoreRecord, validate

__all__ = [
    "LineProblem",
    "ResultLines",
    "parse_results",
    "read_regular",
    "read_results",
    "result_of_line",
    "whole_object_lines",
]


@dataclass(frozen=True, slots=True)
class LineProblem:
    """A line of `results.jsonl` that is not a result, and why."""

    line: int
    """The line's number, from 1."""

    reason: str
    """One line saying what is wrong, e.g. `invalid JSON: unexpected character`."""


@dataclass(slots=True)
class ResultLines:
    """The lines of one `results.jsonl`, read."""

    results: list[dict[str, Any]] = field(default_factory=list)
    """Every line that is a JSON object, in file order."""

    problems: list[LineProblem] = field(default_factory=list)
    """Every other non-blank line but a cut-short last one, in file order."""

    cut_line: int | None = None
    """The number of a last line that was cut short (no newline, not JSON) and left out: the
    evaluation that wrote it was killed while writing. None when the file ends whole."""


def read_results(directory: Path | str) -> ResultLines:
    """The `results.jsonl` of the reports directory `directory`, line by line as dicts.

    Args:
        directory: A reports directory, as `assay evaluate --reports-dir` wrote it.

    Returns:
        Its results, the problems of its invalid lines, and the number of a cut-short last
        line if there was one (see `parse_results`).

    Raises:
        OSError: `results.jsonl` is missing, unreadable, or not a regular file (a FIFO would
            block the read forever; it is refused instead).

    Example:
        >>> read_results("no/such/reports")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: 'no/such/reports/results.jsonl'
    """
    return parse_results(read_regular(os.path.join(directory, RESULTS_FILE)))  # noqa: PTH118


def parse_results(data: bytes) -> ResultLines:
    """The lines of a `results.jsonl` held in memory (see `read_results`).

    Blank lines are ignored: they hold nothing. A last line without its newline that is not
    JSON is the remains of a line cut short, left out and named in `cut_line`; one that is
    JSON is read like any other (it lost only its newline).

    Args:
        data: The file's bytes.

    Returns:
        Its results, problems and cut-short last line.

    Example:
        >>> parse_results(b'{"a": 1}\\n\\n{"a": 2}').results
        [{'a': 1}, {'a': 2}]
        >>> parse_results(b'{"a": 1}\\nnot json\\n').problems[0].line
        2
    """
    found = ResultLines()
    lines = data.split(b"\n")
    last = len(lines)
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            if number == last:  # no newline after it: the end of a line cut short
                found.cut_line = number
            else:
                found.problems.append(LineProblem(number, _reason(line, error)))
            continue
        if isinstance(value, dict):
            found.results.append(value)
        else:
            found.problems.append(
                LineProblem(number, f"not a JSON object: {json_type_phrase(value)}")
            )
    return found


def _reason(line: bytes, error: orjson.JSONDecodeError) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not UTF-8: undecodable byte at offset {bad.start}"
    return f"invalid JSON: {error.msg} at column {error.colno}"


def result_of_line(line: Mapping[str, Any]) -> CaseResult:
    """The result a `results.jsonl` line records (its per-key records, the gold answer and the
    transcript aside, which only the per-run report keeps): what a resumed live evaluation
    counts for the runs it does not run again, and what a re-scored one keeps. Given a per-run
    report instead, its transcript is kept (`render` writes it back as it was).

    The line is read through the shape that wrote it (`assay.schema.report.ResultLine`,
    whose JSON Schema `assay schema line` prints; without its `report_file`, a `RunReport`).

    Raises:
        ValueError: the line is not a result as assay writes one (the first field that is
            not, by its path).

    Example:
        >>> from assay.reports.store import render
        >>> from assay.results import OpsMetrics, Score
        >>> result = CaseResult("11", "11#2", "agent", "m", "q", "14",
        ...                     Score.scored("s", 0.5, passed=False), OpsMetrics(), repeat=2)
        >>> result_of_line(orjson.loads(render(result)[1])) == result
        True
        >>> result_of_line({"scenario_id": "11"})
        Traceback (most recent call last):
        ...
        ValueError: not a result line: scenario_type: required, missing
    """
    shape: type[RunReport] = ResultLine if "report_file" in line else RunReport
    try:
        record = validate(line, shape)
    except ValueError as error:
        raise ValueError(f"not a result line: {error}") from None
    ops = record.ops
    return CaseResult(
        scenario_id=record.scenario_id,
        run_id=record.run_id,
        runner=record.runner,
        model=record.model,
        question=record.question,
        answer=record.answer,
        score=_score(record.score),
        ops=OpsMetrics(
            ops.turn_count,
            ops.tool_call_count,
            list(ops.unique_tools),
            ops.tokens_in,
            ops.tokens_out,
            ops.duration_ms,
            ops.est_cost_usd,
            ops.context_overflow,
            ops.escalated,
        ),
        scenario_type=record.scenario_type,
        source=record.source,
        report_file=record.report_file if isinstance(record, ResultLine) else None,
        scores=[_score(part) for part in record.scores],
        repeat=record.repeat,
        notes=list(record.notes or ()),
        source_passed=record.source_passed,
        benchmark=record.benchmark,
        transcript=record.transcript,
        transcript_left_out=record.transcript_left_out or 0,
    )


def _score(record: ScoreRecord) -> Score:
    """A `Score` from its record in a report."""
    return Score(
        record.scorer,
        ScoreStatus(record.status),
        record.score,
        record.passed,
        record.rationale,
        record.details,
    )
