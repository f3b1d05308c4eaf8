"""Models of the scenarios users write: scenario objects (JSON / JSONL scenario files) and
evaluator-catalog files (`jobs` of `scenarios`, YAML or JSON).

A scenario is checked once, when its file is read (`check`): each field that breaks its model
is an error at its path (pydantic's `loc`), the other fields are still usable, and
`assay.formats` puts them on a `Case`. This module imports pydantic, so it is imported only
where a scenario file is read or a JSON Schema printed, never per scored run.

Example:
    >>> found, errors = check(Scenario, {"id": "7", "approval": " Reject ",
    ...                                  "success_criteria": [{"max_turns": "five"}]})
    >>> found.approval, found.success_criteria[0].max_turns
    ('reject', None)
    >>> [(path_text(loc), message) for loc, message in errors]
    [('success_criteria[0].max_turns', 'Input should be a valid integer, got string')]
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    WithJsonSchema,
)

from assay._jsonable import json_type
from assay.schema.loc import FieldError, Loc, path_text

__all__ = [
    "Catalog",
    "CatalogJob",
    "CatalogScenario",
    "Criteria",
    "FieldError",
    "Loc",
    "RubricItem",
    "Scenario",
    "Turn",
    "check",
    "path_text",
]


def _whole(value: Any) -> Any:
    # YAML and JSON writers sometimes write a count as 5.0; a whole float is that count.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _one_as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _number_as_text(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


# A constraint goes before the validators: pydantic puts one written after a validator on the
# validator's wrapper, and its JSON Schema then says `"ge": 0` (a keyword no JSON Schema tool
# knows, pydantic#11576) instead of `"minimum": 0`. Before them it is the integer's own
# constraint, checked the same way, after `_whole` (a before-validator runs first).
Count = Annotated[int, Field(ge=0), BeforeValidator(_whole)]
"""A whole number of 0 or more (`5.0` is 5)."""

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""A non-empty name, surrounding whitespace removed."""

Text = Annotated[str, BeforeValidator(_number_as_text, json_schema_input_type=str | int | float)]
"""Text; a number is its text (`11` is `"11"`)."""

Phrases = Annotated[
    list[str], BeforeValidator(_one_as_list, json_schema_input_type=list[str] | str)
]
"""Phrases; one phrase alone is a list of one."""

Names = Annotated[list[Name], BeforeValidator(_one_as_list, json_schema_input_type=list[str] | str)]
"""Names; one name alone is a list of one."""

Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
"""A number from 0 to 1."""


class _Model(BaseModel):
    # Strict: "5" is not a count and "yes" is not true; a field of the wrong type is the
    # user's mistake to hear about, not to have guessed. Fields no model names are kept.
    model_config = ConfigDict(strict=True, extra="allow", use_attribute_docstrings=True)


class Criteria(_Model):
    """One item of `success_criteria`: one criterion (`max_turns: 5`) or several."""

    max_turns: Count | None = None
    """Most turns the agent may take."""

    max_tokens: Count | None = None
    """Most input plus output tokens the run may use."""

    response_contains: Phrases | None = None
    """Phrases the final response must hold (ignoring case)."""

    response_not_contains: Phrases | None = None
    """Phrases the final response must not hold (ignoring case)."""

    signal_task_complete: bool | None = None
    """Whether the agent must signal completion."""


def _criteria_items(value: Any) -> Any:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        # A bare name (`- signal_task_complete`) is a flag that is set.
        return [
            {item.strip(): True} if isinstance(item, str) and item.strip() else item
            for item in value
        ]
    return value


SuccessCriteria = Annotated[
    list[Criteria],
    BeforeValidator(_criteria_items, json_schema_input_type=list[Criteria | str] | Criteria),
]
"""A list of criteria items (`- max_turns: 5`), or one mapping of criteria."""


class Turn(_Model):
    """One turn of a catalog conversation; a string is the user's message alone."""

    user: str | None = None
    """What the user says in this turn."""


