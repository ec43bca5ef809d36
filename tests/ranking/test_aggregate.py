"""Aggregate-then-rank and rank-then-aggregate; reference values by hand (exact)."""

import numpy as np
import pytest

from ranking import aggregate_then_rank, case_ranks, rank_then_aggregate
from ranking.aggregate import aggregate_scores

NAN = np.nan


@pytest.mark.parametrize(
    ("ties", "expected"),
    [("min", [1, 1, 3]), ("average", [1.5, 1.5, 3]), ("max", [2, 2, 3])],
)
def test_aggregate_then_rank_ties_rule(ties, expected):
    values = np.array([[0.8, 0.8, 0.5], [0.6, 0.6, 0.5]])
    result = aggregate_then_rank(values, ties=ties)
    assert result.ranks.tolist() == expected
    assert result.scores.tolist() == [0.7, 0.7, 0.5]


@pytest.mark.parametrize(
    ("ties", "expected"),
    [("min", [1, 1, 3]), ("average", [1.5, 1.5, 3]), ("max", [2, 2, 3])],
)
def test_case_ranks_last_rank_missing_is_below_present(ties, expected):
    # contract §2: with min, two present tied first and one missing give 1, 1, 3
    ranks = case_ranks(np.array([[0.9, 0.9, NAN]]), ties=ties, missing="last_rank")
    assert ranks.tolist() == [expected]


@pytest.mark.parametrize(
    ("ties", "expected"),
    [("min", [1, 2, 2]), ("average", [1, 2.5, 2.5]), ("max", [1, 3, 3])],
)
def test_case_ranks_last_rank_missing_tie_among_themselves(ties, expected):
    ranks = case_ranks(np.array([[0.9, NAN, NAN]]), ties=ties, missing="last_rank")
    assert ranks.tolist() == [expected]


def test_case_ranks_ignore_leaves_missing_unranked():
    ranks = case_ranks(np.array([[0.2, NAN, 0.9]]), missing="ignore")
    assert ranks[0, 0] == 2
    assert np.isnan(ranks[0, 1])
    assert ranks[0, 2] == 1


def test_rank_then_aggregate_last_rank_mean_of_case_ranks():
    values = np.array([[0.9, 0.9, NAN], [0.5, 0.7, 0.6], [0.1, NAN, 0.3]])
    # case ranks (min): [1,1,3], [3,1,2], [2,3,1] -> means 2, 5/3, 2
    result = rank_then_aggregate(values, missing="last_rank")
    assert result.scores.tolist() == pytest.approx([2, 5 / 3, 2], abs=1e-12)
    assert result.ranks.tolist() == [2, 1, 2]


def test_rank_then_aggregate_ignore_uses_present_cases():
    values = np.array([[0.9, 0.9, NAN], [0.5, 0.7, 0.6], [0.1, NAN, 0.3]])
    # case ranks among present: [1,1,-], [3,1,2], [2,-,1] -> 2, 1, 1.5
    result = rank_then_aggregate(values, missing="ignore")
    assert result.scores.tolist() == [2.0, 1.0, 1.5]
    assert result.ranks.tolist() == [3, 1, 2]


def test_aggregate_then_rank_ignore_policy_means_present_values():
    values = np.array([[0.2, 0.6], [NAN, 0.6], [0.8, 0.6]])
    result = aggregate_then_rank(values)
    assert result.scores.tolist() == [0.5, 0.6]
    assert result.ranks.tolist() == [2, 1]


def test_aggregate_then_rank_lower_is_better():
    hd = np.array([[3.0, 10.0, 5.0], [4.0, 12.0, 6.0]])
    result = aggregate_then_rank(hd, higher_is_better=False)
    assert result.ranks.tolist() == [1, 3, 2]


def test_rank_then_aggregate_lower_is_better():
    hd = np.array([[3.0, 10.0, 5.0], [7.0, 12.0, 6.0]])
    # per case: [1,3,2], [2,3,1] -> means 1.5, 3, 1.5
    result = rank_then_aggregate(hd, higher_is_better=False)
    assert result.ranks.tolist() == [1, 3, 1]


