"""The statistics of `assay compare`: McNemar's exact test and the sign-flip test."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.reports.compare import stats
from assay.reports.compare.stats import mcnemar_exact, sign_flip_test


def exact_reference(b: int, c: int) -> float:
    """2 * P(X <= min(b, c)), X ~ Binomial(b + c, 1/2), in exact fractions, capped at 1."""
    n = b + c
    tail = sum(Fraction(math.comb(n, k), 2**n) for k in range(min(b, c) + 1))
    return float(min(Fraction(1), 2 * tail))


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        # 2 * (1 + 12 + 66) / 4096 = 79 / 2048: the b=10, c=2 case of the literature (0.0386).
        (10, 2, 79 / 2048),
        (2, 10, 79 / 2048),
        (5, 0, 2 / 32),  # 0.0625: five flips one way are not enough at 0.05
        (0, 6, 2 / 64),  # 0.03125: six are
        (1, 9, 2 * 11 / 1024),  # 0.021484375
        (0, 0, 1.0),  # all concordant
        (7, 7, 1.0),
        (4, 5, 1.0),  # the two tails overlap: capped at 1
    ],
)
def test_mcnemar_exact_matches_hand_computed_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_known_value_rounds_as_published() -> None:
    assert round(mcnemar_exact(10, 2), 4) == 0.0386


def test_mcnemar_in_log_space_agrees_with_exact_sums_past_the_limit() -> None:
    for b, c in ((1040, 961), (1100, 1000), (1200, 900)):
        assert b + c > stats.EXACT_LIMIT
        assert mcnemar_exact(b, c) == pytest.approx(exact_reference(b, c), rel=1e-9)


def test_mcnemar_on_huge_counts_is_fast_and_tiny_not_an_overflow() -> None:
    p = mcnemar_exact(600_000, 400_000)
    assert p == 0.0 or 0.0 < p < 1e-300
    assert mcnemar_exact(500_000, 500_000) == 1.0
    assert 0.0 < mcnemar_exact(50_500, 49_500) < 0.01


def test_mcnemar_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        mcnemar_exact(-1, 2)


@given(st.integers(0, 300), st.integers(0, 300))
def test_mcnemar_is_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == mcnemar_exact(c, b)
    assert 0.0 < p <= 1.0
    assert p == pytest.approx(exact_reference(b, c), rel=1e-12)


def test_interval_covers_the_true_mean_on_a_known_case() -> None:
    # Differences drawn around a true mean of 0.2: about 95% of the intervals from 100 such
    # samples must cover it (binomial bounds for 100 draws at 0.95: 88..100).
    draw = random.Random(7)
    covered = 0
    for trial in range(100):
        sample = [[draw.gauss(0.2, 0.3)] for _ in range(30)]
        result = sign_flip_test(sample, resamples=400, alpha=0.05, seed=trial)
        assert result is not None and not result.exact
        covered += result.ci[0] <= 0.2 <= result.ci[1]
    assert covered >= 88


def test_exact_p_values_by_hand() -> None:
    # Six scenarios all up: only the all-plus and all-minus patterns are as extreme: 2/64.
    six = sign_flip_test([[0.1]] * 6, resamples=10_000, alpha=0.05, seed=0)
    assert six is not None and six.exact and six.p_value == 2 / 64
    assert six.ci[0] > 0  # significant, so the interval leaves 0 out
    # Five can never reach 0.05 (2/32), however large the change: no significant interval.
    five = sign_flip_test([[-1.0]] * 5, resamples=10_000, alpha=0.05, seed=0)
    assert five is not None and five.p_value == 2 / 32 and five.ci[0] <= 0 <= five.ci[1]
    # 3 up, 1 down by as much (total 1.0): of the 16 patterns, the 6 with two signs each way
    # total 0; the other 10 reach |total| >= 1.
    mixed = sign_flip_test([[0.5], [0.5], [0.5], [-0.5]], resamples=10_000, alpha=0.05, seed=0)
    assert mixed is not None and mixed.p_value == 10 / 16


def test_no_interval_from_fewer_than_two_clusters() -> None:
    # One scenario, however many runs: flipping it only mirrors it; there is nothing to test.
    assert sign_flip_test([[-0.3, -0.3, -0.2]], resamples=50, alpha=0.1, seed=0) is None
    assert sign_flip_test([[-0.3], []], resamples=50, alpha=0.1, seed=0) is None
    assert sign_flip_test([], resamples=50, alpha=0.1, seed=0) is None


def test_a_constant_small_change_over_few_scenarios_is_not_significant() -> None:
    # Three scenarios each 0.05 worse with no spread: a bootstrap would give the point
    # [-0.05, -0.05]; the sign-flip test says three scenarios are too few (p = 2/8).
    result = sign_flip_test([[-0.05]] * 3, resamples=1000, alpha=0.05, seed=0)
    assert result is not None and result.p_value == 0.25
    assert result.ci[0] < 0 < result.ci[1]


def test_clustering_widens_the_interval_when_runs_of_a_scenario_move_together() -> None:
    # Ten scenarios, five runs each; a scenario's runs share its effect (strong correlation).
    draw = random.Random(3)
    clusters = []
    for _ in range(10):
        effect = draw.gauss(0.0, 0.4)
        clusters.append([effect + draw.gauss(0.0, 0.05) for _ in range(5)])
    independent = [[delta] for cluster in clusters for delta in cluster]
    grouped = sign_flip_test(clusters, resamples=4000, alpha=0.05, seed=1)
    flat = sign_flip_test(independent, resamples=4000, alpha=0.05, seed=1)
    assert grouped is not None and flat is not None
    assert grouped.ci[1] - grouped.ci[0] > 1.5 * (flat.ci[1] - flat.ci[0])


def test_the_same_seed_gives_the_same_interval_and_another_seed_another() -> None:
    clusters = [[0.1 * k - 0.3, -0.05 * k] for k in range(16)]
    first = sign_flip_test(clusters, resamples=1000, alpha=0.05, seed=5)
    assert first == sign_flip_test(clusters, resamples=1000, alpha=0.05, seed=5)
    assert first != sign_flip_test(clusters, resamples=1000, alpha=0.05, seed=6)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=1, max_size=4),
        min_size=2,
        max_size=12,
    ),
    st.integers(0, 2**32),
)
def test_negating_the_differences_negates_and_swaps_the_interval(
    clusters: list[list[float]], seed: int
) -> None:
    result = sign_flip_test(clusters, resamples=200, alpha=0.05, seed=seed)
    negated = [[-delta for delta in cluster] for cluster in clusters]
    flipped = sign_flip_test(negated, resamples=200, alpha=0.05, seed=seed)
    assert result is not None and flipped is not None
    assert flipped.p_value == result.p_value
    assert flipped.ci[0] == pytest.approx(-result.ci[1], abs=1e-12)
    assert flipped.ci[1] == pytest.approx(-result.ci[0], abs=1e-12)
    low, high = result.ci
    assert -1.0 - 1e-9 <= low <= high <= 1.0 + 1e-9
    middle = math.fsum(map(math.fsum, clusters)) / sum(map(len, clusters))
    assert low - 1e-9 <= middle <= high + 1e-9


@pytest.mark.parametrize(
    ("resamples", "alpha", "said"),
    [(0, 0.05, "resamples"), (10, 0.0, "alpha"), (10, 1.0, "alpha")],
)
def test_the_test_refuses_bad_settings(resamples: int, alpha: float, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        sign_flip_test([[0.1], [0.2]], resamples=resamples, alpha=alpha, seed=0)