def _turn(value: Any) -> Any:
    return {"user": value} if isinstance(value, str) else value


class RubricItem(_Model):
    """One rubric of the `rubric` judge."""

    rubric_id: Name = Field(validation_alias=AliasChoices("rubric_id", "id"))
    """Unique id of the rubric (`id` also accepted)."""

    content: Annotated[str, StringConstraints(pattern=r"\S")]
    """The criterion, as the judge reads it."""

    weight: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    """Weight in the aggregate (weights are normalised to sum to 1)."""


def _rubric_set(items: list[RubricItem]) -> list[RubricItem]:
    if not items:
        raise ValueError("rubrics must not be empty")
    ids = [item.rubric_id for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError("rubric ids must be unique")
    if not math.fsum(item.weight for item in items) > 0:
        raise ValueError("rubric weights sum to 0")
    return items


def _steps(value: Any) -> Any:
    if not isinstance(value, list | dict):
        raise ValueError("expected a list of steps or an object")
    return value


_STEPS_SCHEMA = {"anyOf": [{"type": "array"}, {"type": "object"}, {"type": "null"}]}


class _Expectations(_Model):
    """What a scenario expects of a run, as the scorers read it."""

    expected_tools: list[Name] | None = None
    """Tool names the run must call (`tool_name_match`, `trajectory`)."""

    expected_trajectory: Annotated[
        Any, AfterValidator(lambda v: v if v is None else _steps(v)), WithJsonSchema(_STEPS_SCHEMA)
    ] = None
    """The expected steps: tool names, calls, a nested list per step of parallel calls, or
    messages (`trajectory`)."""

    expected_turns: list[list[Any]] | None = None
    """The expected calls turn by turn: a list of calls per conversation turn."""

    expected_nodes: list[Name] | None = None
    """The graph nodes the run must enter, in order (`node_order`, and `trajectory` beside the
    expected calls)."""

    trajectory_mode: str | None = None
    """Match mode of the trajectory check (`strict`, ... or `EXACT`, `IN_ORDER`, `ANY_ORDER`)."""

    trajectory_args: str | None = None
    """Argument mode of the trajectory check (`exact`, `superset`, `subset`, `ignore`)."""

    trajectory_overrides: dict[str, Any] | None = None
    """Per-tool argument rules of the trajectory check."""

    trajectory_threshold: Fraction | None = None
    """Score at or above which the trajectory check passes."""

    success_criteria: SuccessCriteria | None = None
    """Turn and token budgets, phrases the response must (not) hold, flags."""

    should_escalate: bool | None = None
    """Whether the agent should hand over to a human (`escalation`)."""

    should_signal_complete: bool | None = None
    """Whether the agent should signal completion (`signal_task_complete`)."""

    sensitive_tool: Name | None = None
    """The tool that must ask for confirmation (`confirmation_flow`, `interrupt_rejection`)."""

    approval: (
        Annotated[Literal["approve", "reject"], BeforeValidator(_lower, json_schema_input_type=str)]
        | None
    ) = None
    """The user's answer to the confirmation, `approve` or `reject` (any case)."""

    expected_subagent: Name | None = None
    """The sub-agent to delegate to (`routing`, `hierarchical`)."""

    expected_tool_graph: dict[Name, Names] | None = None
    """Tool name to the tools its result must advertise next (`tool_graph`)."""

    rubrics: Annotated[list[RubricItem], AfterValidator(_rubric_set)] | None = None
    """The scenario's own rubrics for the `rubric` judge."""


class Scenario(_Expectations):
    """A scenario object of a `.json` or `.jsonl` scenario file. Other fields are kept."""

    id: str | int | float
    """The scenario's id; runs name it in `scenario_id` (`11`, `"011"`, `scenario_11`)."""

    text: Text | None = None
    """The question (`question` also accepted)."""

    question: Text | None = None
    """The question, when there is no `text`."""

    expected_answer: Any = None
    """The ground truth: text (JSON, a Python literal, a number or prose) or a JSON value."""

    characteristic_form: Text | None = None
    """What a right answer looks like, for judges."""

    type: Text | None = None
    """Scenario type, for breakdowns in reports."""

    category: Text | None = None
    """Scenario category."""

    scoring_method: Text | None = None
    """The scorer this scenario asks for."""

    groundtruth_eval: dict[str, Any] | None = None
    """Per-key comparison rules for structured answers (as in `groundtruth_eval.json`)."""


class CatalogScenario(_Expectations):
    """A scenario of an evaluator catalog. Other fields are kept."""

    id: str | int | None = None
    """The scenario's id."""

    name: str | int | None = None
    """The id, when there is no `id`."""

    turns: (
        list[Annotated[Turn, BeforeValidator(_turn, json_schema_input_type=Turn | str)]] | None
    ) = None
    """The conversation: `{"user": ...}` items, or strings (a user turn each)."""

    input: str | None = None
    """The user's message, for a scenario without `turns`."""


class CatalogJob(_Model):
    """One job of a catalog: a named group of scenarios (its name is their `type`)."""

    name: str | None = None
    """The job's name, when `jobs` is a list."""

    scenarios: list[CatalogScenario]
    """The job's scenarios."""


class Catalog(_Model):
    """An evaluator-catalog file: `jobs`, a list of jobs or a mapping of name to job (or, in
    a file without `jobs`, `scenarios`: one unnamed job)."""

    jobs: list[CatalogJob] | dict[str, CatalogJob] | None = None
    """The jobs."""

    scenarios: list[CatalogScenario] | None = None
    """The scenarios of a file without `jobs`."""


_M = TypeVar("_M", bound=BaseModel)
_INSTANCE = re.compile(r" or instance of \w+")


def check(model: type[_M], obj: dict[str, Any]) -> tuple[_M | None, list[FieldError]]:
    """Validate a scenario object; fields that fail are left out and reported.

    Args:
        model: `Scenario` or `CatalogScenario`.
        obj: The scenario as parsed.

    Returns:
        The model of the usable fields (None when even that fails, e.g. a required field is
        missing), and every error as `(loc, message)`. A bad criterion of
        `success_criteria` leaves out that criterion only; any other bad field is left out
        whole.

    Example:
        >>> found, errors = check(CatalogScenario, {"id": "x", "should_escalate": "no"})
        >>> found.should_escalate, [(path_text(loc), m) for loc, m in errors]
        (None, [('should_escalate', 'Input should be a valid boolean, got string')])
    """
    errors: list[FieldError] = []
    current = obj
    for _ in range(3):  # a field left out cannot fail again; a second pass normally does
        try:
            return model.model_validate(current), errors
        except ValidationError as error:
            found = [(tuple(e["loc"]), _message(e)) for e in error.errors()]
        errors.extend(found)
        current = _without(current, [loc for loc, _ in found])
    return None, errors


def _message(error: Any) -> str:
    # "a valid dictionary or instance of Criteria" names a class the user never wrote.
    message = _INSTANCE.sub("", str(error["msg"]))
    if str(error["type"]).endswith("_type") and "input" in error:
        message += f", got {json_type(error['input'])}"
    return message


def _without(obj: dict[str, Any], locs: list[Loc]) -> dict[str, Any]:
    kept = dict(obj)
    for loc in locs:
        if not loc or loc[0] not in kept:
            continue
        field = loc[0]
        items = kept[field]
        if (
            field == "success_criteria"
            and len(loc) >= 3
            and isinstance(loc[1], int)
            and isinstance(loc[2], str)
            and isinstance(items, list | dict)
        ):
            # Only the bad criterion goes: the others still say what the scenario expects.
            listed = [items] if isinstance(items, dict) else list(items)
            item = listed[loc[1]] if loc[1] < len(listed) else None
            if isinstance(item, dict):
                listed[loc[1]] = {k: v for k, v in item.items() if k != loc[2]}
                kept[field] = listed
                continue
        del kept[field]
    return kept
