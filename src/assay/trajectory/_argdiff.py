"""Calls of the right tool with the wrong arguments: which unmatched expected call was set
against which unmatched actual call, and how their arguments differ.

Only calls the matching left unpaired are looked at, so a check that passed pays nothing.
An unmatched expected call is set against an unmatched actual call of the same tool (one to
one, each taking the first free one): in the unordered modes anywhere in the run; in the
ordered modes only where the in-order alignment leaves room for it (the actual step paired
with its own step, else the steps between the paired steps around it), in order.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any

import orjson

from assay._jsonable import MISSING, jsonable
from assay.trajectory.args import ArgDifference
from assay.trajectory.match import CallMatcher, Pairs
from assay.trajectory.normalize import Call, Steps

Coordinate = tuple[int, int]
"""(step index, call index within the step)."""

MAX_DIFFERENCES = 20
"""Argument differences listed for one pair of calls; past that, a count of the rest."""

VALUE_CHARS = 200
"""Characters of a value's JSON text in a difference; longer text is cut with "…"."""


def failed_pairs(
    expected: Steps,
    actual: Steps,
    free: tuple[Sequence[Coordinate], Sequence[Coordinate]],
    aligned: list[tuple[int, int, Pairs]] | None,
    matches: Callable[[Call, Call], bool],
) -> list[tuple[Coordinate, Coordinate]]:
    """Unmatched expected calls (`free[0]`) set against unmatched actual calls (`free[1]`)
    of the same tool whose arguments do not match.

    `aligned` is the in-order alignment of an ordered mode (None for the unordered modes):
    an expected call of a paired step is set only against calls of the actual step it is
    paired with; one of an unpaired step only against actual steps between the paired
    steps around it, and never before an actual call already taken.
    """
    free_e, free_a = free
    if not free_e or not free_a:
        return []
    offered: dict[tuple[str, str], list[Coordinate]] = {}
    for j, m in free_a:
        call = actual[j][m]
        offered.setdefault((call.kind, call.name), []).append((j, m))
    rows = [e for e, _, _ in aligned] if aligned is not None else []
    columns = [j for _, j, _ in aligned] if aligned is not None else []
    pairs: list[tuple[Coordinate, Coordinate]] = []
    last = 0  # the actual step of the last pair made (ordered modes)
    for i, k in free_e:
        call = expected[i][k]
        candidates = offered.get((call.kind, call.name))
        if not candidates or call.kind == "node":
            continue
        low, high = 0, len(actual)
        if aligned is not None:
            at = bisect_left(rows, i)
            if at < len(rows) and rows[at] == i:  # its step is paired: that actual step only
                low, high = columns[at], columns[at] + 1
            else:
                low = columns[at - 1] + 1 if at else 0
                high = columns[at] if at < len(columns) else len(actual)
            low = max(low, last)
        for index, (j, m) in enumerate(candidates):
            if low <= j < high and not matches(call, actual[j][m]):
                pairs.append(((i, k), (j, m)))
                del candidates[index]
                last = j if aligned is not None else 0
                break
    return pairs


def record(
    matcher: CallMatcher, expected: Steps, actual: Steps, e: Coordinate, a: Coordinate
) -> dict[str, Any]:
    """A pair of calls whose arguments differ, as plain data for a report: both calls with
    their steps, `why` (the matcher's explanation) and `differences`, each argument that
    breaks the rule (`argument`, `kind`, and the `expected` and `actual` values as JSON text
    where that side has one).

    Example:
        >>> from assay.trajectory.args import compile_rules
        >>> from assay.trajectory.normalize import Call
        >>> matcher = CallMatcher(*compile_rules("superset", None))
        >>> steps_e = [(Call("get", {"id": 7, "site": "A"}),)]
        >>> steps_a = [(Call("get", {"id": 8}),)]
        >>> record(matcher, steps_e, steps_a, (0, 0), (0, 0))["differences"]
        [{'argument': 'id', 'kind': 'different', 'expected': '7', 'actual': '8'}, \
{'argument': 'site', 'kind': 'missing', 'expected': '"A"'}]
    """
    wanted, got = expected[e[0]][e[1]], actual[a[0]][a[1]]
    found = matcher.differences(wanted, got)
    listed = [_difference(d) for d in islice(found, MAX_DIFFERENCES)]
    entry: dict[str, Any] = {
        "expected_step": e[0],
        "expected": wanted.describe(),
        "actual_step": a[0],
        "actual": got.describe(),
        "why": matcher.explain(wanted, got),
        "differences": listed,
    }
    more = sum(1 for _ in found)
    if more:
        entry["more_differences"] = more
    return entry


def _difference(found: ArgDifference) -> dict[str, Any]:
    out: dict[str, Any] = {"argument": found.path, "kind": found.kind}
    if found.expected is not MISSING:
        out["expected"] = value_text(found.expected)
    if found.actual is not MISSING:
        out["actual"] = value_text(found.actual)
    return out


def value_text(value: Any) -> str:
    """An argument value as compact JSON text, at most `VALUE_CHARS` characters (a value
    JSON cannot hold is shown by its `repr`).

    Example:
        >>> value_text({"a": [1, 2]}), value_text("x" * 300)[-3:]
        ('{"a":[1,2]}', 'xx…')
    """
    try:
        shown = orjson.dumps(jsonable(value), option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        try:
            shown = repr(value)
        except RecursionError:
            shown = f"<{type(value).__name__} nested too deep to show>"
    return shown if len(shown) <= VALUE_CHARS else shown[: VALUE_CHARS - 1] + "…"
