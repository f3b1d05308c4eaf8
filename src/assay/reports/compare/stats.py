"""The statistics of a paired comparison, with no I/O: McNemar's exact test on pass/fail flips,
and a sign-flip test of the mean score difference with its confidence interval, flipping whole
scenarios.

Both are plain Python (`math`, `random`, `itertools`); see `sign_flip_test` for the time.

Example:
    >>> round(mcnemar_exact(10, 2), 4)
    0.0386
    >>> sign_flip_test([[0.5, 0.1]], resamples=100, alpha=0.05, seed=1) is None
    True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import compress

__all__ = ["EXACT_LIMIT", "SignFlip", "mcnemar_exact", "mean", "sign_flip_test"]

EXACT_LIMIT = 2000
"""Up to this many discordant pairs the binomial tail is summed exactly in integers; past it,
in log space (the integer sums grow with n squared bits and become slow, not wrong)."""


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided p-value of McNemar's exact test.

    Under the null hypothesis a discordant pair is as likely to flip one way as the other, so
    `min(b, c)` follows Binomial(b + c, 1/2); the p-value is twice its lower tail, at most 1.

    Args:
        b: Pairs that went one way (e.g. failed before, passed after).
        c: Pairs that went the other way (passed before, failed after).

    Returns:
        The p-value; 1.0 when there is no discordant pair.

    Raises:
        ValueError: a negative count.

    Example:
        >>> round(mcnemar_exact(10, 2), 5), mcnemar_exact(0, 0), mcnemar_exact(3, 3)
        (0.03857, 1.0, 1.0)
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must be >= 0, got b={b}, c={c}")
    n = b + c
    low = min(b, c)
    if n == 0 or 2 * low >= n:
        return 1.0
    if n <= EXACT_LIMIT:
        tail = sum(math.comb(n, k) for k in range(low + 1))
        return min(1.0, float(Fraction(2 * tail, 2**n)))
    # log P(X = k) = log C(n, k) - n log 2, summed with the largest term factored out.
    terms = [
        math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
        for k in range(low + 1)
    ]
    top = max(terms)
    log_tail = top + math.log(math.fsum(math.exp(term - top) for term in terms))
    return min(1.0, 2.0 * math.exp(log_tail))


def mean(values: Sequence[float]) -> float | None:
    """The mean of `values`, or None when there are none.

    Example:
        >>> mean([0.25, 0.75]), mean([])
        (0.5, None)
    """
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True, slots=True)
class SignFlip:
    """The sign-flip test of a mean paired difference, and its confidence interval."""

    p_value: float
    """Two-sided p-value of "the mean difference is 0"."""

    ci: tuple[float, float]
    """The differences `mu` that the test does not reject at `alpha` (`p > alpha` once `mu`
    is taken off every difference), within [-1, 1] (scores lie in 0..1)."""

    exact: bool
    """True when every sign pattern was enumerated; False when `resamples` were drawn."""


def sign_flip_test(
    clusters: Sequence[Sequence[float]], *, resamples: int, alpha: float, seed: int
) -> SignFlip | None:
    """A sign-flip (permutation) test of the mean of paired differences, flipping whole
    clusters (a scenario's runs), and the confidence interval found by inverting it.

    If NEW and BASE were exchangeable, each scenario's differences could have had the other
    sign; the test compares the observed total with the totals under every pattern of flipped
    scenarios (all of them when there are at most `resamples` patterns, else `resamples`
    seeded draws). Runs of one scenario tend to move together, so they are flipped together:
    treating them as independent would narrow the interval. The interval holds each `mu` for
    which the differences minus `mu` pass the test; it is found by bisection, to 1e-9.

    10,000 drawn patterns over 500 scenarios take 0.36 s (2 CPUs, Python 3.11); enumerating
    2**13 patterns, 0.06 s.

    Unlike a bootstrap, the test stays honest with few scenarios: with k of them, the smallest
    p-value it can give is 2 / 2**k, so fewer than 6 scenarios can never be significant at
    0.05, however large the change.

    Negating every difference, with the same seed, leaves the p-value and negates and swaps
    the interval's bounds (the same sign patterns are used on both).

    Args:
        clusters: The differences (after minus before), each in [-1, 1], one sequence per
            cluster, in a fixed order (the same order gives the same result for the same
            seed).
        resamples: Sign patterns drawn when there are more than this many, at least 1.
        alpha: 1 minus the confidence level, in (0, 1).
        seed: The seed of the draws.

    Returns:
        The p-value and the interval, or None when fewer than two clusters hold a
        difference (one cluster flipped is only its own mirror image: no test).

    Raises:
        ValueError: `resamples` below 1 or `alpha` outside (0, 1).

    Example:
        >>> result = sign_flip_test([[0.5], [0.4], [0.6], [0.5], [0.3], [0.7]],
        ...                         resamples=1000, alpha=0.05, seed=0)
        >>> result.p_value, result.exact, result.ci[0] > 0
        (0.03125, True, True)
        >>> sign_flip_test([[0.5]] * 5, resamples=1000, alpha=0.05, seed=0).p_value
        0.0625
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    kept = [cluster for cluster in clusters if cluster]
    if len(kept) < 2:
        return None
    sums = [math.fsum(cluster) for cluster in kept]
    sizes = [len(cluster) for cluster in kept]
    count = len(kept)
    total, runs = math.fsum(sums), sum(sizes)
    exact = count < 63 and 2**count <= resamples
    # For each sign pattern s: A = sum(s * sums), B = sum(s * sizes); with mu taken off every
    # difference its total is A - mu * B. A pattern is its kept clusters (the rest flipped):
    # A = 2 * (sum kept) - total.
    patterns: list[tuple[float, int]] = []
    if exact:
        for bits in range(2**count):
            kept_mask = [(bits >> position) & 1 for position in range(count)]
            patterns.append(_pattern(sums, sizes, kept_mask, total, runs))
    else:
        draw = random.Random(seed).randbytes
        for _ in range(resamples):
            patterns.append(_pattern(sums, sizes, draw(count).translate(_LOW_BIT), total, runs))

    def p_at(mu: float) -> float:
        observed = abs(total - mu * runs)
        # Rounding must not split ties (a pattern and its mirror image give the same total).
        bar = observed - 1e-12 * (abs(total) + runs)
        extreme = sum(1 for a, b in patterns if abs(a - mu * b) >= bar)
        if exact:
            return extreme / len(patterns)
        return (extreme + 1) / (len(patterns) + 1)  # the observed pattern counts as drawn

    middle = total / runs
    low = middle - _reach(lambda t: p_at(middle - t) > alpha, middle + 1.0)
    high = middle + _reach(lambda t: p_at(middle + t) > alpha, 1.0 - middle)
    return SignFlip(min(1.0, p_at(0.0)), (low, high), exact)


_LOW_BIT = bytes(value & 1 for value in range(256))
"""Random bytes to 0/1: which clusters keep their sign."""


def _pattern(
    sums: Sequence[float], sizes: Sequence[int], kept: Iterable[int], total: float, runs: int
) -> tuple[float, int]:
    selectors = list(kept)
    return (
        2.0 * math.fsum(compress(sums, selectors)) - total,
        2 * sum(compress(sizes, selectors)) - runs,
    )


def _reach(inside: Callable[[float], bool], limit: float) -> float:
    """The largest distance in [0, limit] still `inside`, by bisection (inside at 0)."""
    if inside(limit):
        return limit
    near, far = 0.0, limit
    while far - near > 1e-9:
        half = (near + far) / 2
        if inside(half):
            near = half
        else:
            far = half
    return near
