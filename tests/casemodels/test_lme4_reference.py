"""The command line against R's lme4 (glmer / lmer at default settings).

The data sets and the reference numbers are made by
``reference/make_reference.R`` (simulated with known effects; lme4 1.1-31,
R 4.2.2) and stored beside it, so these tests need no R. Tolerances (issue 16):
linear models 1e-4 on estimates and interval bounds, 1e-4 relative on the
variances (the REML criterion is so flat there that lme4's own optimum is not
sharper: our criterion at our optimum is lower than at lme4's); binomial models
0.01 on log-odds estimates, 0.02 on interval bounds (0.05 under 300
observations) and 5 % on random-intercept variances.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from casemodels.cli import main

REFERENCE = Path(__file__).parent / "reference"
DATA_SETS = sorted(p.name for p in REFERENCE.iterdir() if (p / "lme4.json").exists())


def _r_term(term: str) -> str:
    """R's name of a term: ``size=small`` is ``sizesmall`` in lme4."""
    return term.replace("=", "")


@pytest.fixture(scope="module", params=DATA_SETS)
def fitted(request, tmp_path_factory):
    folder = REFERENCE / request.param
    out = tmp_path_factory.mktemp(request.param) / "out.json"
    code = main(
        [
            str(folder / "results.csv"),
            "--metadata",
            str(folder / "metadata.csv"),
            "--spec",
            str(folder / "spec.json"),
            "--output",
            str(out),
        ]
    )
    assert code == 0
    reference = json.loads((folder / "lme4.json").read_text())
    return json.loads(out.read_text()), reference


def _pairs(fitted):
    ours, reference = fitted
    by_key = {(m["scope"], m["algorithm"]): m for m in ours["models"]}
    for ref in reference["models"]:
        yield by_key[(ref["scope"], ref["algorithm"])], ref


def test_reference_data_sets_cover_the_issue():
    assert set(DATA_SETS) >= {
        "binomial_patient",
        "binomial_missing",
        "binomial_near_separation",
        "linear_nested",
        "linear_crossed",
    }


def test_every_reference_model_is_fitted_with_lme4s_observations(fitted):
    ours, reference = fitted
    assert len(ours["models"]) == len(reference["models"])
    assert ours["models"][0]["scope"] == "global"
    for model, ref in _pairs(fitted):
        assert model["n_obs"] == ref["n_obs"]
        assert model["n_groups"] == ref["n_groups"]
        assert model["converged"] is True


def test_estimates_and_intervals_match_lme4(fitted):
    for model, ref in _pairs(fitted):
        linear = model["family"] == "gaussian"
        estimate_tol = 1e-4 if linear else 0.01
        bound_tol = 1e-4 if linear else (0.05 if model["n_obs"] < 300 else 0.02)
        ours = {_r_term(f["term"]): f for f in model["fixed"]}
        assert set(ours) == {f["term"] for f in ref["fixed"]}
        for expected in ref["fixed"]:
            got = ours[expected["term"]]
            assert got["estimate"] == pytest.approx(
                expected["estimate"], abs=estimate_tol
            )
            if ref["messages"]:
                continue  # lme4 did not converge: its Hessian SEs are artefacts
            assert got["ci_low"] == pytest.approx(expected["ci_low"], abs=bound_tol)
            assert got["ci_high"] == pytest.approx(expected["ci_high"], abs=bound_tol)


def test_random_intercept_variances_match_lme4(fitted):
    for model, ref in _pairs(fitted):
        rel = 1e-4 if model["family"] == "gaussian" else 0.05
        assert model["random"] == pytest.approx(ref["random"], rel=rel)
        if model["family"] == "gaussian":
            assert model["residual_variance"] == pytest.approx(
                ref["residual_variance"], rel=rel
            )


def test_odds_ratios_are_exponentials_of_the_log_odds(fitted):
    for model, _ in _pairs(fitted):
        if model["family"] != "binomial":
            continue
        for entry in model["fixed"][1:]:
            assert entry["odds_ratio"] == pytest.approx(math.exp(entry["estimate"]))
            assert entry["or_ci_low"] == pytest.approx(math.exp(entry["ci_low"]))
            assert entry["or_ci_high"] == pytest.approx(math.exp(entry["ci_high"]))


def test_lme4_failure_on_one_model_is_known():
    """foxtrot in binomial_patient: lme4 warns that it did not converge, and its
    finite-difference Hessian gives SE ≈ 0.002 for every term; we converge and
    report Hessian SEs of ordinary size (the reason the other tests skip its
    bounds)."""
    reference = json.loads((REFERENCE / "binomial_patient" / "lme4.json").read_text())
    foxtrot = next(m for m in reference["models"] if m["algorithm"] == "foxtrot")
    assert foxtrot["messages"]
    assert max(f["se"] for f in foxtrot["fixed"]) < 0.01


def test_missing_pattern_is_counted_as_the_contract_says(tmp_path):
    folder = REFERENCE / "binomial_missing"
    out = tmp_path / "out.json"
    args = [str(folder / "results.csv"), "--metadata", str(folder / "metadata.csv")]
    assert main([*args, "--spec", str(folder / "spec.json"), "--output", str(out)]) == 0
    excluded = json.loads(out.read_text())["excluded"]
    assert excluded["cases_without_metadata"] == ["c0005", "c0017"]
    assert excluded["metadata_without_results"] == ["x9999"]
    assert excluded["rows_with_empty_cells"] == 12
    # missing = absent rows and empty values among the modelled cases
    results = pd.read_csv(folder / "results.csv", dtype=str, keep_default_na=False)
    meta = pd.read_csv(folder / "metadata.csv", dtype=str, keep_default_na=False)
    kept = set(meta[(meta != "").all(axis=1)]["case"]) & set(results["case"])
    present = results[results["case"].isin(kept) & (results["value"] != "")]
    expected = len(kept) * results["algorithm"].nunique() - len(present)
    assert excluded["missing_results"] == expected
    assert expected > 40  # both kinds of missing result occur
