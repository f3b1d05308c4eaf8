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
        self._only = None if per_tool else default  # one rule for every tool: no lookup

    def rule(self, tool: str) -> ArgsRule:
        return self._per_tool.get(tool, self._default)

    def __call__(self, expected: Call, actual: Call) -> bool:
        if expected.name != actual.name or expected.kind != actual.kind:
            return False
        if expected.kind == "node":
            return True
        rule = self._only or self._per_tool.get(expected.name, self._default)
        mode = rule.mode
        if mode is not None:
            if mode == "ignore" or expected.args is None:
                return True  # no arguments given: any arguments do
            e_args, a_args = expected.args, actual.args
            if e_args is a_args or (type(e_args) is str and e_args == a_args):
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
    count = len(expected)
    if count == len(actual):
        # The same calls in the same places: a perfect matching without a search.
        for index in range(count):
            e_call, a_call = expected[index], actual[index]
            if e_call.name != a_call.name or not matches(e_call, a_call):
                break
        else:
            return [(index, index) for index in range(count)]
    by_name: dict[str, list[int]] = {}
    for index, call in enumerate(actual):
        group = by_name.get(call.name)
        if group is None:
            by_name[call.name] = [index]
        else:
            group.append(index)
    options: list[list[int]] = []
    for call in expected:
        same_name = by_name.get(call.name)
        options.append([a for a in same_name if matches(call, actual[a])] if same_name else [])
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

    Steps that match in full at the start and at the end are paired first: pairing two
    whole steps can never lose against pairing either of them elsewhere (they would have to
    cross), so only the differing middle needs the table of a longest common subsequence.
    """
    rows, cols = len(expected), len(actual)
    head: list[tuple[int, int, Pairs]] = []
    while len(head) < rows and len(head) < cols:
        i = len(head)
        full = _full(expected[i], actual[i], matches)
        if full is None:
            break
        head.append((i, i, full))
    start = len(head)
    tail: list[tuple[int, int, Pairs]] = []
    e_end, a_end = rows, cols
    while e_end > start and a_end > start:
        full = _full(expected[e_end - 1], actual[a_end - 1], matches)
        if full is None:
            break
        e_end, a_end = e_end - 1, a_end - 1
        tail.append((e_end, a_end, full))
    tail.reverse()
    if e_end == start or a_end == start:
        return head + tail
    return head + _table(expected, actual, start, e_end, a_end, matches) + tail


def _table(
    expected: Sequence[Sequence[Call]],
    actual: Sequence[Sequence[Call]],
    start: int,
    e_end: int,
    a_end: int,
    matches: Callable[[Call, Call], bool],
) -> list[tuple[int, int, Pairs]]:
    """The best in-order pairing of expected[start:e_end] with actual[start:a_end]."""
    rows, cols = e_end - start, a_end - start
    gain = [[0] * cols for _ in range(rows)]
    pairs: dict[tuple[int, int], Pairs] = {}
    for r in range(rows):
        e_step = expected[start + r]
        row = gain[r]
        if len(e_step) == 1:
            e_call = e_step[0]
            for c in range(cols):
                a_step = actual[start + c]
                if len(a_step) == 1:
                    a_call = a_step[0]
                    if a_call.name == e_call.name and matches(e_call, a_call):
                        row[c] = 1
                        pairs[(r, c)] = [(0, 0)]
                    continue
                found = bipartite(e_step, a_step, matches)
                if found:
                    row[c] = len(found)
                    pairs[(r, c)] = found
            continue
        names = {call.name for call in e_step}
        for c in range(cols):
            a_step = actual[start + c]
            if any(call.name in names for call in a_step):
                found = bipartite(e_step, a_step, matches)
                if found:
                    row[c] = len(found)
                    pairs[(r, c)] = found
    best = [[0] * (cols + 1) for _ in range(rows + 1)]
    for r in range(rows - 1, -1, -1):
        here, below, gains = best[r], best[r + 1], gain[r]
        for c in range(cols - 1, -1, -1):
            g = gains[c]
            skip = below[c] if below[c] > here[c + 1] else here[c + 1]
            take = g + below[c + 1] if g else 0
            here[c] = take if take > skip else skip
    aligned: list[tuple[int, int, Pairs]] = []
    r = c = 0
    while r < rows and c < cols:
        if gain[r][c] and best[r][c] == gain[r][c] + best[r + 1][c + 1]:
            aligned.append((start + r, start + c, pairs[(r, c)]))
            r, c = r + 1, c + 1
        elif best[r][c] == best[r + 1][c]:
            r += 1
        else:
            c += 1
    return aligned


def _full(
    e_step: Sequence[Call], a_step: Sequence[Call], matches: Callable[[Call, Call], bool]
) -> Pairs | None:
    """The pairs when every call of both steps is matched, else None."""
    if len(e_step) != len(a_step):
        return None
    if len(e_step) == 1:
        e_call, a_call = e_step[0], a_step[0]
        return [(0, 0)] if e_call.name == a_call.name and matches(e_call, a_call) else None
    found = bipartite(e_step, a_step, matches)
    return found if len(found) == len(e_step) else None
