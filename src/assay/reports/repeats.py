"""Statistics of repeated runs: pass@k, pass^k, the mean score with its 95% interval, and the
flaky cases, from one record per repetition. Pure: no I/O, standard library only.

A case run `n` times that passed `c` of them has, for k = 1..n:

- pass@k = 1 - C(n-c, k) / C(n, k): the chance that at least one of k repetitions drawn
  without replacement from the n passed (the unbiased estimator of Chen et al., 2021);
- pass^k = C(c, k) / C(n, k): the chance that all k drawn passed (the "pass hat k" of
  tau-bench): how reliably the agent passes, not whether it can.

A repetition that was not scored (an agent error, a timeout, a verdict missing) did not pass:
it counts in `n`, not in `c`, and is also counted apart (`not_scored`); its value (None) is
left out of the means. A case is *flaky* when some repetitions passed and others did not.

Example:
    >>> records = [RepeatRecord("a", k, passed, value) for k, passed, value in
    ...            [(1, True, 1.0), (2, False, 0.0), (3, None, None)]]
    >>> section = summarize_repeats(records)
    >>> section["n"], section["pass_at_k"]["1"], section["flaky"]
    (3, 0.333333, ['a'])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from assay.results import CaseResult, ScoreStatus

__all__ = [
    "DIGITS",
    "RepeatRecord",
    "case_repeats",
    "mean_ci95",
    "pass_at_k",
    "pass_hat_k",
    "repeat_section",
    "summarize_repeats",
    "t_quantile_975",
]

DIGITS = 6
"""Decimal places of every figure in the section: enough to read, and the same figures
however the repetitions arrived."""


class RepeatRecord(NamedTuple):
    """What the statistics read of one repetition."""

    scenario_id: str
    """The case (eval case id)."""
    repeat: int
    """Which repetition, from 1."""
    passed: bool | None
    """Its verdict; None when it was not scored (error, timeout, unscored)."""
    value: float | None
    """Its score in 0..1; None when it was not scored."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k for a case that passed `c` of `n` repetitions.

    Args:
        n: Repetitions run (at least 1).
        c: Repetitions that passed (0..n).
        k: Repetitions drawn (1..n).

    Raises:
        ValueError: counts out of range.

    Example:
        >>> pass_at_k(5, 2, 1), pass_at_k(5, 2, 2), pass_at_k(5, 0, 3), pass_at_k(5, 4, 2)
        (0.4, 0.7, 0.0, 1.0)
    """
    _check(n, c, k)
    return float(_pass_at_k(n, c, k))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k for a case that passed `c` of `n` repetitions: C(c, k) / C(n, k).

    Example:
        >>> pass_hat_k(5, 2, 1), pass_hat_k(5, 2, 2), pass_hat_k(5, 2, 3), pass_hat_k(5, 5, 5)
        (0.4, 0.1, 0.0, 1.0)
    """
    _check(n, c, k)
    return float(_pass_hat_k(n, c, k))


