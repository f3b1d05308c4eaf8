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

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from assay._jsonable import contains, same
from assay.trajectory.args import ArgDifference, ArgsParseError, ArgsRule, Unparsable
from assay.trajectory.normalize import Call

Pairs = list[tuple[int, int]]
"""(expected index, actual index) of matched calls, indices into the flattened call lists."""


class CallMatcher:
    """Decides whether an actual call satisfies an expected one, and explains why not."""

    def __init__(self, default: ArgsRule, per_tool: dict[str, ArgsRule]) -> None:
        self._default = default
        self._per_tool = per_tool
        self.matches: Callable[[Call, Call], bool] = (
            _mode_matcher(default.mode) if not per_tool and default.mode else self.__call__
        )
        """The fastest test for this configuration (the same answers as calling the matcher)."""

    def rule(self, tool: str) -> ArgsRule:
        return self._per_tool.get(tool, self._default)

    def __call__(self, expected: Call, actual: Call) -> bool:
        if expected.name != actual.name or expected.kind != actual.kind:
            return False
        if expected.kind == "node":
            return True
        rule = self._per_tool.get(expected.name, self._default)
        mode = rule.mode
        if mode is not None:
            if mode == "ignore" or expected.args is None:
                return True  # no arguments given: any arguments do
            e_args, a_args = expected.args, actual.args
            if e_args is a_args or (type(e_args) is str and e_args == a_args):
                return True  # identical JSON text is equal without parsing it
        wanted, got = expected.value(), actual.value()
        if type(wanted) is Unparsable or type(got) is Unparsable:
            return False
        return rule.matches(got, wanted)

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

    def differences(self, expected: Call, actual: Call) -> Iterator[ArgDifference]:
        """The arguments of `actual` that break the rule for `expected`'s tool, as `explain`
        finds them; nothing when the calls are of different tools or kinds, or either side's
        arguments cannot be compared (`explain` says why)."""
        if expected.kind != actual.kind or expected.name != actual.name:
            return iter(())
        wanted, got = expected.value(), actual.value()
        if type(wanted) is Unparsable or type(got) is Unparsable:
            return iter(())
        return self.rule(expected.name).differences(got, wanted)


def _mode_matcher(mode: str) -> Callable[[Call, Call], bool]:
    """`CallMatcher.__call__` for one argument mode and no per-tool rules, with the rule
    lookups taken out: it runs for every pair of calls compared."""
    compare: Callable[[Any, Any], bool]
    if mode == "ignore":
        return _names_match
    if mode == "superset":
        compare = contains
    elif mode == "subset":

        def compare(got: Any, wanted: Any) -> bool:
            return contains(wanted, got)

    else:
        compare = same

    def matches(expected: Call, actual: Call) -> bool:
        if expected.name != actual.name or expected.kind != actual.kind:
            return False
        e_args = expected.args
        if e_args is None or expected.kind == "node":
            return True  # no arguments given (or a node): any arguments do
        if e_args is actual.args or (type(e_args) is str and e_args == actual.args):
            return True  # identical JSON text is equal without parsing it
        wanted, got = expected.value(), actual.value()
        if type(wanted) is Unparsable or type(got) is Unparsable:
            return False
        return compare(got, wanted)

    return matches


def _names_match(expected: Call, actual: Call) -> bool:
    return expected.name == actual.name and expected.kind == actual.kind