def test_aggregate_then_rank_quantile_5_percent_is_type_7():
    a = np.arange(1, 11) / 10  # 0.1 .. 1.0, mean 0.55
    b = np.full(10, 0.5)  # mean 0.5
    values = np.column_stack([a, b])
    # type 7: h = (10 - 1) * 0.05 = 0.45 -> 0.1 + 0.45 * 0.1 = 0.145
    robust = aggregate_then_rank(values, aggregate="quantile", quantile=0.05)
    assert robust.scores.tolist() == pytest.approx([0.145, 0.5], abs=1e-12)
    assert robust.ranks.tolist() == [2, 1]
    assert aggregate_then_rank(values).ranks.tolist() == [1, 2]


def test_aggregate_then_rank_median():
    values = np.array([[0.1, 0.5], [0.9, 0.5], [0.8, 0.5], [0.7, 0.6]])
    result = aggregate_then_rank(values, aggregate="median")
    assert result.scores.tolist() == pytest.approx([0.75, 0.5], abs=1e-12)


def test_aggregate_then_rank_all_missing_algorithm_ranks_last():
    values = np.array([[0.2, NAN, 0.1], [0.4, NAN, 0.1]])
    result = aggregate_then_rank(values)
    assert result.ranks.tolist() == [1, 3, 2]
    assert np.isnan(result.scores[1])


def test_weighted_quantile_matches_numpy_on_resample():
    from ranking.aggregate import aggregate_scores

    rng = np.random.default_rng(3)
    x = rng.random((12, 3))
    x[2, 1] = NAN
    idx = rng.integers(0, 12, size=(6, 12))
    counts = np.stack([np.bincount(r, minlength=12) for r in idx])
    got = aggregate_scores(x, counts, q=0.3)
    for b in range(6):
        for j in range(3):
            col = x[idx[b], j]
            col = col[~np.isnan(col)]
            assert got[b, j] == pytest.approx(np.quantile(col, 0.3), abs=1e-12)


def _resampled_means_by_product(x, counts):
    """Means of every resample as the product of the counts with the data."""
    present = ~np.isnan(x)
    w = np.asarray(counts, dtype=np.float64)
    den = w @ present
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (w @ np.where(present, x, 0.0)) / den, np.nan)


@pytest.mark.parametrize("seed", range(5))
def test_leave_one_out_means_are_the_totals_less_one_row(seed):
    from ranking.bootstrap import leave_one_out_counts

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(40, 6))
    x[rng.uniform(size=x.shape) < 0.2] = np.nan
    x[:, 5] = x[:, 4]  # two identical columns stay tied in every sample
    x[:, 3] = np.nan
    x[7, 3] = 1.0  # one case: left out, no value remains
    counts = np.concatenate(list(leave_one_out_counts(40)))

    by_total = aggregate_scores(x, counts)

    expected = _resampled_means_by_product(x, counts)
    np.testing.assert_array_equal(np.isnan(by_total), np.isnan(expected))
    np.testing.assert_allclose(by_total, expected, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(by_total[:, 4], by_total[:, 5])
    assert np.isnan(by_total[7, 3])
    assert (by_total[np.arange(40) != 7, 3] == 1.0).all()


def test_other_resamples_are_not_taken_for_leave_one_out():
    from ranking.aggregate import _left_out_cases

    assert _left_out_cases(np.array([[1, 1, 0], [0, 1, 1]])).tolist() == [2, 0]
    assert _left_out_cases(np.array([[1, 2, 0], [0, 1, 1]])) is None  # a bootstrap
    assert _left_out_cases(np.array([[1, 0, 0], [0, 1, 1]])) is None  # two left out
    assert _left_out_cases(np.array([[1, 1, 1]])) is None  # the data itself
    assert _left_out_cases(np.zeros((0, 3), dtype=np.int64)) is None
