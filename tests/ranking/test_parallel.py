"""Worker threads and shared work never change a number of the output."""

import json

import numpy as np
import pytest

from ranking import run_analysis
from ranking._bounded import decisions, significant_pairs
from ranking._parallel import WORKERS_ENV, default_workers, parallel_map
from ranking.significance import (
    PairedDifferences,
    column_variant_pvalues,
    pairs_with,
    pairwise_wilcoxon,
)
from ranking.simulate import msd_like
from tests.schemes import msd_scheme

SCHEME = msd_scheme(
    without=("ties", "targets"),
    test={"name": "wilcoxon", "alpha": 0.05, "p_adjust": "holm"},
    uncertainty={"bootstrap": 200, "seed": 3},
)


def _output(frame, scheme, workers):
    result = run_analysis(frame, scheme, workers=workers)
    return json.dumps(result.to_json_dict(), sort_keys=True)


@pytest.mark.parametrize("method", ["test_then_rank", "aggregate_then_rank"])
def test_one_and_two_workers_give_identical_output(method):
    frame = msd_like(n_tasks=4, n_algorithms=6, n_cases=30, missing_rate=0.1, seed=2)
    frame["value"] = frame["value"].round(1)  # tied |differences| too
    scheme = {**SCHEME, "method": method}
    assert _output(frame, scheme, 1) == _output(frame, scheme, 2)


def test_workers_from_the_environment(monkeypatch):
    monkeypatch.setenv(WORKERS_ENV, "3")
    assert default_workers() == 3
    monkeypatch.setenv(WORKERS_ENV, "many")
    with pytest.raises(ValueError, match=WORKERS_ENV):
        default_workers()
    monkeypatch.delenv(WORKERS_ENV)
    assert 1 <= default_workers() <= 4


def test_parallel_map_keeps_order_and_raises_the_first_failure():
    assert list(parallel_map(lambda v: v * v, range(9), 3)) == [v * v for v in range(9)]

    def fail_from_four(v):
        if v >= 4:
            raise ValueError(f"item {v}")
        return v

    with pytest.raises(ValueError, match="item 4"):
        list(parallel_map(fail_from_four, range(9), 3))


@pytest.mark.parametrize("decimals", [1, 12])
def test_the_pairs_of_one_column_as_when_all_pairs_are_tested(decimals):
    rng = np.random.default_rng(4)
    x = np.round(rng.normal(size=(40, 7)), decimals)
    x[[2, 5], 3] = np.nan
    full = pairwise_wilcoxon(x, method="exact")
    some = pairwise_wilcoxon(
        x, method="exact", pairs=PairedDifferences(x, pairs_with(7, 3))
    )
    assert np.array_equal(some[3], full[3], equal_nan=True)
    assert np.array_equal(some[:, 3], full[:, 3], equal_nan=True)
    others = np.delete(np.delete(some, 3, axis=0), 3, axis=1)
    assert np.isnan(others).all()


@pytest.mark.parametrize("p_adjust", ["none", "holm", "bonferroni"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bracketed_decisions_equal_the_exact_ones(p_adjust, seed):
    rng = np.random.default_rng(seed)
    n, m = 400, 12
    skill = rng.permutation(np.linspace(0.0, 0.4, m))
    x = skill[None, :] + rng.normal(size=(n, m))
    x[rng.random(x.shape) < 0.05] = np.nan
    x[:, 3] = np.round(x[:, 3], 1)  # ties and zero differences
    x[:, 4] = x[:, 5]
    for hib in (True, False):
        exact = decisions(
            pairwise_wilcoxon(x, higher_is_better=hib), alpha=0.05, p_adjust=p_adjust
        )
        bracketed = significant_pairs(
            x, alpha=0.05, p_adjust=p_adjust, higher_is_better=hib, min_cases=1
        )
        assert np.array_equal(bracketed, exact)
        assert 0 < exact.sum() < m * (m - 1)  # some decisions each way


@pytest.mark.parametrize("method", ["approx", "exact"])
def test_column_variants_as_when_the_column_is_replaced(method):
    rng = np.random.default_rng(6)
    x = np.round(rng.normal(size=(30, 5)), 1)
    x[[1, 7], 2] = np.nan
    columns = np.array([0, 2, 2, 4])
    variants = np.round(rng.normal(size=(30, 4)), 1)
    variants[[3, 4], 1] = np.nan
    got = column_variant_pvalues(
        x, columns, variants, higher_is_better=False, method=method
    )
    for v, j in enumerate(columns):
        replaced = x.copy()
        replaced[:, j] = variants[:, v]
        want = pairwise_wilcoxon(replaced, higher_is_better=False, method=method)
        assert np.array_equal(got[v, j], want[j], equal_nan=True)
        assert np.array_equal(got[v, :, j], want[:, j], equal_nan=True)


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [
        pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"
    ]


def test_workers_run_with_one_blas_thread_and_nested_maps_restore_it():
    before = _blas_threads()

    def inner(item):
        return [(item, x, _blas_threads()) for x in parallel_map(str, "ab", workers=2)]

    seen = [row for rows in parallel_map(inner, [1, 2, 3], workers=2) for row in rows]
    assert {tuple(threads) for *_, threads in seen} == {tuple(1 for _ in before)}
    assert _blas_threads() == before  # whatever order the nested maps ended in
