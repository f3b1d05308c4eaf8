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
from dataclasses import dataclass, field
from typing import Any

from assay.trajectory.args import compile_rules
from assay.trajectory.match import CallMatcher, Pairs, bipartite, in_order
from assay.trajectory.normalize import Call, Steps, to_steps
from assay.trajectory.spec import ArgsMode, MatchType, Mode, Overrides, resolve_mode

_LISTED = 3
"""Unmatched calls named in a reason before "and N more"."""


@dataclass(frozen=True, slots=True)
class TrajectoryMatch:
    """The outcome of one trajectory check."""

    passed: bool
    """Whether the actual trajectory satisfies the mode."""

    score: float
    """Partial credit in 0..1; 1.0 exactly when `passed`."""

    precision: float
    """Matched calls over actual calls (1.0 when there are none)."""

    recall: float
    """Matched calls over expected calls (1.0 when there are none)."""

    f1: float
    """Harmonic mean of precision and recall."""

    reason: str
    """What did not match (step, tool, expected against got); empty when it passed."""

    mode: Mode
    """The mode checked, after resolving aliases."""

    matched: list[dict[str, Any]] = field(default_factory=list)
    """Each matched pair: expected and actual step index and call."""

    missing: list[dict[str, Any]] = field(default_factory=list)
    """Expected calls with no match: step index, call, and why the nearest candidate failed."""

    unexpected: list[dict[str, Any]] = field(default_factory=list)
    """Actual calls with no match."""

    def to_details(self) -> dict[str, Any]:
        """The check as plain data for a report."""
        return {
            "mode": self.mode,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "expected_calls": len(self.matched) + len(self.missing),
            "actual_calls": len(self.matched) + len(self.unexpected),
            "matched": self.matched,
            "missing": self.missing,
            "unexpected": self.unexpected,
        }


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

    def __call__(self, expected: Any, actual: Any) -> TrajectoryMatch:
        """Check `actual` against `expected` (any accepted trajectory shape).

        Raises:
            TypeError: either side is not a trajectory in any accepted shape.
        """
        expected_steps = to_steps(expected)
        actual_steps = _keep_kinds(to_steps(actual), _kinds(expected_steps))
        if self.mode in ("strict", "subsequence"):
            return self._ordered(expected_steps, actual_steps)
        return self._unordered(expected_steps, actual_steps)

    # --- ordered modes -------------------------------------------------------------------

    def _ordered(self, expected: Steps, actual: Steps) -> TrajectoryMatch:
        aligned = in_order(expected, actual, self._matcher)
        matched_calls: set[tuple[int, int]] = set()
        used_calls: set[tuple[int, int]] = set()
        matched: list[dict[str, Any]] = []
        for e_step, a_step, pairs in aligned:
            for e_call, a_call in pairs:
                matched_calls.add((e_step, e_call))
                used_calls.add((a_step, a_call))
                matched.append(
                    _pair(e_step, expected[e_step][e_call], a_step, actual[a_step][a_call])
                )
        missing = [
            _entry(i, call)
            for i, step in enumerate(expected)
            for k, call in enumerate(step)
            if (i, k) not in matched_calls
        ]
        unexpected = [
            _entry(j, call)
            for j, step in enumerate(actual)
            for k, call in enumerate(step)
            if (j, k) not in used_calls
        ]
        n_expected, n_actual, n_matched = _count(expected), _count(actual), len(matched)
        precision, recall, f1 = _prf(n_matched, n_expected, n_actual)
        if self.mode == "strict":
            passed = n_matched == n_expected == n_actual
            score = 1.0 if passed else min(f1, _BELOW_ONE)
        else:
            passed = n_matched == n_expected
            score = 1.0 if passed else min(recall, _BELOW_ONE)
        reason = "" if passed else self._ordered_reason(expected, actual, aligned, n_matched)
        return TrajectoryMatch(
            passed, score, precision, recall, f1, reason, self.mode, matched, missing, unexpected
        )

    def _ordered_reason(
        self,
        expected: Steps,
        actual: Steps,
        aligned: list[tuple[int, int, Pairs]],
        n_matched: int,
    ) -> str:
        tally = f"{n_matched} of {_count(expected)} expected calls matched in order"
        if self.mode == "strict":
            for i in range(max(len(expected), len(actual))):
                if i >= len(actual):
                    return (
                        f"step {i}: expected {_describe(expected[i])}, but the run has only "
                        f"{len(actual)} steps; {tally}"
                    )
                if i >= len(expected):
                    return (
                        f"step {i}: unexpected {_describe(actual[i])} (expected "
                        f"{len(expected)} steps); {tally}"
                    )
                if not self._same_step(expected[i], actual[i]):
                    return f"step {i}: {self._step_difference(expected[i], actual[i])}; {tally}"
            return tally
        paired = {e for e, _, pairs in aligned if len(pairs) == len(expected[e])}
        first = next(i for i in range(len(expected)) if i not in paired)
        names = {(call.kind, call.name) for step in actual for call in step}
        if not any((call.kind, call.name) in names for call in expected[first]):
            where = "anywhere in the run"
        else:
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
                where += f" (actual step {near[0]}: {self._matcher.explain(wanted, near[1])})"
        return f"expected step {first} ({_describe(expected[first])}) not found {where}; {tally}"

    def _same_step(self, e_step: tuple[Call, ...], a_step: tuple[Call, ...]) -> bool:
        if len(e_step) != len(a_step):
            return False
        return len(bipartite(e_step, a_step, self._matcher)) == len(e_step)

    def _step_difference(self, e_step: tuple[Call, ...], a_step: tuple[Call, ...]) -> str:
        if len(e_step) == 1 and len(a_step) == 1:
            return self._matcher.explain(e_step[0], a_step[0])
        return f"expected {_describe(e_step)}, got {_describe(a_step)}"

    # --- unordered modes -----------------------------------------------------------------

    def _unordered(self, expected: Steps, actual: Steps) -> TrajectoryMatch:
        e_calls = [(i, call) for i, step in enumerate(expected) for call in step]
        a_calls = [(j, call) for j, step in enumerate(actual) for call in step]
        pairs = bipartite([c for _, c in e_calls], [c for _, c in a_calls], self._matcher)
        e_used = {e for e, _ in pairs}
        a_used = {a for _, a in pairs}
        matched = [
            _pair(e_calls[e][0], e_calls[e][1], a_calls[a][0], a_calls[a][1]) for e, a in pairs
        ]
        free_actual = [a_calls[a] for a in range(len(a_calls)) if a not in a_used]
        missing = []
        for e, (i, call) in enumerate(e_calls):
            if e in e_used:
                continue
            entry = _entry(i, call)
            near = next((c for _, c in free_actual if c.name == call.name), None)
            if near is not None:
                entry["why"] = self._matcher.explain(call, near)
            missing.append(entry)
        free_expected = [e_calls[e][1] for e in range(len(e_calls)) if e not in e_used]
        unexpected = []
        for j, call in free_actual:
            entry = _entry(j, call)
            near = next((c for c in free_expected if c.name == call.name), None)
            if near is not None:
                entry["why"] = self._matcher.explain(near, call)
            unexpected.append(entry)
        n_expected, n_actual, n_matched = len(e_calls), len(a_calls), len(pairs)
        precision, recall, f1 = _prf(n_matched, n_expected, n_actual)
        if self.mode == "unordered":
            passed, credit = n_matched == n_expected == n_actual, f1
        elif self.mode == "superset":
            passed, credit = n_matched == n_expected, recall
        else:  # subset
            passed, credit = n_matched == n_actual, precision
        score = 1.0 if passed else min(credit, _BELOW_ONE)
        reason = (
            "" if passed else self._unordered_reason(missing, unexpected, n_matched, n_expected)
        )
        return TrajectoryMatch(
            passed, score, precision, recall, f1, reason, self.mode, matched, missing, unexpected
        )

    def _unordered_reason(
        self,
        missing: list[dict[str, Any]],
        unexpected: list[dict[str, Any]],
        n_matched: int,
        n_expected: int,
    ) -> str:
        parts = []
        if missing and self.mode != "subset":
            parts.append("missing " + _listing(missing))
        if unexpected and self.mode != "superset":
            parts.append("unexpected " + _listing(unexpected))
        parts.append(f"{n_matched} of {n_expected} expected calls matched")
        return "; ".join(parts)


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
    kinds: set[str] = {call.kind for step in steps for call in step}
    return kinds or {"tool"}


def _keep_kinds(steps: Steps, kinds: set[str]) -> Steps:
    """The steps with only calls of the kinds the expectation speaks of."""
    if len(kinds) == 2:
        return steps
    kept: Steps = []
    for step in steps:
        calls = tuple(call for call in step if call.kind in kinds)
        if calls:
            kept.append(calls)
    return kept


def _count(steps: Steps) -> int:
    return sum(len(step) for step in steps)


def _prf(matched: int, expected: int, actual: int) -> tuple[float, float, float]:
    precision = matched / actual if actual else 1.0
    recall = matched / expected if expected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _entry(step: int, call: Call) -> dict[str, Any]:
    return {"step": step, "call": call.describe()}


def _pair(e_step: int, e_call: Call, a_step: int, a_call: Call) -> dict[str, Any]:
    return {
        "expected_step": e_step,
        "expected": e_call.describe(),
        "actual_step": a_step,
        "actual": a_call.describe(),
    }


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
