"""Matching expected calls to actual calls: one-to-one, optimal, in order where it matters.

Two calls match when their kinds and names are equal and their arguments satisfy the rule for
that tool. Everything here maximises the number of matched calls:

- `bipartite`: an optimal one-to-one matching between two multisets of calls (augmenting
  paths, so `[A{x}, A{x,y}]` against `[A{x,y}, A{x}]` with superset arguments pairs both);
- `in_order`: the largest in-order alignment of steps, each pair of steps contributing the
  optimal matching between their calls (a longest common subsequence when every step holds
  one call), with `contained` asking for every expected call of a paired step to match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assay.trajectory.args import ArgsParseError, ArgsRule
from assay.trajectory.normalize import Call

Pairs = list[tuple[int, int]]
"""(expected index, actual index) of matched calls, indices into the flattened call lists."""


class CallMatcher:
    """Decides whether an actual call satisfies an expected one, and explains why not."""

    def __init__(self, default: ArgsRule, per_tool: dict[str, ArgsRule]) -> None:
        self._default = default
        self._per_tool = per_tool

    def rule(self, tool: str) -> ArgsRule:
        return self._per_tool.get(tool, self._default)

    def __call__(self, expected: Call, actual: Call) -> bool:
        if expected.name != actual.name or expected.kind != actual.kind:
            return False
        if expected.kind == "node":
            return True
        rule = self._per_tool.get(expected.name, self._default)
        if rule.mode == "ignore":
            return True
        if not expected.specified and rule.matcher is None and not rule.paths:
            return True  # no arguments given: any arguments do
        if rule.matcher is None and isinstance(expected.args, str) and expected.args == actual.args:
            return True  # identical JSON text is equal without parsing it
        try:
            return rule.matches(actual.parsed(), expected.parsed())
        except ArgsParseError:
            return False

    def explain(self, expected: Call, actual: Call) -> str:
        """Why `actual` does not match `expected`."""
        if expected.kind != actual.kind:
            return f"expected {expected.describe()}, got {actual.describe()}"
        if expected.name != actual.name:
            return f"expected {expected.name}, got {actual.name}"
        for side, call in (("actual", actual), ("expected", expected)):
            try:
                call.parsed()
            except ArgsParseError as exc:
                return f"{expected.name}: {side} {exc}"
        return f"{expected.name}: " + self.rule(expected.name).explain(
            actual.parsed(), expected.parsed()
        )


def bipartite(
    expected: Sequence[Call], actual: Sequence[Call], matches: Callable[[Call, Call], bool]
) -> Pairs:
    """A maximum one-to-one matching of expected to actual calls, as sorted index pairs.

    Only calls of the same kind and name can match, so candidates are looked up by name; each
    expected call first takes a free candidate, and only when none is free does it try to
    move an earlier call to another candidate (Kuhn's augmenting paths).
    """
    by_name: dict[tuple[str, str], list[int]] = {}
    for index, call in enumerate(actual):
        by_name.setdefault((call.kind, call.name), []).append(index)
    options: list[list[int]] = []
    for call in expected:
        same_name = by_name.get((call.kind, call.name), ())
        options.append([a for a in same_name if matches(call, actual[a])])
    owner: dict[int, int] = {}  # actual index -> expected index
    for e_index, candidates in enumerate(options):
        free = next((a for a in candidates if a not in owner), None)
        if free is not None:
            owner[free] = e_index
        elif candidates:
            _augment(e_index, options, owner, set())
    return sorted((e, a) for a, e in owner.items())


def _augment(e_index: int, options: list[list[int]], owner: dict[int, int], seen: set[int]) -> bool:
    for a_index in options[e_index]:
        if a_index in seen:
            continue
        seen.add(a_index)
        holder = owner.get(a_index)
        if holder is None or _augment(holder, options, owner, seen):
            owner[a_index] = e_index
            return True
    return False


def in_order(
    expected: Sequence[Sequence[Call]],
    actual: Sequence[Sequence[Call]],
    matches: Callable[[Call, Call], bool],
) -> list[tuple[int, int, Pairs]]:
    """The in-order pairing of steps that matches the most calls.

    Returns (expected step, actual step, call pairs within the two steps) for every paired
    step, in order. A step pair counts the optimal matching between its calls, so parallel
    calls match in any order.
    """
    rows, cols = len(expected), len(actual)
    if rows == cols:
        # The common case of a passing check: step i matches step i, no table needed.
        diagonal: list[tuple[int, int, Pairs]] = []
        for i in range(rows):
            full = _full(expected[i], actual[i], matches)
            if full is None:
                break
            diagonal.append((i, i, full))
        else:
            return diagonal
    gain = [[0] * cols for _ in range(rows)]
    pairs: dict[tuple[int, int], Pairs] = {}
    for i, e_step in enumerate(expected):
        names = {(c.kind, c.name) for c in e_step}
        for j, a_step in enumerate(actual):
            if not any((c.kind, c.name) in names for c in a_step):
                continue
            found = bipartite(e_step, a_step, matches)
            if found:
                gain[i][j] = len(found)
                pairs[(i, j)] = found
    best = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        row, below, gains = best[i], best[i + 1], gain[i]
        for j in range(cols - 1, -1, -1):
            take = gains[j] + below[j + 1] if gains[j] else 0
            row[j] = max(take, below[j], row[j + 1])
    aligned: list[tuple[int, int, Pairs]] = []
    i = j = 0
    while i < rows and j < cols:
        if gain[i][j] and best[i][j] == gain[i][j] + best[i + 1][j + 1]:
            aligned.append((i, j, pairs[(i, j)]))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return aligned


def _full(
    e_step: Sequence[Call], a_step: Sequence[Call], matches: Callable[[Call, Call], bool]
) -> Pairs | None:
    """The pairs when every call of both steps is matched, else None."""
    if len(e_step) != len(a_step):
        return None
    if len(e_step) == 1:
        return [(0, 0)] if matches(e_step[0], a_step[0]) else None
    found = bipartite(e_step, a_step, matches)
    return found if len(found) == len(e_step) else None
