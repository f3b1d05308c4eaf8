"""The statistics of `assay compare`: McNemar's exact test and the clustered bootstrap."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.reports.compare import stats
from assay.reports.compare.stats import clustered_bootstrap_ci, mcnemar_exact


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


def test_bootstrap_interval_covers_the_true_mean_on_a_known_case() -> None:
    # Differences drawn around a true mean of 0.2: about 95% of the intervals from 100 such
    # samples must cover it (binomial bounds for 100 draws at 0.95: 88..100).
    draw = random.Random(7)
    covered = 0
    for trial in range(100):
        sample = [[draw.gauss(0.2, 0.3)] for _ in range(40)]
        ci = clustered_bootstrap_ci(sample, resamples=500, alpha=0.05, seed=trial)
        assert ci is not None
        covered += ci[0] <= 0.2 <= ci[1]
    assert covered >= 88


def test_bootstrap_interval_of_a_constant_difference_is_that_difference() -> None:
    assert clustered_bootstrap_ci([[0.25, 0.25], [0.25]], resamples=50, alpha=0.1, seed=0) == (
        0.25,
        0.25,
    )
    assert clustered_bootstrap_ci([], resamples=50, alpha=0.1, seed=0) is None
    assert clustered_bootstrap_ci([[], []], resamples=50, alpha=0.1, seed=0) is None


def test_one_cluster_gives_no_interval() -> None:
    # One scenario, however many runs: every resample repeats it, so the spread between
    # scenarios is unknown; a point interval would call any change significant.
    assert clustered_bootstrap_ci([[-0.3, -0.3, -0.2]], resamples=50, alpha=0.1, seed=0) is None
    assert clustered_bootstrap_ci([[-0.3], []], resamples=50, alpha=0.1, seed=0) is None


def test_clustering_widens_the_interval_when_runs_of_a_scenario_move_together() -> None:
    # Ten scenarios, five runs each; a scenario's runs share its effect (strong correlation).
    draw = random.Random(3)
    clusters = []
    for _ in range(10):
        effect = draw.gauss(0.0, 0.4)
        clusters.append([effect + draw.gauss(0.0, 0.05) for _ in range(5)])
    independent = [[delta] for cluster in clusters for delta in cluster]
    low, high = clustered_bootstrap_ci(clusters, resamples=4000, alpha=0.05, seed=1) or (0, 0)
    flat_low, flat_high = clustered_bootstrap_ci(
        independent, resamples=4000, alpha=0.05, seed=1
    ) or (0, 0)
    assert high - low > 1.5 * (flat_high - flat_low)


def test_the_same_seed_gives_the_same_interval_and_another_seed_another() -> None:
    clusters = [[0.1 * k, -0.05 * k] for k in range(12)]
    first = clustered_bootstrap_ci(clusters, resamples=1000, alpha=0.05, seed=5)
    assert first == clustered_bootstrap_ci(clusters, resamples=1000, alpha=0.05, seed=5)
    assert first != clustered_bootstrap_ci(clusters, resamples=1000, alpha=0.05, seed=6)


@settings(max_examples=50)
@given(
    st.lists(
        st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=1, max_size=4),
        min_size=2,
        max_size=8,
    ),
    st.integers(0, 2**32),
)
def test_negating_the_differences_negates_and_swaps_the_interval(
    clusters: list[list[float]], seed: int
) -> None:
    ci = clustered_bootstrap_ci(clusters, resamples=200, alpha=0.05, seed=seed)
    negated = [[-delta for delta in cluster] for cluster in clusters]
    flipped = clustered_bootstrap_ci(negated, resamples=200, alpha=0.05, seed=seed)
    assert ci is not None and flipped is not None
    assert flipped[0] == pytest.approx(-ci[1], abs=1e-12)
    assert flipped[1] == pytest.approx(-ci[0], abs=1e-12)
    assert ci[0] <= ci[1]


@pytest.mark.parametrize(
    ("resamples", "alpha", "said"),
    [(0, 0.05, "resamples"), (10, 0.0, "alpha"), (10, 1.0, "alpha")],
)
def test_bootstrap_refuses_bad_settings(resamples: int, alpha: float, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        clustered_bootstrap_ci([[0.1]], resamples=resamples, alpha=alpha, seed=0)


def test_equal_and_unequal_cluster_sizes_draw_the_same_clusters() -> None:
    # The equal-size fast path and the general path agree: adding an empty cluster (dropped)
    # changes nothing, and one bigger cluster weighs its runs, not the cluster.
    clusters = [[0.1 * k] for k in range(10)]
    same = clustered_bootstrap_ci(clusters, resamples=300, alpha=0.1, seed=2)
    assert same == clustered_bootstrap_ci([*clusters, []], resamples=300, alpha=0.1, seed=2)
    pairs = [[0.1 * k, 0.1 * k] for k in range(10)]
    assert clustered_bootstrap_ci(pairs, resamples=300, alpha=0.1, seed=2) == pytest.approx(same)
    uneven = [*pairs[:9], [0.9]]  # the general path, on the same means per cluster
    low, high = clustered_bootstrap_ci(uneven, resamples=300, alpha=0.1, seed=2) or (0, 0)
    assert low == pytest.approx(same[0], abs=0.05) and high == pytest.approx(same[1], abs=0.05)
