"""Eval-set files as ground truth: each `EvalCase` read into the `Case` every scorer reads.

The same conversion serves both halves: `assay run` scores a live run against the case it
ran, and `assay evaluate --scenarios evalset.jsonl` scores the runs `assay run` saved (its
`runs.jsonl`) against the same cases, with the same result.

A case becomes a scenario object (`eval_id` the id, the first user message the question, the
last turn's expected response the expected answer, the tool steps of `expected_trajectory`
the expected calls, the catalog's fields as written) read by the scenario reader, so its
fields are checked as a scenario's are; then the turns, and the expected node sequence
(`metadata["expected_nodes"]`, which `node_order` reads), are put on it.

Example:
    >>> from assay.schema.evalset import EvalCase
    >>> case, problems = case_of(EvalCase(eval_id="m1", turns=[("Hi", "Hello"), ("Bye", "Bye!")],
    ...                                   expected_tools=["search"]))
    >>> case.id, case.question, case.expected_answer, [t.question for t in case.turns]
    ('m1', 'Hi', 'Bye!', ['Hi', 'Bye'])
    >>> problems
    []
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._jsonable import json_type, json_type_phrase
from assay.formats._common import ReadProblem, jsonl_lines, parse_json, read_bytes
from assay.records import Case, CaseTurn, StepType

if TYPE_CHECKING:
    from assay.schema.evalset import EvalCase

__all__ = ["case_of", "eval_case", "is_eval_case", "read_eval_cases"]


def is_eval_case(value: Any) -> bool:
    """Whether a scenario file's object is an eval case (it has an `eval_id`, no `id`)."""
    return isinstance(value, dict) and "eval_id" in value and "id" not in value


def case_of(case: EvalCase, source: str = "eval set") -> tuple[Case, list[ReadProblem]]:
    """The `Case` of an eval case, and the problems of its fields (a field with a problem is
    left out of the case, and the scorers that need it say so)."""
    from assay.formats.scenarios import case_from_object

    users = case.user_messages()
    expected = case.expected_responses()
    steps = case.expected_trajectory or []
    calls = [step.call for step in steps if step.type is StepType.TOOL and step.call is not None]
    nodes = [step.name for step in steps if step.type is StepType.NODE]
    scenario: dict[str, Any] = {
        **case.extra_fields(),
        "id": case.eval_id,
        "text": users[0],
        "expected_answer": expected[-1],
    }
    if case.expected_tools is not None:
        scenario["expected_tools"] = case.expected_tools
    if calls:
        scenario["expected_trajectory"] = [
            {"name": call.name, "args": call.args} if call.args is not None else call.name
            for call in calls
        ]
    if case.rubrics is not None:
        scenario["rubrics"] = [
            {"rubric_id": r.rubric_id, "content": r.content, "weight": r.weight}
            for r in case.rubrics
        ]
    built, problems = case_from_object(scenario, source)
    if built is None:  # the id was checked by the model; a reader bug, not the user's
        raise ValueError(f"eval case {case.eval_id!r} could not be read as a scenario")
    built.metadata.pop("eval_id", None)
    built.metadata.update(case.metadata)
    if nodes:
        built.metadata["expected_nodes"] = nodes
    if case.turns is not None:
        built.turns = [CaseTurn(user, answer) for user, answer in case.turns]
        built.conversation = list(users)
    return built, problems


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
