"""Turn-by-turn trajectory checks, as Google ADK's `tool_trajectory_avg_score` makes them.

A conversation has turns: each starts with a user message (an ADK invocation, or in a chat the
stretch from one user message to the next). When the expectation and the run both record
their calls turn by turn, ADK's match types compare them turn by turn:

- each turn gets a verdict of its own, 1.0 or 0.0: its calls, in order, against the calls
  expected in that turn, by the match type (`EXACT`: the same calls in the same order and
  nothing more; `IN_ORDER`: the expected calls in order, others allowed between them;
  `ANY_ORDER`: every expected call, in any order, others allowed);
- the score is the mean of the verdicts over the turns, and the check passes when the score
  is at least the threshold (1.0 unless given).

So two calls swapped inside one of two turns score 0.5 under `EXACT`, and a call made one
turn early breaks two turns. On a flat trajectory (no turns on one side) the match types stay
aliases of `strict`, `subsequence` and `superset`, which look at the whole run at once; the
five assay modes always do. A turn only one side has is compared with a turn without calls.
Arguments compare as `check_trajectory` compares them; ADK compares them for equality
(`exact`, the default here), or not at all when its `ignore_args` is set (`ignore`).

Example:
    >>> from assay.records import ToolCall
    >>> expected = [["lookup"], ["check_policy", "refund"]]
    >>> swapped = [[ToolCall("lookup")], [ToolCall("refund"), ToolCall("check_policy")]]
    >>> result = check_turns(expected, swapped, match_type="EXACT")
    >>> result.passed, result.score
    (False, 0.5)
    >>> check_turns(expected, swapped, match_type="ANY_ORDER").passed
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.records import ToolCall, Trajectory
from assay.trajectory.check import TrajectoryChecker, TrajectoryMatch
from assay.trajectory.spec import ArgsMode, MatchType, Overrides, match_type_of

__all__ = ["TurnVerdict", "TurnsChecker", "TurnsMatch", "check_turns", "turns_of"]

_LISTED = 3
"""Failed turns explained in a reason before "and N more"."""


def turns_of(run: Trajectory) -> list[list[ToolCall]] | None:
    """The run's tool calls turn by turn, or None when the run records no turns.

    A run records turns when every step has a `turn`. There are as many turns as the highest
    turn index says (a turn without steps, such as a chat turn the agent never answered, is a
    turn without calls).

    Example:
        >>> from assay.records import Step
        >>> run = Trajectory(steps=[Step(0, tool_calls=[ToolCall("a")], turn=0),
        ...                         Step(1, tool_calls=[ToolCall("b")], turn=2)])
        >>> [[call.name for call in turn] for turn in turns_of(run)]
        [['a'], [], ['b']]
        >>> turns_of(Trajectory(steps=[Step(0, tool_calls=[ToolCall("a")])])) is None
        True
    """
    steps = run.steps
    if not steps:
        return None
    last = -1
    for step in steps:
        turn = step.turn
        if type(turn) is not int or turn < 0:
            return None
        last = max(last, turn)
    turns: list[list[ToolCall]] = [[] for _ in range(last + 1)]
    for step in steps:
        assert step.turn is not None  # checked above
        turns[step.turn].extend(step.tool_calls)
    return turns


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """The verdict on one turn."""

    turn: int
    """The turn's index, from 0."""

    passed: bool
    """Whether the turn's calls satisfy the match type."""

    check: TrajectoryMatch
    """The check of the turn's calls (its reason says what did not match)."""

    @property
    def score(self) -> float:
        """1.0 for a turn that passed, else 0.0 (ADK gives no partial credit per turn)."""
        return 1.0 if self.passed else 0.0


class TurnsMatch:
    """The outcome of a turn-by-turn check."""

    __slots__ = ("match_type", "n_actual", "n_expected", "threshold", "turns")

    def __init__(
        self,
        match_type: MatchType,
        threshold: float,
        turns: list[TurnVerdict],
        n_expected: int,
        n_actual: int,
    ) -> None:
        self.match_type = match_type
        """The match type applied to each turn."""
        self.threshold = threshold
        """The score at or above which the check passes."""
        self.turns = turns
        """A verdict per turn, in order."""
        self.n_expected = n_expected
        """Turns in the expectation."""
        self.n_actual = n_actual
        """Turns in the run."""

    @property
    def score(self) -> float:
        """The mean of the turns' verdicts (1.0 when neither side has a turn)."""
        if not self.turns:
            return 1.0
        return sum(verdict.score for verdict in self.turns) / len(self.turns)

    @property
    def passed(self) -> bool:
        """Whether the score reaches the threshold."""
        return self.score >= self.threshold

    @property
    def turns_matched(self) -> int:
        """How many turns passed."""
        return sum(1 for verdict in self.turns if verdict.passed)

    @property
    def reason(self) -> str:
        """The turns that failed and why, then the tally; empty when every turn passed."""
        failed = [verdict for verdict in self.turns if not verdict.passed]
        if not failed:
            return ""
        parts = [f"turn {verdict.turn}: {verdict.check.reason}" for verdict in failed[:_LISTED]]
        if len(failed) > _LISTED:
            parts.append(f"and {len(failed) - _LISTED} more failed turns")
        parts.append(self.tally())
        return "; ".join(parts)

    def tally(self) -> str:
        """How many turns matched, the score and the threshold, in words."""
        verdict = ">=" if self.passed else "<"
        counts = ""
        if self.n_expected != self.n_actual:
            counts = f"; the run has {self.n_actual} turns, the expectation {self.n_expected}"
        return (
            f"{self.turns_matched} of {len(self.turns)} turns matched ({self.match_type}, "
            f"turn by turn): score {self.score:.3g} {verdict} threshold {self.threshold:g}" + counts
        )

    def to_details(self) -> dict[str, Any]:
        """The check as plain data for a report."""
        turns = []
        for verdict in self.turns:
            details = verdict.check.to_details()
            entry: dict[str, Any] = {
                "turn": verdict.turn,
                "passed": verdict.passed,
                "score": verdict.score,
                "expected_calls": details["expected_calls"],
                "actual_calls": details["actual_calls"],
            }
            if not verdict.passed:
                entry["reason"] = verdict.check.reason
                entry["missing"] = details["missing"]
                entry["unexpected"] = details["unexpected"]
                entry["args_differ"] = details["args_differ"]
            turns.append(entry)
        return {
            "mode": str(self.match_type),
            "by_turn": True,
            "threshold": self.threshold,
            "turns_matched": self.turns_matched,
            "expected_turns": self.n_expected,
            "actual_turns": self.n_actual,
            "turns": turns,
        }

    def __repr__(self) -> str:
        return (
            f"TurnsMatch(passed={self.passed}, score={self.score!r}, "
            f"match_type={str(self.match_type)!r}, reason={self.reason!r})"
        )


