"""A checked scenario (`assay.schema.scenario`) onto a `Case`: the typed fields the scorers
read, and a problem for each field that failed its check, naming the file and the path.

Example:
    >>> from assay.records import Case
    >>> from assay.schema.scenario import Scenario, check
    >>> found, errors = check(Scenario, {"id": "1", "approval": "maybe",
    ...                                  "success_criteria": {"max_turns": 5}})
    >>> problems = []
    >>> case = apply_fields(Case(id="1"), found, errors, Where("s.json", "[0]"), problems)
    >>> case.success_criteria.max_turns, case.approval
    (5, None)
    >>> case.problem("approval")
    "s.json: [0].approval: Input should be 'approve' or 'reject'"
    >>> [(p.source, p.reason) for p in problems]
    [('s.json', "[0].approval: Input should be 'approve' or 'reject'")]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from assay.formats._common import ReadProblem
from assay.formats._scenario_trajectory import FIELDS as TRAJECTORY_FIELDS
from assay.records import Case, Rubric, SuccessCriteria
from assay.schema.loc import FieldError, Loc, path_text

if TYPE_CHECKING:  # the models import pydantic; a checked scenario brings them along
    from assay.schema.scenario import Criteria

EXPECTATION_FIELDS = TRAJECTORY_FIELDS | {
    "success_criteria",
    "should_escalate",
    "should_signal_complete",
    "sensitive_tool",
    "approval",
    "expected_subagent",
    "expected_tool_graph",
    "expected_nodes",
    "rubrics",
}
"""The fields of what a scenario expects of a run (`assay.schema.scenario`'s expectations),
named here without importing the models: a scenario object with none of them needs no model
to be read (a test keeps this equal to the models' fields)."""

RULES_FIELD = "groundtruth_eval"
"""The answer rules of a scenario object; their problem is `Case.answer_rules_problem`."""

_CRITERIA = "success_criteria"
_KNOWN_CRITERIA = tuple(f.name for f in fields(SuccessCriteria) if f.name != "others")


@dataclass(frozen=True, slots=True)
class Where:
    """Where a scenario object is: its file (or `file:LINE`), and its path inside it."""

    file: str
    """The file, as given (`path`, or `path:LINE` for a `.jsonl` line)."""

    path: str = ""
    """The object's path in the file (`[3]`, `jobs.billing.scenarios[0]`); "" for the whole
    file or line."""

    def field(self, loc: Loc) -> str:
        """The path of a field of the object: `[3].success_criteria[0].max_turns`."""
        inner = path_text(loc)
        if not self.path:
            return inner
        return f"{self.path}{inner}" if inner.startswith("[") else f"{self.path}.{inner}"


def apply_fields(
    case: Case,
    found: Any,
    errors: Iterable[FieldError],
    where: Where,
    problems: list[ReadProblem],
) -> Case:
    """Put the checked expectation fields of `found` on `case`; record each error.

    Args:
        case: The case to complete (its id, question and answer already set).
        found: The checked model (`Scenario` or `CatalogScenario`), or None.
        errors: The fields that failed their check (`assay.schema.scenario.check`).
        where: Where the scenario is, for the problems.
        problems: Gets one `ReadProblem` per error.

    Returns:
        `case`.
    """
    trajectory: list[str] = []
    for loc, message in errors:
        reason = f"{where.field(loc)}: {message}"
        problems.append(ReadProblem(where.file, reason))
        text = f"{where.file}: {reason}"
        name = str(loc[0]) if loc else ""
        if name in TRAJECTORY_FIELDS:
            trajectory.append(text)
        if name == RULES_FIELD:
            case.answer_rules_problem = _joined(case.answer_rules_problem, text)
        elif name:
            key = _problem_key(loc)
            case.problems[key] = _joined(case.problems.get(key), text)
    if trajectory:
        case.trajectory_problem = "; ".join(trajectory)
    if found is None:
        return case

    case.expected_tools = found.expected_tools
    case.expected_trajectory = found.expected_trajectory
    case.expected_turns = found.expected_turns
    case.expected_nodes = found.expected_nodes
    case.trajectory_mode = found.trajectory_mode
    case.trajectory_args = found.trajectory_args
    case.trajectory_overrides = found.trajectory_overrides
    case.trajectory_threshold = found.trajectory_threshold
    case.should_escalate = found.should_escalate
    case.should_signal_complete = found.should_signal_complete
    case.sensitive_tool = found.sensitive_tool
    case.approval = found.approval
    case.expected_subagent = found.expected_subagent
    case.expected_tool_graph = found.expected_tool_graph
    if found.rubrics is not None:
        case.rubrics = [Rubric(r.rubric_id, r.content, r.weight) for r in found.rubrics]
    if found.success_criteria is not None:
        case.success_criteria = _merged(case, found.success_criteria, where, problems)
    return case


def _problem_key(loc: Loc) -> str:
    """`success_criteria.<criterion>` for one criterion, else the field's name."""
    if loc[0] == _CRITERIA and len(loc) >= 3 and isinstance(loc[2], str):
        return f"{_CRITERIA}.{loc[2]}"
    return str(loc[0])


def _joined(first: str | None, then: str) -> str:
    return then if first is None else f"{first}; {then}"


def _merged(
    case: Case, items: list[Criteria], where: Where, problems: list[ReadProblem]
) -> SuccessCriteria:
    """The criteria items as one record: a criterion given twice is merged when both are
    lists, kept when equal, and a problem when they differ."""
    merged: dict[str, Any] = {}
    refused: set[str] = set()
    for index, item in enumerate(items):
        given = {name: getattr(item, name) for name in item.model_fields_set}
        given.update(item.model_extra or {})
        for name, value in given.items():
            if value is None or name in refused:
                continue
            if name not in merged:
                merged[name] = value
            elif isinstance(merged[name], list) and isinstance(value, list):
                merged[name] = merged[name] + value
            elif merged[name] != value:
                shown = f"given twice with different values ({merged[name]!r} and {value!r})"
                reason = f"{where.field((_CRITERIA, index, name))}: {shown}"
                problems.append(ReadProblem(where.file, reason))
                key = f"{_CRITERIA}.{name}"
                case.problems[key] = _joined(case.problems.get(key), f"{where.file}: {reason}")
                refused.add(name)
                del merged[name]
    known = {name: merged.pop(name) for name in _KNOWN_CRITERIA if name in merged}
    return SuccessCriteria(**known, others=merged)
