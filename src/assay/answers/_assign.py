"""Optimal one-to-one assignment (Hungarian method) for aligning list items.

Lists in answers are short (tens of items), so a plain-Python O(n²·m) implementation is faster
to import and run than pulling in SciPy.
"""

from __future__ import annotations

from collections.abc import Sequence

_INF = float("inf")


def max_weight_assignment(weights: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs (row, column) of a one-to-one assignment with the largest total weight.

    Every row is paired when there are at least as many columns, and vice versa.

    Example:
        >>> max_weight_assignment([[1, 0], [5, 1]])
        [(0, 1), (1, 0)]
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    transposed = rows > cols
    if transposed:
        matrix = [[weights[r][c] for r in range(rows)] for c in range(cols)]
        rows, cols = cols, rows
    else:
        matrix = [list(row) for row in weights]
    # Minimise cost = -weight with row/column potentials; columns are 1-based, 0 is a sentinel.
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    owner = [0] * (cols + 1)  # owner[c] = row (1-based) assigned to column c
    way = [0] * (cols + 1)
    for row in range(1, rows + 1):
        owner[0] = row
        col0 = 0
        min_slack = [_INF] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[col0] = True
            row0 = owner[col0]
            weights_row = matrix[row0 - 1]
            delta = _INF
            col1 = 0
            for col in range(1, cols + 1):
                if used[col]:
                    continue
                slack = -weights_row[col - 1] - u[row0] - v[col]
                if slack < min_slack[col]:
                    min_slack[col] = slack
                    way[col] = col0
                if min_slack[col] < delta:
                    delta = min_slack[col]
                    col1 = col
            for col in range(cols + 1):
                if used[col]:
                    u[owner[col]] += delta
                    v[col] -= delta
                else:
                    min_slack[col] -= delta
            col0 = col1
            if owner[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            owner[col0] = owner[col1]
            col0 = col1
    pairs = [(owner[c] - 1, c - 1) for c in range(1, cols + 1) if owner[c]]
    if transposed:
        pairs = [(c, r) for r, c in pairs]
    return sorted(pairs)
