"""Eval-set files in assay's shape: JSON (a case, a list of cases, `{"cases": [...]}`), JSON
Lines or CSV, read into `EvalCase`s, each malformed case a problem naming its line and field.
The `Case` a scorer reads of an eval case is `assay.formats.scenarios.case_of`'s.

A CSV eval set (`.csv`: comma-separated, the excel dialect, UTF-8 with or without a BOM) has
a header row naming its columns, then one single-turn case per row: `eval_id` and
`user_query` (required), `expected_response`, `expected_tools` and `expected_trajectory`
(tool names separated by `;` or `|`, or a JSON list as in a JSON eval set). Any other column
is kept, as text, in the case's `metadata`. Each row goes through the same `EvalCase`
validation as a JSON case.

Example:
    >>> eval_case({"eval_id": "a", "user_query": "?"}, "x.jsonl:1").eval_id
    'a'
    >>> eval_case({"eval_id": "a"}, "x.jsonl:2").reason
    'case: a case needs `user_query` or `turns`'
    >>> data = b"eval_id,user_query,expected_tools,topic\\nw1,Weather?,get_weather;get_time,sky\\n"
    >>> [case] = csv_eval_cases(data, "cases.csv")
    >>> case.eval_id, case.expected_tools, case.metadata
    ('w1', ['get_weather', 'get_time'], {'topic': 'sky'})
    >>> [problem] = csv_eval_cases(b"eval_id,question\\na,Hi?\\n", "cases.csv")
    >>> problem.source, problem.reason
    ('cases.csv:1', "the header has no `user_query` column (columns: 'eval_id', 'question')")
"""

from __future__ import annotations

import csv
import io
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._jsonable import json_type, json_type_phrase
from assay._suggest import did_you_mean
from assay.formats._common import ReadProblem, jsonl_lines, parse_json, read_bytes
from assay.limits import format_size, input_limits

if TYPE_CHECKING:
    from assay.schema.evalset import EvalCase

__all__ = ["CSV_COLUMNS", "csv_eval_cases", "eval_case", "is_eval_case", "read_eval_cases"]

CSV_SUFFIXES = (".csv",)
"""The file names read as CSV eval sets (in any case)."""

CSV_COLUMNS = ("eval_id", "user_query", "expected_response", "expected_tools",
               "expected_trajectory")
"""The columns of a CSV eval set that are case fields; any other column is metadata."""

_CSV_REQUIRED = ("eval_id", "user_query")
_CSV_LISTS = ("expected_tools", "expected_trajectory")
_CSV_REFUSED = {
    "turns": "multi-turn cases",
    "config": "a case's runtime configuration",
    "rubrics": "a case's rubrics",
    "metadata": "a case's metadata (other CSV columns are its metadata)",
}
"""Case fields a CSV cell does not hold: a column so named is refused, not taken as metadata."""

_NAME_SEPARATORS = re.compile(r"[;|]")
_LINE_ENDS = re.compile(rb"\r\n|\r|\n")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_MAX_FIELD_LIMIT = 2**31 - 1  # what `csv.field_size_limit` takes on every platform (a C long)
_FIELD_LIMIT_LOCK = threading.Lock()


def is_eval_case(value: Any) -> bool:
    """Whether a scenario file's object is an eval case (it has an `eval_id`, no `id`)."""
    return isinstance(value, dict) and "eval_id" in value and "id" not in value


