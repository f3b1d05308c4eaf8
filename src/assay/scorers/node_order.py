"""`node_order`: the run entered the graph nodes the case expects, in the expected order.

The expected nodes are the case's `expected_nodes` (a list of node names). The
run's nodes are the `node` of its steps in order, a node that stays active over several
steps counted once (consecutive repeats collapsed; steps without a node skipped); the expected
list is read the same way, since a repeat the run cannot show could never be matched.

Modes are the match types of trajectory checks:

- `IN_ORDER` (the default): the expected nodes in order, other nodes allowed between them; the
  score is the longest run of expected nodes found in order over the number expected;
- `EXACT`: the same nodes in the same order and nothing more; the score is 1.0 only then,
  else the nodes found in order over the length of the longer sequence (so an extra node
  costs as a missing one does), never passing;
- `ANY_ORDER`: every expected node, in any order; the score is the fraction of the expected
  nodes the run visited (a node expected twice must be visited twice).

A run that records no node at all while the case expects some is unscored (`no_nodes`), never
scored 0: it almost always means the capture of node visits is not wired into the agent.

Example:
    >>> from assay.records import Case, Step, Trajectory
    >>> case = Case(id="c1", expected_nodes=["ROUTER", "RESEARCH", "ANSWER"])
    >>> run = Trajectory(steps=[Step(0, node="ROUTER"), Step(1, node="RESEARCH"),
    ...                         Step(2, node="RESEARCH"), Step(3, node="TOOLS"),
    ...                         Step(4, node="ANSWER")])
    >>> node_order()(case, run).passed, node_order(mode="EXACT")(case, run).value
    (True, 0.75)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from assay.records import Case, Trajectory
from assay.results import Score
from assay.scorers._runs import bad_expectation, check_fraction, listing, not_applicable
from assay.scorers.registry import Scorer, register_scorer
from assay.trajectory.spec import MatchType, match_type_of

__all__ = ["node_order", "node_sequence"]

NAME = "node_order"

FIELD = "expected_nodes"
"""Where a case holds its expected nodes, as problems and rationales name it."""

NO_NODES = "no_nodes"
"""`details["reason"]` of a run that records no node visit while nodes are expected."""


@register_scorer(NAME, group="trajectories")
def node_order(*, mode: str = "IN_ORDER", threshold: float = 1.0) -> Scorer:
    """Compares the graph nodes the run entered, in order, to the scenario's expected_nodes.

    Args:
        mode: `EXACT`, `IN_ORDER` or `ANY_ORDER`, in any case (see the module documentation).
        threshold: The score needed to pass, 0..1 (under `EXACT`, only an exact match passes).

    Raises:
        ValueError: an unknown mode or a threshold outside 0..1.

    Example:
        >>> from assay.records import Case, Step, Trajectory
        >>> case = Case(id="c1", expected_nodes=["A", "B"])
        >>> score = node_order(mode="any_order")(case, Trajectory(steps=[Step(0, node="B")]))
        >>> score.value, score.passed, score.rationale
        (0.5, False, 'visited 1 of 2 expected nodes (ANY_ORDER); missing: A')
    """
    match_type = match_type_of(mode) if isinstance(mode, str) else None
    if match_type is None:
        known = ", ".join(member.value for member in MatchType)
        raise ValueError(f"mode must be one of {known} (any case), got {mode!r}")
    check_fraction("threshold", threshold)

    def score(case: Case, run: Trajectory) -> Score:
        reason = case.problem(FIELD)
        if reason is not None:
            return bad_expectation(NAME, FIELD, reason)
        wanted = case.expected_nodes
        if wanted is None:
            return not_applicable(NAME, "case expects no node order")
        if not isinstance(wanted, list) or not all(
            isinstance(node, str) and node.strip() for node in wanted
        ):
            return bad_expectation(
                NAME, FIELD, f"expected a list of node names, got {_shape(wanted)}"
            )
        expected = node_sequence(wanted)
        if not expected:
            return not_applicable(NAME, "case's expected_nodes is empty")
        actual = node_sequence(step.node for step in run.steps)
        if not actual:
            return Score.unscored(
                NAME,
                f"run records no node visit while the case expects {len(expected)}: the "
                "capture of node visits is probably not wired into the agent (pass the "
                "callback of make_trajectory_callback to the graph)",
                {"reason": NO_NODES, "expected": expected},
            )
        return _verdict(match_type, threshold, expected, actual)

    return score


def node_sequence(nodes: Any) -> list[str]:
    """The node names in order, consecutive repeats collapsed and non-names (None, blank
    text, anything not text) skipped.

    Example:
        >>> node_sequence(["A", "A", None, "B", "A", "A"])
        ['A', 'B', 'A']
    """
    sequence: list[str] = []
    for node in nodes:
        if isinstance(node, str) and node.strip():
            name = node.strip()
            if not sequence or sequence[-1] != name:
                sequence.append(name)
    return sequence


def _verdict(
    match_type: MatchType, threshold: float, expected: list[str], actual: list[str]
) -> Score:
    details: dict[str, Any] = {
        "mode": match_type.value,
        "threshold": threshold,
        "expected": expected,
        "actual": actual,
    }
    if match_type is MatchType.ANY_ORDER:
        have = Counter(actual)
        missing: list[str] = []
        for node in expected:
            if have[node] > 0:
                have[node] -= 1
            else:
                missing.append(node)
        matched = len(expected) - len(missing)
        value = matched / len(expected)
        passed = value >= threshold
        rationale = f"visited {matched} of {len(expected)} expected nodes (ANY_ORDER)"
        if missing:
            rationale += f"; missing: {listing(missing)}"
        details["missing"] = missing
        return Score.scored(NAME, value, passed=passed, rationale=rationale, details=details)
    matched = _in_order(expected, actual)
    details["matched_in_order"] = matched
    if match_type is MatchType.EXACT:
        passed = expected == actual
        value = 1.0 if passed else matched / max(len(expected), len(actual))
        rationale = (
            f"the run visited exactly the {len(expected)} expected nodes (EXACT)"
            if passed
            else f"node order differs (EXACT): expected {_path(expected)}, got {_path(actual)}"
        )
        return Score.scored(NAME, value, passed=passed, rationale=rationale, details=details)
    value = matched / len(expected)
    passed = value >= threshold
    rationale = f"{matched} of {len(expected)} expected nodes visited in order (IN_ORDER)"
    if matched < len(expected):
        rationale += f": expected {_path(expected)}, got {_path(actual)}"
    return Score.scored(NAME, value, passed=passed, rationale=rationale, details=details)


def _in_order(expected: Sequence[str], actual: Sequence[str]) -> int:
    """The length of a longest common subsequence of the two sequences.

    Bit-parallel (Hyyro's formulation of Allison and Dix's method): bit `i` of `row` stands for
    expected node `i`, and each actual node updates the whole row with a few integer
    operations, so a run of a million steps against a few expected nodes takes a second
    rather than the quadratic table's minutes.
    """
    mask = (1 << len(expected)) - 1
    where: dict[str, int] = {}
    for position, node in enumerate(expected):
        where[node] = where.get(node, 0) | (1 << position)
    row = mask
    for node in actual:
        hits = row & where.get(node, 0)
        row = ((row + hits) | (row - hits)) & mask
    return len(expected) - row.bit_count()


def _path(nodes: list[str], limit: int = 12) -> str:
    shown = " -> ".join(nodes[:limit])
    return shown + (f" -> ... ({len(nodes) - limit} more)" if len(nodes) > limit else "")


def _shape(value: Any) -> str:
    if isinstance(value, list):
        bad = next(
            (item for item in value if not (isinstance(item, str) and item.strip())), None
        )
        return f"a list holding {bad!r}"[:200]
    return f"{type(value).__name__} {value!r}"[:200]
