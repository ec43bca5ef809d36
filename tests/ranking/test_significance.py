"""Batched Wilcoxon vs scipy (tolerance 1e-10), Holm/Bonferroni, MSD example."""

import math

import numpy as np
import pytest
import scipy.stats

from ranking import adjust_pvalues, pairwise_wilcoxon, significance_ranking


def _scipy_p(x, y, method="asymptotic"):
    return scipy.stats.wilcoxon(
        x,
        y,
        alternative="greater",
        zero_method="wilcox",
        correction=True,
        method=method,
    ).pvalue


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("decimals", [1, 12])  # 1: ties and zeros; 12: untied
def test_pairwise_wilcoxon_matches_scipy_with_ties_and_zeros(seed, decimals):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(scale=30.0, size=(25, 6)), decimals)
    p = pairwise_wilcoxon(x)
    for i in range(6):
        for j in range(6):
            if i != j and np.any(x[:, i] != x[:, j]):
                assert abs(p[i, j] - _scipy_p(x[:, i], x[:, j])) <= 1e-10


def test_pairwise_wilcoxon_lower_is_better_swaps_direction():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(15, 3))
    assert np.array_equal(
        pairwise_wilcoxon(x, higher_is_better=False),
        pairwise_wilcoxon(x).swapaxes(0, 1),
        equal_nan=True,
    )


def test_pairwise_wilcoxon_exact_matches_scipy():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(18, 4))
    p = pairwise_wilcoxon(x, method="exact")
    for i in range(4):
        for j in range(4):
            if i != j:
                expected = _scipy_p(x[:, i], x[:, j], method="exact")
                assert abs(p[i, j] - expected) <= 1e-12


def test_pairwise_wilcoxon_identical_columns_give_p_one():
    x = np.column_stack([np.arange(5.0), np.arange(5.0)])
    p = pairwise_wilcoxon(x)
    assert p[0, 1] == 1.0
    assert p[1, 0] == 1.0


def test_pairwise_wilcoxon_missing_uses_cases_both_have():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(20, 3))
    x[[1, 4, 9], 0] = np.nan
    x[[2, 4], 2] = np.nan
    p = pairwise_wilcoxon(x)
    both = ~np.isnan(x[:, 0]) & ~np.isnan(x[:, 2])
    assert abs(p[0, 2] - _scipy_p(x[both, 0], x[both, 2])) <= 1e-10


@pytest.mark.parametrize("decimals", [1, 12])  # tied and untied |d| paths
def test_pairwise_wilcoxon_resamples_match_scipy_on_drawn_cases(decimals):
    rng = np.random.default_rng(13)
    x = np.round(rng.normal(size=(16, 4)), decimals)
    x[3, 1] = np.nan  # a missing result: the pair uses the cases both have
    idx = rng.integers(0, 16, size=(5, 16))
    counts = np.stack([np.bincount(r, minlength=16) for r in idx])
    p = pairwise_wilcoxon(x, counts)
    for b in range(5):
        xb = x[idx[b]]
        for i in range(4):
            for j in range(4):
                both = ~np.isnan(xb[:, i]) & ~np.isnan(xb[:, j])
                xi, xj = xb[both, i], xb[both, j]
                if i != j and np.any(xi != xj):
                    assert abs(p[b, i, j] - _scipy_p(xi, xj)) <= 1e-10


def test_adjust_pvalues_holm_by_hand():
    p = np.array([[np.nan, 0.01], [0.04, np.nan]])
    # two tests: sorted 0.01, 0.04 -> 0.02, max(0.02, 0.04) = 0.04
    adjusted = adjust_pvalues(p, method="holm")
    assert adjusted[0, 1] == pytest.approx(0.02, abs=1e-15)
    assert adjusted[1, 0] == pytest.approx(0.04, abs=1e-15)
    assert adjust_pvalues(p, method="bonferroni")[1, 0] == pytest.approx(0.08)


def _msd_target(best_first: bool):
    """10 cases, three algorithms; see test_msd_* for the hand computation."""
    i = np.arange(10)
    a = 0.9 - 0.001 * i
    b = a - 0.1 - 0.001 * i  # a - b = 0.1 + 0.001 i > 0 for all cases
    c = b - 0.01 * (i + 1) * (-1.0) ** i  # b - c alternates in sign
    return np.column_stack([a, b, c] if best_first else [b, a, c - 0.2])


def test_significance_ranking_msd_hand_example():
    x = _msd_target(best_first=True)
    result = significance_ranking(x, alpha=0.05)
    # A > B: all ten differences positive, T+ = 55, mean 27.5, var 10*11*21/24
    z = (55 - 27.5 - 0.5) / math.sqrt(10 * 11 * 21 / 24)
    assert result.pvalues[0, 1] == pytest.approx(
        0.5 * math.erfc(z / math.sqrt(2)), abs=1e-12
    )
    # B vs C: positive ranks 1, 3, 5, 7, 9 -> T+ = 25, T- = 30, not significant
    z_cb = (30 - 27.5 - 0.5) / math.sqrt(10 * 11 * 21 / 24)
    assert result.pvalues[2, 1] == pytest.approx(
        0.5 * math.erfc(z_cb / math.sqrt(2)), abs=1e-12
    )
    assert result.scores.tolist() == [2, 0, 0]
    assert result.ranks.tolist() == [1, 2, 2]
