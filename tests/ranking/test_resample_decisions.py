"""Resamples' significance decided from z (no normal tail away from the
critical value): the same decisions, bit for bit, as from their p-values."""

import json
import subprocess
import sys

import numpy as np
import pytest

from ranking import adjust_pvalues, pairwise_wilcoxon
from ranking.bootstrap import leave_one_out_counts
from ranking.significance import (
    _SMALL,
    PairedDifferences,
    _decide,
    _leave_one_out_cases,
    _normal_upper_tail,
    _prepare_chunk,
    _signed_rank_batch,
    _significant_greater,
    _Threshold,
)


def _counts(rng, n_samples, n_cases):
    draws = rng.integers(0, n_cases, size=(n_samples, n_cases))
    return np.stack([np.bincount(row, minlength=n_cases) for row in draws])


def _decided_by_pvalues(x, counts, *, alpha, p_adjust, method, hib):
    p = pairwise_wilcoxon(x, counts, higher_is_better=hib, method=method)
    return np.nan_to_num(adjust_pvalues(p, method=p_adjust), nan=1.0) <= alpha


@pytest.mark.parametrize("p_adjust", ["none", "bonferroni"])
@pytest.mark.parametrize("method", ["approx", "exact"])
@pytest.mark.parametrize("decimals", [1, 12])  # 1: ties and zeros; 12: untied
@pytest.mark.parametrize("n_samples", [40, 400])  # families of <= and > _SMALL
def test_resample_decisions_equal_those_of_the_adjusted_pvalues(
    p_adjust, method, decimals, n_samples
):
    rng = np.random.default_rng(11)
    x = np.round(rng.normal(size=(30, 6)) + np.linspace(0, 1, 6), decimals)
    x[rng.random(x.shape) < 0.05] = np.nan
    counts = _counts(rng, n_samples, 30)
    assert (n_samples * 15 > _SMALL) == (n_samples == 400)
    for hib in (True, False):
        for alpha in (0.05, 0.2):
            expected = _decided_by_pvalues(
                x, counts, alpha=alpha, p_adjust=p_adjust, method=method, hib=hib
            )

            pvalues, significant = _decide(
                x,
                counts,
                alpha=alpha,
                p_adjust=p_adjust,
                method=method,
                higher_is_better=hib,
            )

            assert pvalues is None  # decided without them
            assert np.array_equal(significant, expected)
            assert 0 < expected.sum() < expected.size - 6 * n_samples  # not trivial


@pytest.mark.parametrize("family", [_SMALL, _SMALL + 1])  # math.erfc, ndtr
@pytest.mark.parametrize(("alpha", "p_adjust"), [(0.05, "none"), (0.01, "bonferroni")])
def test_threshold_near_the_critical_value_decides_by_the_pvalue(
    family, alpha, p_adjust
):
    threshold = _Threshold.of(alpha, p_adjust, 342)
    middle = (threshold.z_low + threshold.z_high) / 2
    width = threshold.z_high - threshold.z_low
    z = np.concatenate(
        [
            middle + np.linspace(-2 * width, 2 * width, 4001),
            np.nextafter(threshold.z_high, np.inf) + np.arange(3) * 1e-12,
            np.nextafter(threshold.z_low, -np.inf) - np.arange(3) * 1e-12,
            np.linspace(-5, 40, 1000),
        ]
    )
    ok = np.ones(z.shape, dtype=bool)
    ok[::7] = False  # no statistic: p = 1
    p = np.where(ok, _normal_upper_tail(z, family), 1.0)

    significant = _significant_greater(z, ok, family, threshold)

    assert np.array_equal(significant, threshold.decide(p))
    assert 0 < significant.sum() < ok.sum()
    # the slack is wide enough for the rounding of the tail: the p-value of
    # the band's edges already decides as its side does
    edges = np.array([threshold.z_low, threshold.z_high])
    assert threshold.decide(_normal_upper_tail(edges, family)).tolist() == [
        False,
        True,
    ]


def test_threshold_leaves_holm_and_extreme_levels_to_the_pvalues():
    assert _Threshold.of(0.05, "holm", 342) is None
    assert _Threshold.of(0.9, "none", 342) is None  # critical p above 0.45
    assert _Threshold.of(0.05, "bonferroni", 0) is None


def test_test_then_rank_bootstrap_does_not_import_scipy(tmp_path):
    """scipy.special (for the normal tail of every bootstrap test) took
    0.17 s of CPU to import and 0.14 s to evaluate in the MSD command."""
    rng = np.random.default_rng(3)
    rows = [f"T1,c{i},A{j},DSC,{rng.random():.6f}" for i in range(40) for j in range(6)]
    results = tmp_path / "results.csv"
    results.write_text("task,case,algorithm,metric,value\n" + "\n".join(rows) + "\n")
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "method": "test_then_rank",
        "uncertainty": {"bootstrap": 1000, "seed": 1},
    }
    code = (
        "import json, sys; from ranking import read_table, run_analysis; "
        f"run_analysis(read_table({str(results)!r}), json.loads(sys.argv[1])); "
        "print('scipy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(scheme)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("n_cases", [181, 182])  # 16-bit sums up to 181 cases
@pytest.mark.parametrize("decimals", [1, None])  # 1: tied |d| (32-bit sums)
def test_resample_rank_sums_equal_those_of_the_drawn_cases(n_cases, decimals):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(n_cases, 3)) + np.array([0.0, 0.1, 3.0])
    if decimals is not None:
        x = np.round(x, decimals)
    counts = _counts(rng, 6, n_cases)

    t2, n_eff, tie, _ = PairedDifferences(x).statistics(0, counts)

    for b in range(counts.shape[0]):
        drawn = np.repeat(x, counts[b], axis=0)
        expected = PairedDifferences(drawn).statistics(0, None)
        assert np.array_equal(t2[b], expected[0][0])
        assert np.array_equal(n_eff[b], expected[1][0])
        assert np.array_equal(tie[b], expected[2][0])


@pytest.mark.parametrize("decimals", [0, 1, 12])  # 0, 1: ties and zeros; 12: untied
@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_leave_one_out_rank_sums_equal_those_of_the_general_resample(decimals, missing):
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(size=(25, 5)), decimals)
    x[rng.random(x.shape) < missing] = np.nan
    x[3, :2] = x[3, 2]  # zero differences
    counts = np.concatenate([*leave_one_out_counts(25), np.ones((1, 25), int)])
    prepared = PairedDifferences(x)

    for k in range(len(prepared.chunks)):
        found = prepared.statistics(k, counts)
        expected = _signed_rank_batch(
            _prepare_chunk(*prepared.differences(k)), counts, zeros=True
        )
        for got, want in zip(found, expected, strict=True):
            assert got.dtype == want.dtype
            assert np.array_equal(got, want)


def test_leave_one_out_cases_are_found_only_in_leave_one_out_counts():
    rng = np.random.default_rng(2)
    loo = np.ones((3, 4), dtype=np.int64)
    loo[0, 2] = loo[2, 0] = 0  # row 1 leaves out a case of another target

    assert _leave_one_out_cases(loo).tolist() == [2, 4, 0]
    assert _leave_one_out_cases(_counts(rng, 5, 4)) is None  # bootstrap
    assert _leave_one_out_cases(np.zeros((1, 4), dtype=np.int64)) is None
