"""Bootstrap stability on c_ideal / c_random (seed 000) and Kendall's tau-b."""

import numpy as np
import pytest
import scipy.stats

from ranking import compare_rankings, kendall_tau_b, run_analysis
from ranking.simulate import c_ideal, c_random
from tests.schemes import mean_scheme

SCHEME = mean_scheme()


@pytest.mark.parametrize(
    "method", ["aggregate_then_rank", "rank_then_aggregate", "test_then_rank"]
)
def test_bootstrap_c_ideal_is_perfectly_stable(method):
    scheme = {**SCHEME, "method": method}
    out = run_analysis(c_ideal(seed=4), scheme, bootstrap=100, seed=1, audit=False)
    task = out.to_json_dict()["rankings"]["DSC"]["tasks"]["T1"]
    assert task["ranks"] == {"A1": 1, "A2": 2, "A3": 3, "A4": 4, "A5": 5}
    assert task["kendall_tau"] == {"median": 1.0, "lower": 1.0, "upper": 1.0}
    assert task["winner_stability"] == 1.0
    for i in range(1, 6):
        boot = task["bootstrap"][f"A{i}"]
        assert (boot["lower"], boot["median"], boot["upper"]) == (i, i, i)
        assert boot["freq"] == {str(i): 1.0}


def test_bootstrap_c_random_gives_wide_intervals():
    out = run_analysis(c_random(seed=2), SCHEME, bootstrap=200, seed=3, audit=False)
    task = out.to_json_dict()["rankings"]["DSC"]["tasks"]["T1"]
    widths = [b["upper"] - b["lower"] for b in task["bootstrap"].values()]
    assert min(widths) >= 2
    assert task["winner_stability"] < 0.9
    assert task["kendall_tau"]["lower"] < 0.5


def test_bootstrap_same_seed_same_output_other_seed_differs():
    data = c_random(seed=5)
    one = run_analysis(data, SCHEME, bootstrap=50, seed=9, audit=False).to_json_dict()
    two = run_analysis(data, SCHEME, bootstrap=50, seed=9, audit=False).to_json_dict()
    three = run_analysis(
        data, SCHEME, bootstrap=50, seed=10, audit=False
    ).to_json_dict()
    assert one == two
    assert one != three


def test_kendall_tau_b_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    reference = np.array([1, 2, 2, 4, 5, 5, 7], dtype=float)
    many = rng.integers(1, 5, size=(30, 7)).astype(float)
    got = kendall_tau_b(reference, many)
    for row, tau in zip(many, got, strict=True):
        expected = scipy.stats.kendalltau(reference, row).statistic
        assert tau == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_b_constant_ranking_is_nan():
    assert np.isnan(kendall_tau_b(np.array([1.0, 2.0]), np.array([1.0, 1.0])))


def test_compare_rankings_reversed_order():
    comparison = compare_rankings(np.array([1, 2, 3, 4]), np.array([4, 3, 2, 1]))
    assert comparison.kendall_tau == -1.0
    assert comparison.spearman_footrule == 8.0  # 3 + 1 + 1 + 3
    assert comparison.spearman_distance == 20.0  # 9 + 1 + 1 + 9


def test_leave_one_out_on_c_ideal_never_changes_ranking():
    out = run_analysis(c_ideal(), SCHEME, bootstrap=0, seed=1, audit=False)
    task = out.to_json_dict()["rankings"]["DSC"]["tasks"]["T1"]
    assert "bootstrap" not in task
    assert task["leave_one_out"]["winner_stability"] == 1.0
    assert task["leave_one_out"]["rank_range"]["A3"] == [3, 3]
