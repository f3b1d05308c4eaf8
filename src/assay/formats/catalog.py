"""Evaluator-catalog scenario files: jobs of scenarios in YAML or JSON, `Case` records out.

A catalog file has `jobs`: a list of jobs (each named by `name`) or a mapping of job name to
job. Each job has `scenarios`. (A file with a top-level `scenarios` list and no `jobs` is read
as one unnamed job.) A scenario, in YAML:

    jobs:
      billing:
        scenarios:
          - id: refund_broken_item
            turns:
              - user: "Order 42 arrived broken, please refund it"
            expected_tools: [lookup_order, process_refund]
            sensitive_tool: process_refund
            approval: approve
            should_escalate: false
            success_criteria:
              - max_turns: 5
              - response_contains: ["refund"]

becomes `Case(id="refund_broken_item", question=<the first user turn, else input>,
type="billing", expected_tools=[...], sensitive_tool=..., ...)`. The id is `id`, else `name`.
Each field is checked once, here, by the model `assay.schema.scenario.CatalogScenario` and
put on its typed `Case` field, where the catalog scorers read it:

- `success_criteria`: a list of items (`- max_turns: 5`) or one mapping, merged into one
  `SuccessCriteria`. `max_turns` and `max_tokens` are whole numbers of 0 or more;
  `response_contains` and `response_not_contains` are lists of phrases (one phrase alone is
  a list of one); a criterion given twice is merged when both are lists and refused when
  they differ; a bare string item (`- signal_task_complete`) is a flag that is set; other
  criteria are kept as written in `SuccessCriteria.others`.
- `turns` (`Case.conversation`): a list of `{"user": ...}` items or strings (a string is a
  user turn); `input`: text.
- `should_escalate`, `should_signal_complete`: booleans.
- `sensitive_tool`, `expected_subagent`: names (surrounding spaces removed).
- `approval`: `approve` or `reject` (any case), stored in lower case.
- `expected_tools`: a list of tool names; `expected_tool_graph`: a mapping of tool name to
  the tools that may follow it (one name alone is a list of one).
- `rubrics`: the `rubric` judge's rubrics; `expected_trajectory` and the other trajectory
  fields as in a scenario file.

Fields no scorer reads are kept in `Case.metadata`. A field that breaks these rules is a
`ReadProblem` naming the file and the field's path (`c.yaml:
jobs.billing.scenarios[0].approval: Input should be 'approve' or 'reject'`); the scenario is
still loaded without it, and the scorers that need the field report that problem as an error
rather than score against an expectation that was misread. Nothing here raises on bad input:
a file that cannot be read or parsed, a job or scenario of the wrong shape, a scenario without
an id, or a second scenario with an id already loaded is a problem, and loading goes on with
the rest.

YAML is parsed with PyYAML's `safe_load` (the optional extra `assay[yaml]`), which builds plain
values only. Files are limited in size, nesting depth and number of values (aliases count each
time they are used), and YAML dates are kept as ISO text.

Example:
    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "catalog.json"
    >>> _ = path.write_text(json.dumps({"jobs": {"billing": {"scenarios": [
    ...     {"id": "r1", "turns": [{"user": "Refund order 42"}],
    ...      "success_criteria": [{"max_turns": 5}, {"response_contains": "refund"}]},
    ...     {"turns": ["no id here"]}]}}}))
    >>> cases, problems = load_catalog(path)
    >>> cases[0].id, cases[0].type, cases[0].question
    ('r1', 'billing', 'Refund order 42')
    >>> cases[0].success_criteria.max_turns, cases[0].success_criteria.response_contains
    (5, ['refund'])
    >>> [p.reason for p in problems]
    ['scenario has no id (give it an `id` or a `name`)']
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from datetime import date
from importlib import import_module
from pathlib import Path
from typing import Any

from assay._jsonable import json_type
from assay.formats._common import (
    InexactId,
    ReadProblem,
    id_text,
    inexact_id_reason,
    parse_json,
    read_bytes,
)
from assay.formats._scenario_fields import Where, apply_fields
from assay.formats.ids import scenario_key
from assay.records import Case

__all__ = [
    "YAML_INSTALL_HINT",
    "load_catalog",
]

YAML_INSTALL_HINT = "pip install pyyaml"
"""How to get YAML support, as problems and errors say it."""

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Catalog files larger than this are refused unread."""

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted."""

MAX_VALUES = 1_000_000
"""Most values (scalars, lists and mappings) a document may hold once aliases are expanded."""

_YAML_SUFFIXES = (".yaml", ".yml")
_JSON_SUFFIX = ".json"

def load_catalog(path: str | Path) -> tuple[list[Case], list[ReadProblem]]:
    """Load the scenarios of one catalog file (`.yaml`, `.yml` or `.json`), never raising.

    Args:
        path: The catalog file.

    Returns:
        The usable scenarios as cases, in file order, and a problem for everything that could
        not be used (the whole file, a job, or a scenario), each with its reason.
    """
    source = os.fspath(path)
    suffix = Path(source).suffix.lower()
    if suffix not in (*_YAML_SUFFIXES, _JSON_SUFFIX):
        shown = suffix or "no suffix"
        return [], [ReadProblem(source, f"expected a .yaml, .yml or .json file, got {shown}")]
    try:
        size = Path(source).stat().st_size
    except OSError:
        size = 0  # read_bytes reports why the file cannot be read
    if size > MAX_FILE_BYTES:
        too_large = f"file too large: {size} bytes (at most {MAX_FILE_BYTES})"
        return [], [ReadProblem(source, too_large)]
    data = read_bytes(source)
    if isinstance(data, ReadProblem):
        return [], [data]
    if not data.strip():
        return [], [ReadProblem(source, "empty file")]
    parsed = parse_json(data) if suffix == _JSON_SUFFIX else _parse_yaml(data)
    document, unusable = parsed if parsed[1] is not None else _plain(parsed[0])
    if unusable is not None:
        return [], [ReadProblem(source, unusable)]

    problems: list[ReadProblem] = []
    cases: list[Case] = []
    loaded: dict[str, str] = {}  # scenario key -> where the scenario was loaded from
    for item in _scenarios(document, source):
        if isinstance(item, ReadProblem):
            problems.append(item)
            continue
        key = scenario_key(item.id)
        assert key is not None  # checked when the case was built
        if key in loaded:
            duplicate = (
                f"duplicate scenario id {item.id!r}: already loaded from {loaded[key]}; "
                "this one is ignored"
            )
            problems.append(ReadProblem(item.source, duplicate))
            continue
        loaded[key] = item.source
        cases.append(item)
    return cases, problems


# --- reading -------------------------------------------------------------------------------


def _parse_yaml(data: bytes) -> tuple[Any, str | None]:
    try:
        # Imported by name so that the type checker needs no PyYAML stubs; `safe_load` only.
        yaml = import_module("yaml")
    except ImportError:
        return None, f"reading YAML needs PyYAML: {YAML_INSTALL_HINT}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"not UTF-8: undecodable byte at offset {error.start}"
    try:
        return yaml.safe_load(text), None
    except yaml.YAMLError as error:
        return None, _yaml_reason(error)
    except RecursionError:
        return None, "invalid YAML: nested too deeply"
    except Exception as error:  # e.g. ValueError for an impossible date such as 2024-13-45
        return None, _clip(f"invalid YAML: {type(error).__name__}: {error}")


def _yaml_reason(error: Exception) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None)
    line = getattr(mark, "line", None)
    column = getattr(mark, "column", None)
    if isinstance(line, int) and isinstance(column, int):
        what = problem if isinstance(problem, str) and problem else "syntax error"
        return _clip(f"invalid YAML: {what} at line {line + 1} column {column + 1}")
    first_line = str(error).strip().splitlines()[:1]
    return _clip("invalid YAML: " + (first_line[0] if first_line else type(error).__name__))


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _UnusableError(Exception):
    """The document holds something a catalog cannot: said in the message."""


class _Plain:
    """Copies a parsed document into plain JSON values, within the size and depth limits."""

    def __init__(self) -> None:
        self.values = 0
        self.open: set[int] = set()  # ids of the lists and mappings being copied

    def copy(self, value: Any, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise _UnusableError(
                f"document too large: more than {MAX_VALUES} values "
                "(YAML aliases count each time they are used)"
            )
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, date):  # also datetime: YAML reads unquoted dates as dates
            return value.isoformat()
        if not isinstance(value, list | dict):
            raise _UnusableError(f"unsupported value of type {type(value).__name__}")
        if depth >= MAX_DEPTH:
            raise _UnusableError(f"nested deeper than {MAX_DEPTH} levels")
        if id(value) in self.open:
            raise _UnusableError("a YAML alias refers to a value that contains it")
        self.open.add(id(value))
        try:
            if isinstance(value, list):
                return [self.copy(item, depth + 1) for item in value]
            return {self.key(key): self.copy(item, depth + 1) for key, item in value.items()}
        finally:
            self.open.discard(id(value))

    @staticmethod
    def key(key: Any) -> str:
        if isinstance(key, str):
            return key
        if isinstance(key, int) and not isinstance(key, bool):
            return str(key)
        if isinstance(key, float) and math.isfinite(key):
            return repr(key)
        hint = ""
        if isinstance(key, bool):
            hint = " (YAML reads unquoted yes/no/on/off/true/false as booleans: quote it)"
        raise _UnusableError(f"mapping key {key!r} is not text{hint}")


def _plain(document: Any) -> tuple[Any, str | None]:
    try:
        return _Plain().copy(document, 0), None
    except _UnusableError as error:
        return None, str(error)


def _scenarios(document: Any, source: str) -> Iterator[Case | ReadProblem]:
    if not isinstance(document, dict):
        reason = f"expected a mapping with `jobs`, got {json_type(document)}"
        yield ReadProblem(source, reason)
        return
    jobs: list[tuple[str | None, Any, str]] = []  # (job name, job, where in the file)
    if "jobs" in document:
        raw_jobs = document["jobs"]
        if isinstance(raw_jobs, dict):
            jobs = [(name, job, f"jobs.{name}") for name, job in raw_jobs.items()]
        elif isinstance(raw_jobs, list):
            for index, job in enumerate(raw_jobs):
                name = id_text(job.get("name")) if isinstance(job, dict) else None
                jobs.append((name, job, f"jobs[{index}]"))
        else:
            reason = (
                "`jobs` must be a list of jobs or a mapping of job name to job, "
                f"got {json_type(raw_jobs)}"
            )
            yield ReadProblem(source, reason)
            return
        if not jobs:
            yield ReadProblem(source, "`jobs` is empty: no scenarios")
            return
    elif "scenarios" in document:
        jobs = [(None, document, "")]
    else:
        yield ReadProblem(source, "no `jobs`: a catalog file has `jobs`, each with `scenarios`")
        return

    for name, job, where in jobs:
        job_source = f"{source}#{where}" if where else source
        if not isinstance(job, dict):
            reason = f"expected a job mapping with `scenarios`, got {json_type(job)}"
            yield ReadProblem(job_source, reason)
            continue
        scenarios = job.get("scenarios")
        if scenarios is None:
            yield ReadProblem(job_source, "job has no `scenarios`")
            continue
        if not isinstance(scenarios, list):
            reason = f"`scenarios` must be a list, got {json_type(scenarios)}"
            yield ReadProblem(job_source, reason)
            continue
        if not scenarios:
            yield ReadProblem(job_source, "job has no scenarios (empty list)")
        prefix = f"{where}.scenarios" if where else "scenarios"
        for index, scenario in enumerate(scenarios):
            found: list[ReadProblem] = []
            case = _scenario_case(scenario, name, f"{source}#{prefix}[{index}]", found)
            yield from found
            yield case


def _scenario_case(
    obj: Any, job: str | None, source: str, problems: list[ReadProblem]
) -> Case | ReadProblem:
    if not isinstance(obj, dict):
        return ReadProblem(source, f"expected a scenario mapping, got {json_type(obj)}")
    id_field = "id" if obj.get("id") is not None else "name"
    raw_id = obj.get(id_field)
    case_id = id_text(raw_id)
    if case_id is None or scenario_key(case_id) is None:
        if raw_id is None:
            reason = "scenario has no id (give it an `id` or a `name`)"
        elif isinstance(case_id, InexactId):
            reason = inexact_id_reason(f"scenario {id_field}", case_id)
        elif isinstance(raw_id, str):
            shown = raw_id if len(raw_id) <= 60 else raw_id[:57] + "..."
            reason = f"unusable scenario {id_field} {shown!r}"
        else:
            reason = f"scenario {id_field} must be text or a number, got {json_type(raw_id)}"
        return ReadProblem(source, reason)

    from assay.schema.scenario import CatalogScenario, check  # pydantic: only for catalogs

    found, errors = check(CatalogScenario, obj)
    file, _, path = source.partition("#")
    case = Case(
        id=case_id,
        type=job,
        source=source,
        metadata={k: v for k, v in obj.items() if k not in CatalogScenario.model_fields},
    )
    if id_field == "id" and obj.get("name") is not None:
        case.metadata["name"] = obj["name"]  # a name beside the id is only a label
    apply_fields(case, found, errors, Where(file, path), problems)
    if found is not None:
        if found.turns is not None:
            case.conversation = [turn.user for turn in found.turns]
        case.input = found.input
    case.question = _first_user_turn(case.conversation)
    if case.question is None:
        case.question = case.input
    return case


def _first_user_turn(conversation: list[str | None] | None) -> str | None:
    return next((user for user in conversation or () if user is not None), None)
