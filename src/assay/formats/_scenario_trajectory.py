"""The trajectory expectation of a scenario folder's `expected_trajectory.json`: its fields
read, checked, and put on a `Case`.

The file may carry `expected_tools` (tool names), `expected_trajectory` (the steps),
`expected_turns` (the calls per conversation turn) and the check's options `trajectory_mode`,
`trajectory_args`, `trajectory_overrides` and `trajectory_threshold`. A field of the wrong
shape is a problem: the case keeps the rest, and its `trajectory_problem` says what is wrong,
so that a trajectory scorer reports it instead of checking against less than the scenario
meant. Scenario objects in scenario files are checked by the models of
`assay.schema.scenario` instead; a folder is read once per run that needs it, and these plain
checks spare each read a round trip through pydantic.

Example:
    >>> problems = []
    >>> found = read_expectation({"expected_trajectory": ["a"], "trajectory_mode": "IN_ORDER",
    ...                           "trajectory_threshold": 2}, "s.json", problems)
    >>> found.steps, found.mode, found.problem
    (['a'], 'IN_ORDER', 'trajectory_threshold must be a number between 0 and 1, got 2')
    >>> [p.source for p in problems]
    ['s.json']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from assay._jsonable import json_type
from assay.formats._common import ReadProblem
from assay.records import Case

FIELDS = frozenset(
    {
        "expected_tools",
        "expected_trajectory",
        "expected_turns",
        "trajectory_mode",
        "trajectory_args",
        "trajectory_overrides",
        "trajectory_threshold",
    }
)
"""Scenario fields read here (the rest of a scenario is read elsewhere)."""

SHORT_NAMES = {
    "steps": "expected_trajectory",
    "turns": "expected_turns",
    "mode": "trajectory_mode",
    "args": "trajectory_args",
    "overrides": "trajectory_overrides",
    "threshold": "trajectory_threshold",
}
"""The shorter names `expected_trajectory.json` may use, and the fields they stand for."""


@dataclass(slots=True)
class Expectation:
    """A scenario's trajectory fields, checked."""

    tools: list[str] | None = None
    steps: Any = None
    turns: list[Any] | None = None
    mode: str | None = None
    args: str | None = None
    overrides: dict[str, Any] | None = None
    threshold: float | None = None
    problem: str | None = None
    """Why (part of) the expectation is unusable; problems joined by `; `."""

    def fail(self, reason: str, source: str, problems: list[ReadProblem]) -> None:
        """Record a problem with one field."""
        problems.append(ReadProblem(source, reason))
        self.problem = reason if self.problem is None else f"{self.problem}; {reason}"

    def apply(self, case: Case) -> Case:
        """Put the fields on `case`; returns it."""
        case.expected_tools = self.tools
        case.expected_trajectory = self.steps
        case.expected_turns = self.turns
        case.trajectory_mode = self.mode
        case.trajectory_args = self.args
        case.trajectory_overrides = self.overrides
        case.trajectory_threshold = self.threshold
        case.trajectory_problem = self.problem
        return case


def read_expectation(obj: dict[str, Any], source: str, problems: list[ReadProblem]) -> Expectation:
    """The trajectory fields of a scenario object; a field of the wrong shape is left out,
    with a problem appended to `problems` and noted in `Expectation.problem`."""
    found = Expectation()
    tools = obj.get("expected_tools")
    if tools is not None:
        if isinstance(tools, list) and all(isinstance(name, str) for name in tools):
            found.tools = tools
        else:
            reason = f"expected_tools must be a list of tool names, got {json_type(tools)}"
            found.fail(reason, source, problems)
    steps = obj.get("expected_trajectory")
    if steps is not None:
        if isinstance(steps, list | dict):
            found.steps = steps
        else:
            reason = f"expected_trajectory must be a list of steps, got {json_type(steps)}"
            found.fail(reason, source, problems)
    turns = obj.get("expected_turns")
    if turns is not None:
        if isinstance(turns, list) and all(isinstance(turn, list) for turn in turns):
            found.turns = turns
        else:
            shown = json_type(turns) if not isinstance(turns, list) else "a turn that is not"
            reason = f"expected_turns must be a list with a list of calls per turn, got {shown}"
            found.fail(reason, source, problems)
    for name in ("trajectory_mode", "trajectory_args"):
        value = obj.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            setattr(found, name.removeprefix("trajectory_"), value)
        else:
            found.fail(f"{name} must be a string, got {json_type(value)}", source, problems)
    overrides = obj.get("trajectory_overrides")
    if overrides is not None:
        if isinstance(overrides, dict):
            found.overrides = overrides
        else:
            reason = f"trajectory_overrides must be an object, got {json_type(overrides)}"
            found.fail(reason, source, problems)
    threshold = obj.get("trajectory_threshold")
    if threshold is not None:
        number = _fraction(threshold)
        if number is None:
            shown = repr(threshold) if isinstance(threshold, int | float) else json_type(threshold)
            reason = f"trajectory_threshold must be a number between 0 and 1, got {shown}"
            found.fail(reason, source, problems)
        else:
            found.threshold = number
    return found


def _fraction(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None
