"""The tool trajectory criterion of an ADK `test_config.json` (ADK's `EvalConfig`).

ADK reads `test_config.json` from the folder of the eval set it runs. Its `criteria` map
metric names to a criterion; the tool trajectory one is `tool_trajectory_avg_score`, in two
forms:

- a number, the threshold (the older form): `{"criteria": {"tool_trajectory_avg_score": 1.0}}`;
- an object: `{"threshold": 1.0, "match_type": "IN_ORDER", "ignore_args": false}` (also
  spelled `matchType` / `ignoreArgs`; `match_type` is `EXACT`, `IN_ORDER` or `ANY_ORDER` in
  any case, with `-` or a space for `_`, or the enum's number 0, 1, 2).

Without a config, or without that criterion in it, the criterion is ADK's default: `EXACT`,
threshold 1.0, arguments compared. Other criteria (response match, judges) are not read here.

Example:
    >>> trajectory_criterion({"criteria": {"tool_trajectory_avg_score": 0.8}}, "test_config.json")
    TrajectoryCriterion(match_type='EXACT', threshold=0.8, ignore_args=False)
    >>> trajectory_criterion({"criteria": {"tool_trajectory_avg_score": {
    ...     "threshold": 1, "match_type": "any order"}}}, "t.json").match_type
    'ANY_ORDER'
    >>> trajectory_criterion({"criteria": []}, "t.json").reason
    'criteria must be an object, got array'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from assay._jsonable import json_type
from assay.formats._common import ReadProblem
from assay.records import MatchType

CONFIG_FILE = "test_config.json"
"""The name ADK looks for beside an eval set."""

METRIC = "tool_trajectory_avg_score"
"""ADK's name of the tool trajectory metric."""

_MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")
"""ADK's match types, in the order of their enum numbers."""


@dataclass(frozen=True, slots=True)
class TrajectoryCriterion:
    """How ADK checks tool trajectories for an eval set."""

    match_type: str = "EXACT"
    """`EXACT`, `IN_ORDER` or `ANY_ORDER`."""

    threshold: float = 1.0
    """The mean per-invocation score at or above which an eval case passes."""

    ignore_args: bool = False
    """Compare tool names only."""


def trajectory_criterion(config: Any, source: str) -> TrajectoryCriterion | ReadProblem:
    """The tool trajectory criterion of a parsed `test_config.json`, or what is wrong with it.

    Args:
        config: The parsed JSON of the file.
        source: The file's path, for the problem.

    Returns:
        The criterion (ADK's default when the config names none), or a `ReadProblem` naming
        the field that is wrong.
    """
    if not isinstance(config, dict):
        return ReadProblem(source, f"{CONFIG_FILE} must be a JSON object, got {json_type(config)}")
    criteria = config.get("criteria")
    if criteria is None:
        return TrajectoryCriterion()
    if not isinstance(criteria, dict):
        return ReadProblem(source, f"criteria must be an object, got {json_type(criteria)}")
    criterion = criteria.get(METRIC)
    field = f"criteria.{METRIC}"
    if criterion is None:
        return TrajectoryCriterion()
    if not isinstance(criterion, dict):
        threshold = _threshold(criterion)
        if threshold is None:
            return ReadProblem(
                source,
                f"{field} must be a threshold between 0 and 1 or an "
                f"object, got {_shown(criterion)}",
            )
        return TrajectoryCriterion(threshold=threshold)

    raw_threshold = criterion.get("threshold")
    threshold = _threshold(raw_threshold)
    if threshold is None:
        what = "missing" if raw_threshold is None else f"got {_shown(raw_threshold)}"
        return ReadProblem(source, f"{field}.threshold must be a number between 0 and 1 ({what})")
    raw_match = _either(criterion, "match_type", "matchType")
    match_type = "EXACT" if raw_match is None else _match_type(raw_match)
    if match_type is None:
        return ReadProblem(
            source,
            f"{field}.match_type must be one of {', '.join(_MATCH_TYPES)}, got {_shown(raw_match)}",
        )
    ignore_args = _either(criterion, "ignore_args", "ignoreArgs")
    if ignore_args is not None and not isinstance(ignore_args, bool):
        return ReadProblem(
            source, f"{field}.ignore_args must be true or false, got {_shown(ignore_args)}"
        )
    return TrajectoryCriterion(match_type, threshold, bool(ignore_args))


def _threshold(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def _match_type(value: Any) -> str | None:
    if isinstance(value, str):
        try:
            return MatchType.parse(value).value
        except ValueError:
            return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(_MATCH_TYPES):
        return _MATCH_TYPES[value]
    return None


def _either(obj: dict[str, Any], snake: str, camel: str) -> Any:
    value = obj.get(snake)
    return obj.get(camel) if value is None else value


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, bool | int | float):
        return repr(value)
    return json_type(value)
