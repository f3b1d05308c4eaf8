"""`trajectory`: the run's tool calls against the scenario's expected tools or trajectory.

A scenario's `expected_trajectory` is checked with `assay.check_trajectory` in the scenario's
own `trajectory_mode` / `trajectory_args` / `trajectory_overrides` when it names them, else in
the scorer's (default: `strict`, arguments `superset`). A scenario with only `expected_tools`
(names that must be called, in any order, with any arguments) is checked in `superset` mode
with arguments ignored. `score` is the check's partial credit, `passed` whether it passed;
`details` lists the matched, missing and unexpected calls.

Example:
    >>> from assay.records import Case, Step, ToolCall, Trajectory
    >>> run = Trajectory(steps=[Step(0, tool_calls=[ToolCall("lookup_order", {"id": 7})]),
    ...                         Step(1, tool_calls=[ToolCall("process_refund", {"id": 7})])])
    >>> case = Case(id="7", expected_trajectory=["lookup_order", "check_policy",
    ...                                          "process_refund"])
    >>> score = trajectory(mode="subsequence")(case, run)
    >>> score.passed, round(score.value, 3)
    (False, 0.667)
    >>> score.rationale.split(";")[0]
    'expected step 1 (check_policy) not found anywhere in the run'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.records import Case, Trajectory
from assay.results import Score
from assay.scorers.registry import Scorer, register_scorer
from assay.trajectory import TrajectoryChecker

NAME = "trajectory"

_MODE, _ARGS, _OVERRIDES = "trajectory_mode", "trajectory_args", "trajectory_overrides"
_ERROR = "trajectory_error"


@register_scorer(NAME)
def trajectory(
    *,
    mode: str = "strict",
    args: str = "superset",
    overrides: Mapping[str, Any] | None = None,
) -> Scorer:
    """Build the trajectory scorer.

    Args:
        mode: Match mode for scenarios that do not name one (`strict`, `unordered`,
            `subsequence`, `superset`, `subset`, or `EXACT` / `IN_ORDER` / `ANY_ORDER`).
        args: Argument mode for scenarios that do not name one.
        overrides: Per-tool argument rules (see `check_trajectory`).

    Raises:
        ValueError: an unknown mode or argument mode (checked now, not per run).
    """
    default = TrajectoryChecker(mode=mode, args=args, overrides=overrides)
    names_only = TrajectoryChecker(mode="superset", args="ignore")
    checkers: dict[tuple[str, str, str], TrajectoryChecker] = {}

    def checker_for(case: Case) -> TrajectoryChecker:
        meta = case.metadata
        if not any(key in meta for key in (_MODE, _ARGS, _OVERRIDES)):
            return default
        key = (str(meta.get(_MODE, mode)), str(meta.get(_ARGS, args)), repr(meta.get(_OVERRIDES)))
        found = checkers.get(key)
        if found is None:
            scenario_overrides = meta.get(_OVERRIDES, overrides)
            if scenario_overrides is not None and not isinstance(scenario_overrides, Mapping):
                kind = type(scenario_overrides).__name__
                raise ValueError(f"trajectory_overrides must be an object, got {kind}")
            found = TrajectoryChecker(mode=key[0], args=key[1], overrides=scenario_overrides)
            checkers[key] = found
        return found

    def score(case: Case, run: Trajectory) -> Score:
        error = case.metadata.get(_ERROR)
        if error:
            return Score.error(
                NAME, f"unusable trajectory expectation: {error}", {"reason": "bad_expectation"}
            )
        if case.expected_trajectory is not None:
            expected, source = case.expected_trajectory, "expected_trajectory"
            try:
                checker = checker_for(case)
            except ValueError as exc:
                return Score.error(
                    NAME, f"invalid trajectory options: {exc}", {"reason": "bad_options"}
                )
        elif case.expected_tools is not None:
            expected, source, checker = case.expected_tools, "expected_tools", names_only
        else:
            return Score.unscored(
                NAME,
                "scenario has no expected_tools or expected_trajectory",
                {"reason": "not_applicable"},
            )
        try:
            result = checker(expected, run)
        except TypeError as exc:
            return Score.error(
                NAME, f"{source} is not a trajectory: {exc}", {"reason": "bad_expectation"}
            )
        details = {"expectation": source, **result.to_details()}
        rationale = result.reason or _passed_rationale(result.mode, len(result.matched))
        return Score.scored(
            NAME, result.score, passed=result.passed, rationale=rationale, details=details
        )

    return score


_PASSED = {
    "strict": "all {n} calls matched, in order",
    "unordered": "all {n} calls matched",
    "subsequence": "all {n} expected calls found in order",
    "superset": "all {n} expected calls made",
    "subset": "all {n} calls made were expected",
}


def _passed_rationale(mode: str, matched: int) -> str:
    return _PASSED[mode].format(n=matched) + f" ({mode})"