class TurnsChecker:
    """A turn-by-turn check with its options compiled once, to run over many pairs.

    Example:
        >>> checker = TurnsChecker(match_type="IN_ORDER", args="ignore", threshold=0.5)
        >>> result = checker([["a", "b"], ["c"]], [["a", "x", "b"], ["d"]])
        >>> result.passed, result.score
        (True, 0.5)
    """

    def __init__(
        self,
        *,
        match_type: MatchType | str,
        args: ArgsMode | str = "exact",
        overrides: Overrides | None = None,
        threshold: float | None = None,
    ) -> None:
        """Validate the options.

        Raises:
            ValueError: `match_type` is not `EXACT`, `IN_ORDER` or `ANY_ORDER`, an unknown
                argument mode, an invalid override, or a threshold outside 0..1.
        """
        found = match_type_of(match_type)
        if found is None:
            raise ValueError(
                f"turn-by-turn checks take EXACT, IN_ORDER or ANY_ORDER, not {str(match_type)!r}"
            )
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold!r}")
        self.match_type: MatchType = found
        self.threshold: float = 1.0 if threshold is None else float(threshold)
        self._turn = TrajectoryChecker(mode=found, args=args, overrides=overrides)

    def __call__(self, expected: Sequence[Any], actual: Sequence[Any]) -> TurnsMatch:
        """Check the run's turns against the expected ones.

        Args:
            expected: One entry per expected turn: that turn's calls in order, in any shape
                `check_trajectory` accepts (each call its own step).
            actual: One entry per turn of the run, likewise (`turns_of` gives them).

        Raises:
            TypeError: a turn in no accepted trajectory shape.
        """
        verdicts = []
        for index in range(max(len(expected), len(actual))):
            wanted = expected[index] if index < len(expected) else []
            got = actual[index] if index < len(actual) else []
            check = self._turn(wanted, got)
            verdicts.append(TurnVerdict(index, check.passed, check))
        return TurnsMatch(self.match_type, self.threshold, verdicts, len(expected), len(actual))


def check_turns(
    expected: Sequence[Any],
    actual: Sequence[Any],
    *,
    match_type: MatchType | str,
    args: ArgsMode | str = "exact",
    overrides: Overrides | None = None,
    threshold: float | None = None,
) -> TurnsMatch:
    """Check a run turn by turn, as ADK's `tool_trajectory_avg_score` does.

    Args:
        expected: One entry per expected turn: the calls of that turn in order (tool names,
            `ToolCall`s, `{"name", "args"}` dicts, ...); an empty list for a turn without calls.
        actual: The run's turns likewise; `turns_of(run)` gives them for a `Trajectory`.
        match_type: `EXACT`, `IN_ORDER` or `ANY_ORDER`, applied to each turn.
        args: How arguments compare (`exact` by default, as ADK; `ignore` for its
            `ignore_args`; `superset` or `subset`).
        overrides: Per-tool argument rules, as for `check_trajectory`.
        threshold: The score at or above which the check passes (default 1.0).

    Returns:
        The result: `score` (the mean of the per-turn verdicts), `passed`, `reason`, and a
        `TurnVerdict` per turn.

    Raises:
        ValueError: an unknown match type, argument mode or override, or a bad threshold.
        TypeError: a turn in no accepted shape.

    Example:
        >>> moved = check_turns([["a"], ["b"], ["c"]], [["a", "b"], [], ["c"]],
        ...                     match_type="EXACT")
        >>> round(moved.score, 2), [verdict.passed for verdict in moved.turns]
        (0.33, [False, False, True])
    """
    checker = TurnsChecker(
        match_type=match_type, args=args, overrides=overrides, threshold=threshold
    )
    return checker(expected, actual)