def _pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _pass_hat_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def _check(n: int, c: int, k: int) -> None:
    if not (n >= 1 and 0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need n >= 1, 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")


_SERIES_LIMIT = 300
"""Past this many degrees of freedom, `t_quantile_975` uses an expansion, not the series."""

_Z_975 = 1.959963984540054
"""The 0.975 quantile of the standard normal distribution."""


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t distribution with `df` degrees of freedom (what a
    two-sided 95% interval multiplies the standard error by).

    Found by bisection on the distribution's closed form for whole degrees of freedom
    (Abramowitz and Stegun 26.7.3 and 26.7.4), so no statistics package is needed.

    Example:
        >>> [round(t_quantile_975(df), 4) for df in (1, 2, 4, 9, 30)]
        [12.7062, 4.3027, 2.7764, 2.2622, 2.0423]
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df > _SERIES_LIMIT:
        # The series grows with df; this far out, the Cornish-Fisher expansion around the
        # normal quantile is exact to about 1e-9.
        z = _Z_975
        return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    low, high = 0.0, 2.0
    while _t_central(high, df) < 0.95:
        low, high = high, high * 2
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if _t_central(middle, df) < 0.95:
            low = middle
        else:
            high = middle
    return high


def _t_central(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with `df` (whole) degrees of freedom."""
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    if df % 2 == 1:
        # (2/pi) (theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ... up to cos^(df-3)))
        total, term = 0.0, 1.0
        for j in range(1, (df - 1) // 2 + 1):
            total += term
            term *= cos2 * (2 * j) / (2 * j + 1)
            if term < 1e-18:
                break
        series = math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0
        return 2 / math.pi * (theta + series)
    # sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ... up to cos^(df-2))
    total, term = 0.0, 1.0
    for j in range(1, df // 2 + 1):
        total += term
        term *= cos2 * (2 * j - 1) / (2 * j)
        if term < 1e-18:
            break
    return math.sin(theta) * total


def mean_ci95(values: Sequence[float]) -> tuple[float | None, list[float] | None]:
    """The mean of `values` and its 95% t-interval, cut to [0, 1] (scores cannot leave it);
    (None, None) for no values, and no interval for a single one.

    Sums are `math.fsum`, correctly rounded: the same values in any order give the same
    figures.

    Example:
        >>> mean_ci95([0.2, 0.4, 0.6])
        (0.4, [0.0, 0.896828])
        >>> mean_ci95([0.5]), mean_ci95([])
        ((0.5, None), (None, None))
    """
    count = len(values)
    if count == 0:
        return None, None
    mean = math.fsum(values) / count
    if count == 1:
        return round(mean, DIGITS), None
    variance = math.fsum((value - mean) ** 2 for value in values) / (count - 1)
    half = t_quantile_975(count - 1) * math.sqrt(variance / count)
    low, high = max(0.0, mean - half), min(1.0, mean + half)
    return round(mean, DIGITS), [round(low, DIGITS), round(high, DIGITS)]


def case_repeats(scenario_id: str, records: Sequence[RepeatRecord]) -> dict[str, Any]:
    """The figures of one case from its repetitions (one record per repetition).

    Example:
        >>> case = case_repeats("a", [RepeatRecord("a", k, k <= 2, float(k <= 2))
        ...                           for k in range(1, 6)])
        >>> case["n"], case["passed"], case["pass_at_k"]["2"], case["pass_hat_k"]["2"]
        (5, 2, 0.7, 0.1)
        >>> case["mean_score"], case["flaky"]
        (0.4, True)
    """
    n = len(records)
    c = sum(record.passed is True for record in records)
    values = [record.value for record in records if record.value is not None]
    mean, ci = mean_ci95(values)
    return {
        "scenario_id": scenario_id,
        "n": n,
        "passed": c,
        "not_scored": sum(record.passed is None for record in records),
        "pass_at_k": {str(k): round(pass_at_k(n, c, k), DIGITS) for k in range(1, n + 1)},
        "pass_hat_k": {str(k): round(pass_hat_k(n, c, k), DIGITS) for k in range(1, n + 1)},
        "mean_score": mean,
        "ci95": ci,
        "flaky": 0 < c < n,
    }


def summarize_repeats(records: Iterable[RepeatRecord]) -> dict[str, Any] | None:
    """The `repeats` section of `_aggregate.json` from every repetition's record; None when
    there is none.

    Per case (sorted by id): `n`, `passed`, `not_scored`, `pass_at_k` and `pass_hat_k` for
    k = 1..n (keys "1".."n"), `mean_score` with `ci95` (over the repetitions' values; null
    with fewer than 2), and `flaky`. Over the cases: `pass_at_k` and `pass_hat_k` are the
    means over cases of each case's figure, for k = 1..`n` where `n` is the *smallest*
    repetition count of any case (`n_max` the largest): a case run fewer times (an
    interrupted run) has no pass@k beyond its own count, and every case still weighs the
    same in each mean. `mean_score` and `ci95` are over the cases' means (cases without a
    scored repetition left out); `flaky` lists the flaky cases' ids, sorted.

    The section depends only on the set of records, never on their order: a repetition
    recorded twice (the same case and repeat) is counted once, the record that sorts first by
    (passed, not passed, not scored) then value, and listed in `duplicates`.

    Example:
        >>> records = [RepeatRecord(case, k, case == "a" or k == 1, None)
        ...            for case in ("b", "a") for k in (1, 2)]
        >>> section = summarize_repeats(records)
        >>> section["pass_at_k"], section["pass_hat_k"], section["flaky"]
        ({'1': 0.75, '2': 1.0}, {'1': 0.75, '2': 0.5}, ['b'])
    """
    by_case: dict[str, dict[int, RepeatRecord]] = {}
    duplicates: set[tuple[str, int]] = set()
    for record in records:
        runs = by_case.setdefault(record.scenario_id, {})
        held = runs.get(record.repeat)
        if held is not None:
            duplicates.add((record.scenario_id, record.repeat))
            if _rank(record) >= _rank(held):
                continue
        runs[record.repeat] = record
    if not by_case:
        return None
    cases = [
        case_repeats(case, [runs[k] for k in sorted(runs)])
        for case, runs in sorted(by_case.items())
    ]
    smallest = min(case["n"] for case in cases)

    def over_cases(figure: Callable[[int, int, int], Fraction]) -> dict[str, float]:
        # Exact fractions, rounded once: the mean of the cases' unrounded figures.
        return {
            str(k): round(
                float(sum(figure(case["n"], case["passed"], k) for case in cases) / len(cases)),
                DIGITS,
            )
            for k in range(1, smallest + 1)
        }

    mean, ci = mean_ci95([case["mean_score"] for case in cases if case["mean_score"] is not None])
    return {
        "n": smallest,
        "n_max": max(case["n"] for case in cases),
        "runs": sum(case["n"] for case in cases),
        "not_scored": sum(case["not_scored"] for case in cases),
        "cases": cases,
        "pass_at_k": over_cases(_pass_at_k),
        "pass_hat_k": over_cases(_pass_hat_k),
        "mean_score": mean,
        "ci95": ci,
        "flaky": [case["scenario_id"] for case in cases if case["flaky"]],
        "duplicates": [[case, repeat] for case, repeat in sorted(duplicates)],
    }


def repeat_section(results: Iterable[CaseResult]) -> dict[str, Any] | None:
    """`summarize_repeats` of the results that are repetitions of a live run (a `repeat`
    set); None when none is. A result not scored (error, unscored) did not pass.

    Example:
        >>> from assay.results import OpsMetrics, Score
        >>> def run(k, score):
        ...     return CaseResult("a", f"a#{k}", None, None, None, "x", score, OpsMetrics(),
        ...                       repeat=k)
        >>> section = repeat_section([run(1, Score.scored("s", 1.0, passed=True)),
        ...                           run(2, Score.error("s", "agent raised"))])
        >>> section["pass_at_k"], section["not_scored"], section["flaky"]
        ({'1': 0.5, '2': 1.0}, 1, ['a'])
    """
    return summarize_repeats(
        RepeatRecord(
            result.scenario_id,
            result.repeat,
            bool(result.score.passed) if result.score.status is ScoreStatus.SCORED else None,
            result.score.value if result.score.status is ScoreStatus.SCORED else None,
        )
        for result in results
        if result.repeat is not None
    )


def _rank(record: RepeatRecord) -> tuple[int, float]:
    """The order in which one of two records of the same repetition is kept: passed, then
    failed, then not scored; then the higher value. Any fixed order would do: this one makes
    the choice independent of which record came first."""
    verdict = 0 if record.passed is True else 1 if record.passed is False else 2
    return verdict, -(record.value if record.value is not None else -1.0)