def bipartite(
    expected: Sequence[Call], actual: Sequence[Call], matches: Callable[[Call, Call], bool]
) -> Pairs:
    """A maximum one-to-one matching of expected to actual calls, as sorted index pairs.

    Calls only match calls of the same name, so the problem splits by name: a name with one
    call on each side is a single test, and only names repeated on a side need a search, in
    which each expected call takes the first free candidate that matches, and when none does
    an earlier call is moved to another candidate (Kuhn's augmenting paths).
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
    expected_names: dict[str, int] = {}
    for call in expected:
        expected_names[call.name] = expected_names.get(call.name, 0) + 1
    pairs: Pairs = []
    repeated: list[int] = []  # expected calls of a name that is not unique on both sides
    for e_index, call in enumerate(expected):
        group = by_name.get(call.name)
        if group is None:
            continue
        if len(group) == 1 and expected_names[call.name] == 1:
            if matches(call, actual[group[0]]):
                pairs.append((e_index, group[0]))
        else:
            repeated.append(e_index)
    if repeated:
        pairs.extend(_search(repeated, expected, actual, by_name, matches))
        pairs.sort()
    return pairs


def _search(
    repeated: list[int],
    expected: Sequence[Call],
    actual: Sequence[Call],
    by_name: dict[str, list[int]],
    matches: Callable[[Call, Call], bool],
) -> Pairs:
    """The optimal pairing of the expected calls of repeated names."""
    owner = augmenting_match(
        repeated,
        lambda e: by_name[expected[e].name],
        lambda e, a: matches(expected[e], actual[a]),
    )
    return [(e, a) for a, e in owner.items()]


def augmenting_match(
    lefts: Sequence[int],
    offered: Callable[[int], Sequence[int]],
    fits: Callable[[int, int], bool],
) -> dict[int, int]:
    """A maximum matching by Kuhn's augmenting paths, as `{right: left}`.

    Each left takes the first free right it fits; only when none is free is an earlier left
    moved to another right, and only then are a left's candidates all worked out.

    Example:
        >>> augmenting_match([0, 1], lambda left: [0, 1], lambda left, right: left or right)
        {1: 0, 0: 1}
    """
    owner: dict[int, int] = {}
    options: dict[int, list[int]] = {}

    def candidates(left: int) -> list[int]:
        found = options.get(left)
        if found is None:
            found = [right for right in offered(left) if fits(left, right)]
            options[left] = found
        return found

    def augment(left: int, seen: set[int]) -> bool:
        for right in candidates(left):
            if right in seen:
                continue
            seen.add(right)
            holder = owner.get(right)
            if holder is None or augment(holder, seen):
                owner[right] = left
                return True
        return False

    for left in lefts:
        for right in offered(left):
            if right not in owner and fits(left, right):
                owner[right] = left
                break
        else:
            augment(left, set())
    return owner


def in_order(
    expected: Sequence[Sequence[Call]],
    actual: Sequence[Sequence[Call]],
    matches: Callable[[Call, Call], bool],
    notes: list[str] | None = None,
) -> list[tuple[int, int, Pairs]]:
    """The in-order pairing of steps that matches the most calls (`notes` is told when it
    may fall short of that; see `MAX_TABLE_CELLS`).

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
    if (e_end - start) * (a_end - start) > MAX_TABLE_CELLS:
        middle = _sparse_in_order(expected, actual, start, e_end, a_end, matches)
        parallel = any(len(step) > 1 for step in (*expected[start:e_end], *actual[start:a_end]))
        if parallel and notes is not None:
            notes.append(f"aligned by steps: over {MAX_TABLE_CELLS:,} step pairs")
    else:
        middle = _table(expected, actual, start, e_end, a_end, matches)
    return head + middle + tail


MAX_TABLE_CELLS = 1_000_000
"""Step pairs the longest-common-subsequence table may hold (a thousand steps a side). Past
that, time and memory would grow with the product of the lengths, so the differing middle of
two very long trajectories is aligned from the pairs of steps that share a tool instead."""


def _sparse_in_order(
    expected: Sequence[Sequence[Call]],
    actual: Sequence[Sequence[Call]],
    start: int,
    e_end: int,
    a_end: int,
    matches: Callable[[Call, Call], bool],
) -> list[tuple[int, int, Pairs]]:
    """The most step pairs in order, from the step pairs that match at all (Hunt-Szymanski:
    a longest increasing run of actual positions). Exact when every step holds one call;
    with parallel calls it maximises paired steps, not calls."""
    by_name: dict[str, list[int]] = {}
    for column in range(start, a_end):
        for call in actual[column]:
            seen_at = by_name.setdefault(call.name, [])
            if not seen_at or seen_at[-1] != column:
                seen_at.append(column)
    ends: list[int] = []  # the smallest last column of an in-order run of each length
    ends_at: list[int] = []  # which pair ends it
    pairs: list[tuple[int, int, Pairs, int]] = []  # (row, column, calls, previous pair or -1)
    for row in range(start, e_end):
        columns = sorted(
            {column for call in expected[row] for column in by_name.get(call.name, ())},
            reverse=True,  # so that one row never extends a run through itself
        )
        for column in columns:
            found = bipartite(expected[row], actual[column], matches)
            if not found:
                continue
            length = bisect_left(ends, column)
            pairs.append((row, column, found, ends_at[length - 1] if length else -1))
            if length == len(ends):
                ends.append(column)
                ends_at.append(len(pairs) - 1)
            else:
                ends[length] = column
                ends_at[length] = len(pairs) - 1
    aligned: list[tuple[int, int, Pairs]] = []
    index = ends_at[-1] if ends_at else -1
    while index >= 0:
        row, column, found, index = pairs[index]
        aligned.append((row, column, found))
    aligned.reverse()
    return aligned


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
