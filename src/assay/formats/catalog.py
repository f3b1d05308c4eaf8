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
type="billing", expected_tools=[...], metadata={...})`. The id is `id`, else `name`. Every
other field is kept in `metadata`, checked and normalised where the catalog scorers read it:

- `success_criteria`: a list of single-key items (`- max_turns: 5`) or one mapping, always
  stored as one mapping. `max_turns` and `max_tokens` are whole numbers; `response_contains`
  and `response_not_contains` are lists of phrases (one phrase alone is a list of one); a
  criterion given twice is merged when both are lists and refused when they differ; a bare
  string item (`- signal_task_complete`) is a flag, `{name: true}`.
- `turns`: a list of `{"user": ...}` items or strings (a string is a user turn).
- `should_escalate`, `should_signal_complete`: booleans.
- `sensitive_tool`, `expected_subagent`, `input`: text.
- `approval`: `approve` or `reject` (any case), stored in lower case.
- `expected_tools` (on the Case, not in metadata): a list of tool names.
- `expected_tool_graph`: a mapping of tool name to the tools that may follow it.
- `expected_trajectory`, when present, goes to `Case.expected_trajectory` unchecked.

A scenario with a field that breaks these rules is left out with a `ReadProblem` that names the
field, so that no run is scored against expectations that were misread. Nothing here raises on
bad input: a file that cannot be read or parsed, a job or scenario of the wrong shape, a
scenario without an id, or a second scenario with an id already loaded is a problem, and
loading goes on with the rest.

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
    >>> cases[0].metadata["success_criteria"]
    {'max_turns': 5, 'response_contains': ['refund']}
    >>> [p.reason for p in problems]
    ['scenario has no id (give it an `id` or a `name`)']
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from datetime import date
from importlib import import_module
from pathlib import Path
from typing import Any

from assay._jsonable import json_type
from assay.formats._common import ReadProblem, id_text, parse_json, read_bytes
from assay.formats.ids import scenario_key
from assay.records import Case

__all__ = [
    "CRITERIA_STRUCTURE",
    "YAML_INSTALL_HINT",
    "load_catalog",
    "normalise_field",
    "normalise_success_criteria",
]

YAML_INSTALL_HINT = "pip install 'assay[yaml]'"
"""How to get YAML support, as problems and errors say it."""

CRITERIA_STRUCTURE = "success_criteria"
"""Key of `normalise_success_criteria`'s errors for a problem with the criteria as a whole
(not a list or mapping, an item that is not a mapping): it concerns every criterion."""

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Catalog files larger than this are refused unread."""

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted."""

MAX_VALUES = 1_000_000
"""Most values (scalars, lists and mappings) a document may hold once aliases are expanded."""

_YAML_SUFFIXES = (".yaml", ".yml")
_JSON_SUFFIX = ".json"

_COUNT_CRITERIA = frozenset({"max_turns", "max_tokens"})
_PHRASE_CRITERIA = frozenset({"response_contains", "response_not_contains"})
_APPROVALS = ("approve", "reject")


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


def normalise_success_criteria(value: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """A scenario's `success_criteria` as one mapping, and the criteria that are unusable.

    Args:
        value: The field as written: a list of single-key mappings, one mapping, or None.

    Returns:
        `(criteria, errors)`. `errors` maps a criterion's name to why it is unusable (that
        criterion is left out of `criteria`); the key `CRITERIA_STRUCTURE` holds a problem
        with the field as a whole.

    Example:
        >>> normalise_success_criteria([{"max_turns": 5}, {"response_contains": "done"},
        ...                             {"response_contains": ["ok"]}, "signal_task_complete"])
        ({'max_turns': 5, 'response_contains': ['done', 'ok'], 'signal_task_complete': True}, {})
        >>> errors = normalise_success_criteria([{"max_turns": "five"}, 3])[1]
        >>> errors["max_turns"]
        'must be a whole number, got string'
        >>> errors["success_criteria"]
        'item 1 is a number; expected a mapping such as `max_turns: 5`'
    """
    criteria: dict[str, Any] = {}
    errors: dict[str, str] = {}
    if value is None:
        return criteria, errors
    items: list[Mapping[Any, Any]] = []
    if isinstance(value, Mapping):
        items.append(value)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, Mapping):
                items.append(item)
            elif isinstance(item, str) and item.strip():
                items.append({item.strip(): True})
            else:
                errors[CRITERIA_STRUCTURE] = (
                    f"item {index} is {_a(json_type(item))}; expected a mapping such as "
                    "`max_turns: 5`"
                )
    else:
        errors[CRITERIA_STRUCTURE] = (
            f"expected a list of criteria or a mapping, got {json_type(value)}"
        )
    for item in items:
        for key, raw in item.items():
            if not isinstance(key, str):
                errors[CRITERIA_STRUCTURE] = f"criterion name {key!r} is not text"
                continue
            if key in errors:
                continue
            checked, reason = _criterion(key, raw)
            if reason is not None:
                errors[key] = reason
                criteria.pop(key, None)
            elif key not in criteria:
                criteria[key] = checked
            elif isinstance(criteria[key], list) and isinstance(checked, list):
                criteria[key] = criteria[key] + checked
            elif criteria[key] != checked:
                errors[key] = f"given twice with different values ({criteria[key]!r} and {raw!r})"
                del criteria[key]
    return criteria, errors


def normalise_field(name: str, value: Any) -> tuple[Any, str | None]:
    """One scenario field checked and normalised as the catalog scorers read it.

    Args:
        name: The field's name (`approval`, `sensitive_tool`, ...). Fields this format does
            not define are returned as they are.
        value: The value as written; None means "not given" and is always accepted.

    Returns:
        `(value, None)` with the normalised value, or `(None, reason)`.

    Example:
        >>> normalise_field("approval", " Approve ")
        ('approve', None)
        >>> normalise_field("expected_tool_graph", {"search": "get_item"})
        ({'search': ['get_item']}, None)
        >>> normalise_field("should_escalate", "yes")
        (None, 'must be true or false, got string')
    """
    if value is None:
        return None, None
    check = _FIELD_CHECKS.get(name)
    if check is None:
        return value, None
    return check(value)


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
            yield _scenario_case(scenario, name, f"{source}#{prefix}[{index}]")


def _scenario_case(obj: Any, job: str | None, source: str) -> Case | ReadProblem:
    if not isinstance(obj, dict):
        return ReadProblem(source, f"expected a scenario mapping, got {json_type(obj)}")
    id_field = "id" if obj.get("id") is not None else "name"
    raw_id = obj.get(id_field)
    case_id = id_text(raw_id)
    if case_id is None or scenario_key(case_id) is None:
        if raw_id is None:
            reason = "scenario has no id (give it an `id` or a `name`)"
        elif isinstance(raw_id, str):
            shown = raw_id if len(raw_id) <= 60 else raw_id[:57] + "..."
            reason = f"unusable scenario {id_field} {shown!r}"
        else:
            reason = f"scenario {id_field} must be text or a number, got {json_type(raw_id)}"
        return ReadProblem(source, reason)

    metadata: dict[str, Any] = {}
    errors: list[str] = []
    expected_tools: list[str] | None = None
    for key, value in obj.items():
        if key in ("id", id_field, "expected_trajectory"):
            continue
        checked, unusable = normalise_field(key, value)
        if unusable is not None:
            errors.append(f"`{key}` {unusable}")
        elif key == "expected_tools":
            expected_tools = checked
        else:
            metadata[key] = checked
    if errors:
        return ReadProblem(source, f"scenario {case_id!r}: " + "; ".join(errors))

    question = _first_user_turn(metadata.get("turns"))
    if question is None:
        question = metadata.get("input")
    return Case(
        id=case_id,
        question=question,
        expected_tools=expected_tools,
        expected_trajectory=obj.get("expected_trajectory"),
        type=job,
        source=source,
        metadata=metadata,
    )


def _first_user_turn(turns: Any) -> str | None:
    for turn in turns or ():
        if isinstance(turn, str):
            return turn
        if isinstance(turn, dict) and isinstance(turn.get("user"), str):
            return str(turn["user"])
    return None


# --- field checks --------------------------------------------------------------------------


def _a(type_name: str) -> str:
    return ("an " if type_name[0] in "aeiou" else "a ") + type_name


def _criterion(key: str, value: Any) -> tuple[Any, str | None]:
    if key in _COUNT_CRITERIA:
        return _count(value)
    if key in _PHRASE_CRITERIA:
        return _texts(value, allow_one=True)
    return value, None


def _count(value: Any) -> tuple[int | None, str | None]:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        return None, f"must be a whole number, got {json_type(value)}"
    if value < 0:
        return None, f"must not be negative, got {value}"
    return value, None


def _texts(value: Any, *, allow_one: bool = False) -> tuple[list[str] | None, str | None]:
    if allow_one and isinstance(value, str):
        return [value], None
    if not isinstance(value, list):
        return None, f"must be a list of text, got {json_type(value)}"
    for index, item in enumerate(value):
        if not isinstance(item, str):
            return None, f"item {index} must be text, got {json_type(item)}"
    return list(value), None


def _names(value: Any, *, allow_one: bool = False) -> tuple[list[str] | None, str | None]:
    names, reason = _texts(value, allow_one=allow_one)
    if names is None:
        return None, reason
    stripped = [name.strip() for name in names]
    if "" in stripped:
        return None, f"item {stripped.index('')} is empty"
    return stripped, None


def _flag(value: Any) -> tuple[bool | None, str | None]:
    if isinstance(value, bool):
        return value, None
    return None, f"must be true or false, got {json_type(value)}"


def _name(value: Any) -> tuple[str | None, str | None]:
    if not isinstance(value, str):
        return None, f"must be text, got {json_type(value)}"
    if not value.strip():
        return None, "is empty"
    return value.strip(), None


def _text(value: Any) -> tuple[str | None, str | None]:
    if isinstance(value, str):
        return value, None
    return None, f"must be text, got {json_type(value)}"


def _approval(value: Any) -> tuple[str | None, str | None]:
    if isinstance(value, str) and value.strip().lower() in _APPROVALS:
        return value.strip().lower(), None
    shown = repr(value) if isinstance(value, str) else json_type(value)
    return None, f"must be `approve` or `reject`, got {shown}"


def _turns(value: Any) -> tuple[list[Any] | None, str | None]:
    if not isinstance(value, list):
        return None, f"must be a list of turns, got {json_type(value)}"
    for index, turn in enumerate(value):
        if isinstance(turn, str):
            continue
        if not isinstance(turn, dict):
            return None, f"turn {index} must be a mapping or text, got {json_type(turn)}"
        user = turn.get("user")
        if user is not None and not isinstance(user, str):
            return None, f"turn {index}: `user` must be text, got {json_type(user)}"
    return value, None


def _tool_graph(value: Any) -> tuple[dict[str, list[str]] | None, str | None]:
    if not isinstance(value, dict):
        return None, f"must be a mapping of tool name to next tools, got {json_type(value)}"
    graph: dict[str, list[str]] = {}
    for tool, following in value.items():
        if not isinstance(tool, str) or not tool.strip():
            return None, f"tool name {tool!r} is not usable"
        names, reason = _names(following, allow_one=True)
        if names is None:
            return None, f"next tools of {tool!r} {reason}"
        graph[tool.strip()] = names
    return graph, None


def _criteria_field(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    criteria, errors = normalise_success_criteria(value)
    if errors:
        return None, "; ".join(
            reason if key == CRITERIA_STRUCTURE else f"{key}: {reason}"
            for key, reason in errors.items()
        )
    return criteria, None


def _expected_tools(value: Any) -> tuple[list[str] | None, str | None]:
    return _names(value)


_FIELD_CHECKS: dict[str, Callable[[Any], tuple[Any, str | None]]] = {
    "turns": _turns,
    "input": _text,
    "success_criteria": _criteria_field,
    "should_escalate": _flag,
    "should_signal_complete": _flag,
    "sensitive_tool": _name,
    "expected_subagent": _name,
    "approval": _approval,
    "expected_tools": _expected_tools,
    "expected_tool_graph": _tool_graph,
}