def read_eval_cases(path: str | Path) -> Iterator[EvalCase | ReadProblem]:
    """The cases of an eval-set file in assay's shape: JSON (a case, a list of cases, or
    `{"cases": [...]}`), JSON Lines (one case per line) or CSV (`.csv`, see `csv_eval_cases`).
    A malformed case is a problem naming its line or position and the field; the other cases
    are read."""
    source = str(path)
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        yield data
        return
    if source.lower().endswith(CSV_SUFFIXES):
        yield from csv_eval_cases(data, source)
        return
    if source.lower().endswith((".jsonl", ".ndjson")):
        empty = True
        for number, line in jsonl_lines(data):
            empty = False
            value, reason = parse_json(line)
            where = f"{source}:{number}"
            yield ReadProblem(where, reason) if reason is not None else eval_case(value, where)
        if empty:
            yield ReadProblem(source, "empty file: no cases")
        return
    if not data or data.isspace():
        yield ReadProblem(source, "empty file: no cases")
        return
    value, reason = parse_json(data)
    if reason is not None:
        yield ReadProblem(source, reason)
        return
    if isinstance(value, dict) and isinstance(value.get("cases"), list):
        items = value["cases"]
    elif isinstance(value, dict) and "eval_id" in value:
        yield eval_case(value, source)
        return
    elif isinstance(value, list):
        items = value
    else:
        yield ReadProblem(
            source,
            'expected eval cases: a list, an object with a "cases" list, or one case with an '
            f"eval_id; got {json_type(value)}",
        )
        return
    if not items:
        yield ReadProblem(source, "empty list: no cases")
    for index, item in enumerate(items):
        yield eval_case(item, f"{source}#{index}")


