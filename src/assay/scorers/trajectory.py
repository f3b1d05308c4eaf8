"""`trajectory`: the run's tool calls against the scenario's expected tools or trajectory.

A scenario's `expected_trajectory` is checked with `assay.check_trajectory` in the scenario's
own `trajectory_mode` / `trajectory_args` / `trajectory_overrides` when it names them, else in
the scorer's (default: `strict`, arguments `superset`). A scenario with only `expected_tools`
(names that must be called, in any order, with any arguments) is checked in `superset` mode
with arguments ignored. `score` is the check's partial credit, `passed` whether it passed (or,
with a `trajectory_threshold`, whether the score reaches it); `details` lists the matched,
missing and unexpected calls. When the case also expects node steps (an eval case's
`expected_trajectory` with `node` steps), they are checked too (`node_order`, in the case's match
type) and the two verdicts combined.

An expectation that is given but empty (`expected_trajectory: []`, or `expected_tools: []`
without an `expected_trajectory`) says "this case calls no tools" under `strict` / `EXACT`, as
in ADK: the run passes when it made no tool call and scores 0 when it made any. Under any other
mode an empty expectation checks nothing (the case is `not_applicable`), as an absent one does.

When the scenario gives `expected_turns` (as ADK eval sets do), the run records turns
(`Step.turn`) and the mode is one of ADK's match types (`EXACT`, `IN_ORDER`, `ANY_ORDER`), the
run is checked turn by turn as ADK does (`assay.trajectory.turns`): a verdict per turn, the
score their mean, passing at `trajectory_threshold` (default 1.0). Otherwise the match types
are aliases of the flat modes, and expected turns without an `expected_trajectory` are checked
as all their calls in order. Like ADK's, they compare flat lists of calls: against a flat
expectation, the calls one step made together count one by one, in the order recorded.

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
    >>> turned = Trajectory(steps=[Step(0, tool_calls=[ToolCall("process_refund")], turn=0),
    ...                            Step(1, tool_calls=[ToolCall("lookup_order")], turn=0)])
    >>> case = Case(id="7", expected_turns=[["lookup_order", "process_refund"]],
    ...             trajectory_mode="EXACT")
    >>> trajectory()(case, turned).value
    0.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.records import Case, Trajectory
from assay.results import Score, combine_scores
from assay.scorers._runs import check_fraction
from assay.scorers.node_order import node_order
from assay.scorers.registry import Scorer, register_scorer
from assay.trajectory import (
    TrajectoryChecker,
    TurnsChecker,
    match_type_of,
    resolve_mode,
    turns_of,
)
from assay.trajectory.spec import MatchType

NAME = "trajectory"


@register_scorer(NAME, group="trajectories")
def trajectory(
    *,
    mode: str = "strict",
    args: str = "superset",
    overrides: Mapping[str, Any] | None = None,
    threshold: float | None = None,
) -> Scorer:
    """Compares the run's tool calls, their order and arguments, to the scenario's expected
    trajectory or tools.

    Args:
        mode: Match mode for scenarios that do not name one (`strict`, `unordered`,
            `subsequence`, `superset`, `subset`, or `EXACT` / `IN_ORDER` / `ANY_ORDER` in any
            case).
        args: Argument mode for scenarios that do not name one (`ignore` compares tool names
            only).
        overrides: Per-tool argument rules (see `check_trajectory`).
        threshold: Score at or above which the check passes, for scenarios that set no
            `trajectory_threshold`; None: only a full match passes. A scenario with only
            `expected_tools` always needs every tool called.

    An empty `expected_trajectory` (or empty `expected_tools` without one) means "no tool
    calls" under `strict` / `EXACT`, and checks nothing under the other modes.

    Raises:
        ValueError: an unknown mode or argument mode, or a threshold outside 0..1 (checked
            now, not per run).
    """
    if threshold is not None:
        check_fraction("threshold", threshold)
    default = TrajectoryChecker(mode=mode, args=args, overrides=overrides)
    names_only = TrajectoryChecker(mode="superset", args="ignore")
    no_calls = TrajectoryChecker(mode="strict", args="ignore")
    checkers: dict[tuple[str, str, str], TrajectoryChecker] = {}
    turn_checkers: dict[tuple[str, str, str, float | None], TurnsChecker] = {}

    def options(case: Case) -> tuple[str, str, Mapping[str, Any] | None]:
        return (
            case.trajectory_mode if case.trajectory_mode is not None else mode,
            case.trajectory_args if case.trajectory_args is not None else args,
            case.trajectory_overrides if case.trajectory_overrides is not None else overrides,
        )

    def checker_for(case: Case) -> TrajectoryChecker:
        if (
            case.trajectory_mode is None
            and case.trajectory_args is None
            and case.trajectory_overrides is None
        ):
            return default
        case_mode, case_args, case_overrides = options(case)
        key = (case_mode, case_args, repr(case_overrides))
        found = checkers.get(key)
        if found is None:
            found = TrajectoryChecker(mode=case_mode, args=case_args, overrides=case_overrides)
            checkers[key] = found
        return found

    def threshold_for(case: Case) -> float | None:
        return case.trajectory_threshold if case.trajectory_threshold is not None else threshold

    def turns_checker_for(case: Case) -> TurnsChecker:
        case_mode, case_args, case_overrides = options(case)
        key = (case_mode, case_args, repr(case_overrides), threshold_for(case))
        found = turn_checkers.get(key)
        if found is None:
            found = TurnsChecker(
                match_type=case_mode,
                args=case_args,
                overrides=case_overrides,
                threshold=threshold_for(case),
            )
            turn_checkers[key] = found
        return found

    def score(case: Case, run: Trajectory) -> Score:
        if case.trajectory_problem:
            return Score.error(
                NAME,
                f"unusable trajectory expectation: {case.trajectory_problem}",
                {"reason": "bad_expectation"},
            )
        flat_because: str | None = None
        if case.expected_turns is not None and match_type_of(options(case)[0]) is not None:
            run_turns = turns_of(run)
            if run_turns is not None:
                return _by_turn(case, run_turns)
            flat_because = "the run records no turns"
        if case.expected_trajectory is not None or case.expected_turns is not None:
            if case.expected_trajectory is not None:
                expected, source = case.expected_trajectory, "expected_trajectory"
            else:  # turns, but a run without them: all the expected calls, in order
                expected = [call for turn in case.expected_turns or () for call in turn]
                source = "expected_turns"
            try:
                checker = checker_for(case)
            except ValueError as exc:
                return _bad_options(exc)
        elif case.expected_tools is not None:
            expected, source, checker = case.expected_tools, "expected_tools", names_only
        else:
            return Score.unscored(
                NAME,
                "scenario has no expected_tools or expected_trajectory",
                {"reason": "not_applicable"},
            )
        quiet = source != "expected_turns" and isinstance(expected, list | tuple) and not expected
        if quiet and case.expected_turns is None:
            # Given but empty: "no tool calls" under strict / EXACT, else nothing to check. An
            # ADK case (with turns) keeps ADK's reading of its match type, as before.
            try:
                strict = resolve_mode(options(case)[0]) == "strict"
            except ValueError as exc:
                return _bad_options(exc)
            if not strict:
                return Score.unscored(
                    NAME,
                    f"scenario's {source} is empty: under {options(case)[0]} that checks "
                    "nothing (under strict / EXACT it would mean no tool calls)",
                    {"reason": "not_applicable"},
                )
            checker = no_calls
        actual: Any = run
        if match_type_of(options(case)[0]) is not None and _flat(expected):
            # ADK's match types compare flat lists of calls: the calls a turn made together
            # count in the order the model gave them, each a step of its own, so `IN_ORDER`
            # [a, b] holds for a turn that called a and b at once.
            actual = [call for step in run.steps for call in step.tool_calls]
        try:
            result = checker(expected, actual)
        except TypeError as exc:
            return Score.error(
                NAME, f"{source} is not a trajectory: {exc}", {"reason": "bad_expectation"}
            )
        details = {"expectation": source, **result.to_details()}
        if flat_because is not None:  # say why the match type was not applied turn by turn
            details["by_turn"] = False
            details["flat_because"] = flat_because
        if quiet and checker is no_calls:
            rationale = _no_calls_rationale(run)
        else:
            rationale = result.reason or _passed_rationale(result.mode, len(result.matched))
        passed = result.passed
        needed = threshold_for(case) if source != "expected_tools" else None
        if needed is not None:
            passed = result.score >= needed
            details["threshold"] = needed
            verdict = ">=" if passed else "<"
            rationale += f" (score {result.score:.3g} {verdict} threshold {needed:g})"
        return Score.scored(NAME, result.score, passed=passed, rationale=rationale, details=details)

    def _by_turn(case: Case, run_turns: list[Any]) -> Score:
        try:
            checker = turns_checker_for(case)
        except ValueError as exc:
            return _bad_options(exc)
        try:
            result = checker(case.expected_turns or [], run_turns)
        except TypeError as exc:
            return Score.error(
                NAME, f"expected_turns is not a list of turns: {exc}", {"reason": "bad_expectation"}
            )
        details = {"expectation": "expected_turns", **result.to_details()}
        return Score.scored(
            NAME,
            result.score,
            passed=result.passed,
            rationale=result.reason or result.tally(),
            details=details,
        )

    nodes_by_mode: dict[str, Scorer] = {}

    def with_nodes(case: Case, run: Trajectory) -> Score:
        tools = score(case, run)
        if not case.expected_nodes:
            return tools
        # The node steps of an expectation are checked in the case's match type (IN_ORDER
        # under assay's own modes, which order tool calls only), and the verdicts combined.
        node_mode = match_type_of(options(case)[0]) or MatchType.IN_ORDER
        nodes = nodes_by_mode.get(node_mode.value)
        if nodes is None:
            nodes = nodes_by_mode[node_mode.value] = node_order(mode=node_mode.value)
        by_nodes = nodes(case, run)
        if tools.does_not_apply():
            return by_nodes
        return combine_scores([tools, by_nodes])

    return with_nodes


def _flat(expected: Any) -> bool:
    """Whether an expectation lists single calls (no nested list of parallel calls)."""
    return isinstance(expected, list | tuple) and not any(
        isinstance(item, list | tuple) for item in expected
    )


def _no_calls_rationale(run: Trajectory) -> str:
    names = [call.name for step in run.steps for call in step.tool_calls]
    if not names:
        return "no tool calls, as the empty expectation requires (strict)"
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return f"expected no tool calls (strict), the run made {len(names)}: " + (
        ", ".join(names[:5]) + more
    )


def _bad_options(exc: ValueError) -> Score:
    return Score.error(NAME, f"invalid trajectory options: {exc}", {"reason": "bad_options"})


_PASSED = {
    "strict": "all {n} calls matched, in order",
    "unordered": "all {n} calls matched",
    "subsequence": "all {n} expected calls found in order",
    "superset": "all {n} expected calls made",
    "subset": "all {n} calls made were expected",
}


def _passed_rationale(mode: str, matched: int) -> str:
    return _PASSED[mode].format(n=matched) + f" ({mode})"
