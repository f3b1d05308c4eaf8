"""`check_trajectory`: did the run call the expected tools, in the expected way?

Modes (how the expected steps must appear in the actual run):

- `strict`: the same steps in the same order, nothing more.
- `unordered`: the same calls (as a multiset), order and step boundaries ignored.
- `subsequence`: the expected steps in order within the actual ones; extra steps allowed.
- `superset`: every expected call matched by its own actual call; extra calls allowed.
- `subset`: every actual call matched by its own expected call; missing calls allowed.

A step is the calls one assistant turn made together; the calls inside a step may have run in
parallel, so they match in any order, in every mode. Matching is always an optimal one-to-one
assignment, never a greedy first fit.

`score` gives partial credit and is 1.0 exactly when the check passes: the F1 of matched calls
for `strict` and `unordered`, the share of expected calls matched for `subsequence` and
`superset` (extras are allowed there, so they cost nothing), the share of actual calls matched
for `subset`. For the ordered modes, calls count as matched only along the best in-order
alignment (a longest common subsequence of steps), so expected `[a, b, c]` against
`[b, c, a]` scores 2/3. `precision`, `recall` and `f1` are always reported too.

Example:
    >>> result = check_trajectory(["lookup", "check_policy", "refund"], ["lookup", "refund"])
    >>> result.passed, round(result.score, 3)
    (False, 0.8)
    >>> result.reason
    'step 1: expected check_policy, got refund; 2 of 3 expected calls matched in order'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.trajectory._argdiff import failed_pairs, record
from assay.trajectory._fast import count_in_order, count_matches, plain_calls
from assay.trajectory.args import compile_rules
from assay.trajectory.match import (
    CallMatcher,
    Pairs,
    bipartite,
    in_order,
)
from assay.trajectory.normalize import Call, Steps, to_steps
from assay.trajectory.spec import ArgsMode, MatchType, Mode, Overrides, resolve_mode

_LISTED = 3
"""Unmatched calls named in a reason before "and N more"."""

Coordinate = tuple[int, int]
"""(step index, call index within the step)."""


class TrajectoryMatch:
    """The outcome of one trajectory check.

    The figures are computed by the check; the reason and the lists of matched, missing and
    unexpected calls are worked out when first read, so that checking many pairs only pays
    for the explanations it looks at.
    """

    __slots__ = (
        "_differ",
        "_evidence",
        "_lists",
        "_matched",
        "_reason",
        "mode",
        "n_actual",
        "n_expected",
    )

    def __init__(
        self,
        mode: Mode,
        n_matched: int,
        n_expected: int,
        n_actual: int,
        evidence: _Evidence | _Deferred,
    ) -> None:
        self.mode: Mode = mode
        """The mode checked, after resolving aliases."""
        self._matched = n_matched
        self.n_expected = n_expected
        """Calls in the expected trajectory."""
        self.n_actual = n_actual
        """Calls in the actual trajectory (of the kinds the expectation speaks of)."""
        self._evidence = evidence
        self._reason: str | None = None
        self._lists: tuple[list[dict[str, Any]], ...] | None = None
        self._differ: list[dict[str, Any]] | None = None

    # The figures follow from three counts; worked out when read, as checking many pairs
    # often reads only `passed`.

    @property
    def passed(self) -> bool:
        """Whether the actual trajectory satisfies the mode."""
        mode, matched = self.mode, self._matched
        if mode == "strict" or mode == "unordered":
            return matched == self.n_expected == self.n_actual
        if mode == "subset":
            return matched == self.n_actual
        return matched == self.n_expected  # subsequence, superset: extra calls are allowed

    @property
    def precision(self) -> float:
        """Matched calls over actual calls (1.0 when there are none)."""
        return self._matched / self.n_actual if self.n_actual else 1.0

    @property
    def recall(self) -> float:
        """Matched calls over expected calls (1.0 when there are none)."""
        return self._matched / self.n_expected if self.n_expected else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        precision, recall = self.precision, self.recall
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    @property
    def score(self) -> float:
        """Partial credit in 0..1; 1.0 exactly when `passed`: the F1 for `strict` and
        `unordered`, precision for `subset`, recall for `subsequence` and `superset`."""
        if self.passed:
            return 1.0
        mode = self.mode
        if mode == "strict" or mode == "unordered":
            credit = self.f1
        elif mode == "subset":
            credit = self.precision
        else:
            credit = self.recall
        return min(credit, _BELOW_ONE)

    @property
    def reason(self) -> str:
        """What did not match (step, tool, expected against got); empty when it passed."""
        if self._reason is None:
            self._reason = "" if self.passed else self._explained().reason()
        return self._reason

    @property
    def matched(self) -> list[dict[str, Any]]:
        """Each matched pair: expected and actual step index and call."""
        return self._all_lists()[0]

    @property
    def missing(self) -> list[dict[str, Any]]:
        """Expected calls with no match: step, call, and why the nearest candidate failed."""
        return self._all_lists()[1]

    @property
    def unexpected(self) -> list[dict[str, Any]]:
        """Actual calls with no match: step, call, and why the nearest expected call failed."""
        return self._all_lists()[2]

    @property
    def args_differ(self) -> list[dict[str, Any]]:
        """Expected calls set against an actual call of the same tool whose arguments break
        the argument rule: both calls with their steps, `why`, and `differences`, each
        argument `missing`, `unexpected` or `different` with its expected and actual value
        as JSON text. These calls are also among `missing` and `unexpected`.

        Example:
            >>> result = check_trajectory([{"name": "get", "args": {"id": 7}}],
            ...                           [{"name": "get", "args": {"id": 8}}])
            >>> result.args_differ[0]["differences"]
            [{'argument': 'id', 'kind': 'different', 'expected': '7', 'actual': '8'}]
        """
        if self._differ is None:
            self._differ = [] if self.passed else self._explained().args_differ()
        return self._differ

    def _all_lists(self) -> tuple[list[dict[str, Any]], ...]:
        if self._lists is None:
            self._lists = self._explained().lists()
        return self._lists

    def _explained(self) -> _Evidence:
        evidence = self._evidence
        if type(evidence) is tuple:  # counted on the quick path: ask the general one
            checker, expected, actual = evidence
            evidence = self._evidence = checker._general(expected, actual)._explained()
        assert isinstance(evidence, _Evidence)
        return evidence

    def to_details(self) -> dict[str, Any]:
        """The check as plain data for a report."""
        matched, missing, unexpected = self._all_lists()
        return {
            "mode": self.mode,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "expected_calls": len(matched) + len(missing),
            "actual_calls": len(matched) + len(unexpected),
            "matched": matched,
            "missing": missing,
            "unexpected": unexpected,
            "args_differ": self.args_differ,
        }

    def __repr__(self) -> str:
        return (
            f"TrajectoryMatch(passed={self.passed}, score={self.score!r}, mode={self.mode!r}, "
            f"reason={self.reason!r})"
        )


class _Evidence:
    """What a check found, kept to explain it on demand."""

    __slots__ = ("_pairs", "actual", "aligned", "expected", "flat", "matcher", "mode", "notes")

    def __init__(self, mode: Mode, matcher: CallMatcher, expected: Steps, actual: Steps) -> None:
        self.mode = mode
        self.matcher = matcher
        self.expected = expected
        self.actual = actual
        self.aligned: list[tuple[int, int, Pairs]] | None = None
        self.notes: list[str] = []
        """What the matching had to decide (an alignment that may fall short of the best)."""
        """Ordered modes: the paired steps and the calls paired within them."""
        self.flat: Pairs | None = None
        """Unordered modes: pairs of indices into the flattened call lists."""
        self._pairs: list[tuple[Coordinate, Coordinate]] | None = None

    @property
    def pairs(self) -> list[tuple[Coordinate, Coordinate]]:
        """Matched calls as (expected, actual) coordinates."""
        if self._pairs is None:
            if self.aligned is not None:
                self._pairs = [((i, e), (j, a)) for i, j, found in self.aligned for e, a in found]
            else:
                e_where = [(i, k) for i, step in enumerate(self.expected) for k in range(len(step))]
                a_where = [(j, k) for j, step in enumerate(self.actual) for k in range(len(step))]
                self._pairs = [(e_where[e], a_where[a]) for e, a in self.flat or []]
        return self._pairs

    def free(self) -> tuple[list[Coordinate], list[Coordinate]]:
        """Coordinates of the unmatched expected and actual calls, in order."""
        used_e = {e for e, _ in self.pairs}
        used_a = {a for _, a in self.pairs}
        free_e = [
            (i, k)
            for i, step in enumerate(self.expected)
            for k in range(len(step))
            if (i, k) not in used_e
        ]
        free_a = [
            (j, k)
            for j, step in enumerate(self.actual)
            for k in range(len(step))
            if (j, k) not in used_a
        ]
        return free_e, free_a

    def lists(self) -> tuple[list[dict[str, Any]], ...]:
        expected, actual = self.expected, self.actual
        matched = [
            {
                "expected_step": e[0],
                "expected": expected[e[0]][e[1]].describe(),
                "actual_step": a[0],
                "actual": actual[a[0]][a[1]].describe(),
            }
            for e, a in sorted(self.pairs)
        ]
        free_e, free_a = self.free()
        unordered = self.mode not in ("strict", "subsequence")
        missing = []
        for i, k in free_e:
            call = expected[i][k]
            entry: dict[str, Any] = {"step": i, "call": call.describe()}
            if unordered:
                near = next(
                    (actual[j][m] for j, m in free_a if actual[j][m].name == call.name), None
                )
                if near is not None:
                    entry["why"] = self.matcher.explain(call, near)
            missing.append(entry)
        unexpected = []
        for j, m in free_a:
            call = actual[j][m]
            entry = {"step": j, "call": call.describe()}
            if unordered:
                near = next(
                    (expected[i][k] for i, k in free_e if expected[i][k].name == call.name), None
                )
                if near is not None:
                    entry["why"] = self.matcher.explain(near, call)
            unexpected.append(entry)
        return matched, missing, unexpected

    def args_differ(self) -> list[dict[str, Any]]:
        """See `TrajectoryMatch.args_differ`."""
        found = failed_pairs(
            self.expected, self.actual, self.free(), self.aligned, self.matcher.matches
        )
        return [record(self.matcher, self.expected, self.actual, e, a) for e, a in found]

    def reason(self) -> str:
        if self.mode == "strict":
            return self._strict_reason()
        if self.mode == "subsequence":
            return self._subsequence_reason()
        return self._unordered_reason()

    def _tally(self) -> str:
        expected = _count(self.expected)
        if self.mode in ("strict", "subsequence"):
            tally = f"{len(self.pairs)} of {expected} expected calls matched in order"
            if self.notes:
                tally += f" ({'; '.join(self.notes)})"
            return tally
        return f"{len(self.pairs)} of {expected} expected calls matched"

    def _strict_reason(self) -> str:
        expected, actual, tally = self.expected, self.actual, self._tally()
        for i in range(max(len(expected), len(actual))):
            if i >= len(actual):
                return (
                    f"step {i}: expected {_describe(expected[i])}, but the run has only "
                    f"{len(actual)} steps; {tally}"
                )
            if i >= len(expected):
                return (
                    f"step {i}: unexpected {_describe(actual[i])} (expected {len(expected)} "
                    f"steps); {tally}"
                )
            e_step, a_step = expected[i], actual[i]
            if len(e_step) != len(a_step) or len(bipartite(e_step, a_step, self.matcher)) != len(
                e_step
            ):
                if len(e_step) == 1 and len(a_step) == 1:
                    difference = self.matcher.explain(e_step[0], a_step[0])
                else:
                    difference = f"expected {_describe(e_step)}, got {_describe(a_step)}"
                return f"step {i}: {difference}; {tally}"
        return tally

    def _subsequence_reason(self) -> str:
        expected, actual, tally = self.expected, self.actual, self._tally()
        aligned = self.aligned or []
        paired = {e for e, _, pairs in aligned if len(pairs) == len(expected[e])}
        first = next(i for i in range(len(expected)) if i not in paired)
        names = {(call.kind, call.name) for step in actual for call in step}
        if not any((call.kind, call.name) in names for call in expected[first]):
            shown = _describe(expected[first])
            return f"expected step {first} ({shown}) not found anywhere in the run; {tally}"
        after = next((j for e, j, _ in reversed(aligned) if e < first), None)
        before = next((j for e, j, _ in aligned if e > first), None)
        if after is not None and before is not None:
            where = f"between actual steps {after} and {before}"
        elif after is not None:
            where = f"after actual step {after}"
        elif before is not None:
            where = f"before actual step {before}"
        else:
            where = "in the run"
        low = -1 if after is None else after
        high = len(actual) if before is None else before
        wanted = expected[first][0]
        near = next(
            (
                (j, call)
                for j in range(low + 1, high)
                for call in actual[j]
                if (call.kind, call.name) == (wanted.kind, wanted.name)
            ),
            None,
        )
        if near is not None:
            where += f" (actual step {near[0]}: {self.matcher.explain(wanted, near[1])})"
        return f"expected step {first} ({_describe(expected[first])}) not found {where}; {tally}"

    def _unordered_reason(self) -> str:
        _, missing, unexpected = self.lists()
        parts = []
        if missing and self.mode != "subset":
            parts.append("missing " + _listing(missing))
        if unexpected and self.mode != "superset":
            parts.append("unexpected " + _listing(unexpected))
        parts.append(self._tally())
        return "; ".join(parts)


_Deferred = tuple["TrajectoryChecker", Any, Any]
"""What a check counted on the quick path keeps to explain itself: the checker and the two
trajectories, for the general path to work through when an explanation is first asked for."""


class TrajectoryChecker:
    """A trajectory check with its options compiled once, to run over many pairs.

    Example:
        >>> checker = TrajectoryChecker(mode="unordered", args="exact")
        >>> checker([{"name": "a", "args": {"x": 1}}, "b"],
        ...         [{"name": "b"}, {"name": "a", "args": {"x": 1.0}}]).passed
        True
    """

    def __init__(
        self,
        *,
        mode: Mode | MatchType | str = "strict",
        args: ArgsMode | str = "superset",
        overrides: Overrides | None = None,
    ) -> None:
        """Validate the options.

        Raises:
            ValueError: an unknown mode or argument mode, or an invalid override.
        """
        self.mode: Mode = resolve_mode(mode)
        default, per_tool = compile_rules(args, overrides)
        self._matcher = CallMatcher(default, per_tool)
        # With one argument mode for every tool, the figures can be counted on plain message
        # dicts directly (`_fast`); None when they cannot.
        self._fast: str | None = default.mode if not per_tool and default.mode else None
        self._ordered = self.mode == "strict" or self.mode == "subsequence"

    def __call__(self, expected: Any, actual: Any) -> TrajectoryMatch:
        """Check `actual` against `expected` (any accepted trajectory shape).

        Raises:
            TypeError: either side is not a trajectory in any accepted shape.
        """
        args_mode = self._fast
        if args_mode is not None:
            # The ordered modes also need where each step ends.
            e_ends: list[int] | None = [] if self._ordered else None
            a_ends: list[int] | None = [] if self._ordered else None
            e_calls = plain_calls(expected, e_ends)
            a_calls = plain_calls(actual, a_ends) if e_calls is not None else None
            if e_calls is not None and a_calls is not None:
                n_matched = (
                    count_in_order(
                        (e_calls, e_ends), (a_calls, a_ends), args_mode, self._matcher.matches
                    )
                    if e_ends is not None and a_ends is not None
                    else count_matches(e_calls, a_calls, args_mode)
                )
                if n_matched is not None:
                    evidence = (self, expected, actual)
                    return self._result(n_matched, len(e_calls), len(a_calls), evidence)
        return self._general(expected, actual)

    def _general(self, expected: Any, actual: Any) -> TrajectoryMatch:
        """The check on any accepted shapes, with everything needed to explain it."""
        expected_steps = to_steps(expected)
        actual_steps = _keep_kinds(to_steps(actual), _kinds(expected_steps))
        mode = self.mode
        n_expected, n_actual = sum(map(len, expected_steps)), sum(map(len, actual_steps))
        evidence = _Evidence(mode, self._matcher, expected_steps, actual_steps)
        if mode == "strict" or mode == "subsequence":
            evidence.aligned = in_order(
                expected_steps, actual_steps, self._matcher.matches, evidence.notes
            )
            n_matched = sum(len(found) for _, _, found in evidence.aligned)
        else:
            e_calls = [call for step in expected_steps for call in step]
            a_calls = [call for step in actual_steps for call in step]
            evidence.flat = bipartite(e_calls, a_calls, self._matcher.matches)
            n_matched = len(evidence.flat)
        return self._result(n_matched, n_expected, n_actual, evidence)

    def _result(
        self, n_matched: int, n_expected: int, n_actual: int, evidence: _Evidence | _Deferred
    ) -> TrajectoryMatch:
        return TrajectoryMatch(self.mode, n_matched, n_expected, n_actual, evidence)


_BELOW_ONE = 0.999999
"""A failed check never scores 1.0, even when rounding would get it there."""


def check_trajectory(
    expected: Any,
    actual: Any,
    *,
    mode: Mode | MatchType | str = "strict",
    args: ArgsMode | str = "superset",
    overrides: Overrides | None = None,
) -> TrajectoryMatch:
    """Check an actual trajectory against the expected one.

    Args:
        expected: The expected trajectory: tool names, calls, `TrajectoryStep`s, one nested
            list per step of parallel calls, messages, or a `Trajectory`. A call given without
            arguments (a bare name, `ToolCall(name)`) matches the tool with any arguments.
        actual: The run's trajectory, in any of the same shapes.
        mode: `strict`, `unordered`, `subsequence`, `superset` or `subset`, or a `MatchType`
            (`EXACT`, `IN_ORDER`, `ANY_ORDER`).
        args: How arguments compare: `superset` (the actual arguments include the expected
            ones; the default), `subset`, `exact` or `ignore`.
        overrides: Per tool name: an argument mode, a list of dotted field paths that must be
            present and equal on both sides, or a callable `(actual_args, expected_args) ->
            bool`.

    Returns:
        The result: `passed`, `score`, `precision`, `recall`, `f1`, `reason`, and the matched,
        missing and unexpected calls.

    Raises:
        ValueError: an unknown mode, argument mode or override.
        TypeError: a trajectory in no accepted shape.

    Example:
        >>> calls = [{"name": "A", "args": {"x": 1}}, {"name": "A", "args": {"x": 1, "y": 2}}]
        >>> run = [{"name": "A", "args": {"x": 1, "y": 2}}, {"name": "A", "args": {"x": 1}}]
        >>> check_trajectory(calls, run, mode="unordered").passed
        True
    """
    return TrajectoryChecker(mode=mode, args=args, overrides=overrides)(expected, actual)


def _kinds(steps: Steps) -> set[str]:
    kinds: set[str] = set()
    for step in steps:
        for call in step:
            kinds.add(call.kind)
    return kinds or {"tool"}


def _keep_kinds(steps: Steps, kinds: set[str]) -> Steps:
    """The steps with only calls of the kinds the expectation speaks of."""
    if len(kinds) == 2 or all(call.kind in kinds for step in steps for call in step):
        return steps
    kept: Steps = []
    for step in steps:
        calls = tuple(call for call in step if call.kind in kinds)
        if calls:
            kept.append(calls)
    return kept


def _count(steps: Steps) -> int:
    return sum(map(len, steps))


def _describe(step: Sequence[Call]) -> str:
    if len(step) == 1:
        return step[0].describe()
    return "{" + ", ".join(call.describe() for call in step) + "}"


def _listing(entries: list[dict[str, Any]]) -> str:
    shown = [
        f"{e['call']} (step {e['step']})" + (f": {e['why']}" if e.get("why") else "")
        for e in entries[:_LISTED]
    ]
    more = f" and {len(entries) - _LISTED} more" if len(entries) > _LISTED else ""
    return ", ".join(shown) + more