def eval_case(value: Any, source: str) -> EvalCase | ReadProblem:
    """One eval case from a parsed JSON value, or the problem with it (naming the field)."""
    from pydantic import ValidationError

    from assay.schema.evalset import EvalCase
    from assay.schema.loc import path_text

    if not isinstance(value, dict):
        return ReadProblem(source, f"expected an eval case object, got {json_type_phrase(value)}")
    try:
        return EvalCase.model_validate(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = path_text(tuple(first["loc"])) or "case"
        message = str(first["msg"]).removeprefix("Value error, ")
        return ReadProblem(source, f"{where}: {message}")


def csv_eval_cases(data: bytes, source: str) -> Iterator[EvalCase | ReadProblem]:
    """The cases of a CSV eval set held in memory (`data`, without a UTF-8 BOM, as
    `read_bytes` gives it), each row that is not one a problem naming `source`, its line and
    what is wrong; the other rows are read.

    The header row names the columns (`CSV_COLUMNS`, and any others as metadata); blank
    rows are skipped. A file that is not UTF-8 text, a header without `eval_id` or
    `user_query`, a row with more or fewer cells than the header has columns, an `eval_id`
    already used by an earlier row, a cell longer than the line limit in force
    (`--max-line-size`, `assay.limits.input_limits`) or quoting the csv module cannot read
    is each a problem. Quoting is the excel dialect's: a cell holding a comma, a quote or a
    line break is quoted, its quotes doubled.

    Example:
        >>> rows = b'eval_id,user_query\\na,"Hi, there"\\na,Bye\\nb\\n'
        >>> case, *problems = csv_eval_cases(rows, "x.csv")
        >>> case.user_query
        'Hi, there'
        >>> for problem in problems:
        ...     print(problem.source, problem.reason)
        x.csv:3 eval_id 'a' is already the id of the case on line 2
        x.csv:4 1 cell; the header has 2 columns
    """
    if data.startswith(_UTF16_BOMS):
        yield ReadProblem(source, "not UTF-8: the file is UTF-16 text; save it as UTF-8 CSV")
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = len(_LINE_ENDS.findall(data, 0, error.start)) + 1
        byte = data[error.start]
        yield ReadProblem(f"{source}:{line}", f"not UTF-8: undecodable byte 0x{byte:02x}; "
                          "save the file as UTF-8 CSV")
        return
    records, broken = _csv_records(text)
    rows = [(line, cells) for line, cells in records if any(cell.strip() for cell in cells)]
    if not rows:
        if broken is not None:
            yield ReadProblem(f"{source}:{broken[0]}", broken[1])
        else:
            yield ReadProblem(source, "empty file: no cases")
        return
    header_line, header = rows[0]
    columns = [name.strip() for name in header]
    wrong = _header_problem(columns)
    if wrong is not None:
        yield ReadProblem(f"{source}:{header_line}", wrong)
        return
    first_line: dict[str, int] = {}
    for line, cells in rows[1:]:
        where = f"{source}:{line}"
        if len(cells) != len(columns):
            yield ReadProblem(
                where,
                f"{len(cells)} cell{'' if len(cells) == 1 else 's'}; the header has "
                f"{len(columns)} columns",
            )
            continue
        item = _csv_case(dict(zip(columns, cells, strict=True)), where)
        if not isinstance(item, ReadProblem):
            earlier = first_line.setdefault(item.eval_id, line)
            if earlier != line:
                yield ReadProblem(
                    where, f"eval_id {item.eval_id!r} is already the id of the case on line "
                    f"{earlier}"
                )
                continue
        yield item
    if broken is not None:
        yield ReadProblem(f"{source}:{broken[0]}", f"{broken[1]}; the rows after it are not read")
    elif len(rows) == 1:
        yield ReadProblem(source, "no cases: the file has a header row and no rows")


def _csv_records(text: str) -> tuple[list[tuple[int, list[str]]], tuple[int, str] | None]:
    """Each record of a CSV text with the line it starts on, up to the first one the csv
    module cannot read; then that one's line and what is wrong with it."""
    limit = min(input_limits().max_line_bytes, _MAX_FIELD_LIMIT)
    reader = csv.reader(io.StringIO(text, newline=""), dialect="excel", strict=True)
    records: list[tuple[int, list[str]]] = []
    # The csv module's field limit is the process's, not the reader's: set for this read
    # and put back after it, one read at a time.
    with _FIELD_LIMIT_LOCK:
        previous = csv.field_size_limit(limit)
        try:
            start = 1
            while True:
                try:
                    cells = next(reader)
                except StopIteration:
                    return records, None
                except csv.Error as error:
                    return records, (max(reader.line_num, start), _csv_reason(error, limit))
                records.append((start, cells))
                start = reader.line_num + 1
        finally:
            csv.field_size_limit(previous)


def _csv_reason(error: csv.Error, limit: int) -> str:
    if "field limit" in str(error):
        return f"a cell is longer than {format_size(limit)}, the line limit (--max-line-size)"
    return f"not CSV: {error}"


def _header_problem(columns: list[str]) -> str | None:
    for number, name in enumerate(columns, start=1):
        if not name:
            return f"column {number} of the header has no name"
        if name in _CSV_REFUSED:
            return (f"column {name!r}: {_CSV_REFUSED[name]} are not read from CSV; "
                    "use a JSON or JSONL eval set")
    twice = sorted({name for name in columns if columns.count(name) > 1})
    if twice:
        return f"column {twice[0]!r} appears more than once in the header"
    for name in _CSV_REQUIRED:
        if name in columns:
            continue
        shown = ", ".join(repr(column) for column in columns[:10])
        more = f" and {len(columns) - 10} more" if len(columns) > 10 else ""
        reason = f"the header has no `{name}` column (columns: {shown}{more})"
        if len(columns) == 1 and any(mark in columns[0] for mark in ";\t"):
            return reason + "; columns are separated by commas"
        return reason + did_you_mean(name, columns)
    return None


def _csv_case(row: dict[str, str], where: str) -> EvalCase | ReadProblem:
    """One row as a case: its cells read into a case object, then validated as a JSON case
    is (`eval_case`)."""
    value: dict[str, Any] = {}
    metadata: dict[str, str] = {}
    for column, cell in row.items():
        if column == "eval_id":
            value[column] = cell.strip()
        elif column in _CSV_LISTS:
            if cell.strip():
                items, reason = _names(cell)
                if reason is not None:
                    return ReadProblem(where, f"{column}: {reason}")
                value[column] = items
        elif column in CSV_COLUMNS:
            if cell:  # an empty cell says nothing
                value[column] = cell
        else:
            metadata[column] = cell
    if metadata:
        value["metadata"] = metadata
    return eval_case(value, where)


def _names(cell: str) -> tuple[Any, str | None]:
    """A list cell: a JSON list, or names separated by `;` or `|`."""
    text = cell.strip()
    if text.startswith("["):
        return parse_json(text.encode("utf-8"))
    return [name.strip() for name in _NAME_SEPARATORS.split(text) if name.strip()], None
