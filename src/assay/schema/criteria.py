"""Checks of the fields a scenario may carry for the catalog scorers (success criteria, the
sensitive tool and approval, the expected subagent and tool graph, ...): each field checked
and normalised once, in one place, for the readers that load scenarios and the scorers that
read them.

Example:
    >>> normalise_field("approval", " Approve ")
    ('approve', None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assay._jsonable import json_type

__all__ = ["CRITERIA_STRUCTURE", "normalise_field", "normalise_success_criteria"]

CRITERIA_STRUCTURE = "success_criteria"
"""Key of `normalise_success_criteria`'s errors for a problem with the criteria as a whole
(not a list or mapping, an item that is not a mapping): it concerns every criterion."""

_COUNT_CRITERIA = frozenset({"max_turns", "max_tokens"})
_PHRASE_CRITERIA = frozenset({"response_contains", "response_not_contains"})
_APPROVALS = ("approve", "reject")


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
