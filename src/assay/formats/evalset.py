"""Eval-set files in assay's shape: JSON (a case, a list of cases, `{"cases": [...]}`) or JSON
Lines, read into `EvalCase`s, each malformed case a problem naming its line and field. The
`Case` a scorer reads of an eval case is `assay.formats.scenarios.case_of`'s.

Example:
    >>> eval_case({"eval_id": "a", "user_query": "?"}, "x.jsonl:1").eval_id
    'a'
    >>> eval_case({"eval_id": "a"}, "x.jsonl:2").reason
    'case: a case needs `user_query` or `turns`'
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._jsonable import json_type, json_type_phrase
from assay.formats._common import ReadProblem, jsonl_lines, parse_json, read_bytes

if TYPE_CHECKING:
    from assay.schema.evalset import EvalCase

__all__ = ["eval_case", "is_eval_case", "read_eval_cases"]


def is_eval_case(value: Any) -> bool:
    """Whether a scenario file's object is an eval case (it has an `eval_id`, no `id`)."""
    return isinstance(value, dict) and "eval_id" in value and "id" not in value


def read_eval_cases(path: str | Path) -> Iterator[EvalCase | ReadProblem]:
    """The cases of an eval-set file in assay's shape: JSON (a case, a list of cases, or
    `{"cases": [...]}`) or JSON Lines (one case per line). A malformed case is a problem
    naming its line or position and the field; the other cases are read."""
    source = str(path)
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        yield data
        return
    if str(path).lower().endswith((".jsonl", ".ndjson")):
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
