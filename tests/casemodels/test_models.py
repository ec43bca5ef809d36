"""Non-estimable models, the specification's checks and the command line's
errors (no R needed: these are decided by the data, not by estimates)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from casemodels import CaseModelError, fit_case_models, parse_spec
from casemodels.cli import main


def _tables(fail, *, blur, patient, algorithms=("a", "b")):
    """Results (DSC 0.2 for a failure, 0.9 otherwise) and metadata."""
    n = len(blur)
    cases = [f"c{i:03d}" for i in range(n)]
    rows = [
        {
            "task": "T",
            "case": c,
            "algorithm": a,
            "metric": "DSC",
            "value": "0.2" if fail[j][i] else "0.9",
        }
        for j, a in enumerate(algorithms)
        for i, c in enumerate(cases)
    ]
    meta = pd.DataFrame({"case": cases, "blur": blur, "patient": patient})
    return pd.DataFrame(rows), meta.astype(str)


SPEC = {
    "metric": "DSC",
    "outcome": {"type": "failure", "below": 0.5},
    "characteristics": ["blur"],
    "groups": ["patient"],
}


def test_perfect_separation_is_reported_never_estimated():
    blur = [0, 1] * 20
    fail = [[b == 1 for b in blur]] * 2  # every blurred case fails, no other
    results, meta = _tables(fail, blur=blur, patient=[f"p{i % 8}" for i in range(40)])
    out = fit_case_models(results, meta, SPEC)
    for model in out["models"]:
        assert model["converged"] is False
        assert "separation" in model["warnings"][0]
        assert all(f["estimate"] is None and f["se"] is None for f in model["fixed"])
        assert model["fixed"][1]["odds_ratio"] is None


def test_all_successes_is_reported():
    rng = np.random.default_rng(3)
    blur = rng.uniform(size=30).round(3)
    results, meta = _tables(
        [[False] * 30] * 2, blur=blur, patient=[f"p{i % 5}" for i in range(30)]
    )
    out = fit_case_models(results, meta, SPEC)
    assert [m["converged"] for m in out["models"]] == [False, False, False]
    assert out["models"][1]["warnings"] == [
        "Every observation is a success: the odds cannot be estimated."
    ]


def test_singular_fit_is_reported_with_null_estimates():
    rng = np.random.default_rng(5)
    n = 400
    blur = rng.uniform(size=n).round(3)
    # failures independent of the patient: its variance is estimated as zero
    fail = [rng.uniform(size=n) < 1 / (1 + np.exp(-(-1 + 2 * blur))) for _ in "ab"]
    results, meta = _tables(fail, blur=blur, patient=[f"p{i % 40}" for i in range(n)])
    out = fit_case_models(results, meta, SPEC)
    singular = [
        m
        for m in out["models"]
        if m["warnings"][:1] and m["warnings"][0].startswith("Singular fit")
    ]
    assert singular, "expected a boundary fit for the patient intercept"
    for model in singular:
        assert model["converged"] is False
        assert model["random"]["patient"] is None
        assert model["fixed"][1]["estimate"] is None


def test_failure_above_threshold_for_smaller_is_better_metrics():
    spec = parse_spec({**SPEC, "outcome": {"type": "failure", "above": 5}})
    assert spec.failed(5.1) is True
    assert spec.failed(5.0) is False


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"characteristics": ["nope"]}, "unknown column 'nope' in the metadata"),
        ({"task": "X"}, "unknown task 'X'"),
        ({"metric": "HD"}, "unknown metric 'HD'"),
        ({"algorithms": {"top": 2}}, "needs the ranking scheme"),
        ({"algorithms": ["zz"]}, "unknown algorithm 'zz'"),
        ({"outcome": {"type": "value"}, "missing": "failure"}, "only drop"),
        ({"characteristics": [{"column": "blur", "reference": "x"}]}, "categorical"),
    ],
)
def test_bad_specifications_are_named(change, message):
    results, meta = _tables(
        [[True, False] * 5] * 2, blur=[0, 1] * 5, patient=["p1", "p2"] * 5
    )
    with pytest.raises(CaseModelError, match=message.replace("(", r"\(")):
        fit_case_models(results, meta, {**SPEC, **change})


def test_one_level_characteristic_is_refused():
    results, meta = _tables(
        [[True, False] * 5] * 2, blur=[1] * 10, patient=["p1", "p2"] * 5
    )
    with pytest.raises(CaseModelError, match="'blur' has one level"):
        fit_case_models(results, meta, SPEC)


def test_top_k_follows_the_registered_ranking(tmp_path):
    rng = np.random.default_rng(8)
    n = 120
    blur = rng.uniform(size=n).round(3)
    fail = [rng.uniform(size=n) < p for p in (0.1, 0.5, 0.3)]
    results, meta = _tables(
        fail,
        blur=blur,
        patient=[f"p{i % 12}" for i in range(n)],
        algorithms=("a", "b", "c"),
    )
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "missing": {"policy": "value", "value": 0},
        "method": "aggregate_then_rank",
        "uncertainty": {"bootstrap": 0},
    }
    out = fit_case_models(
        results, meta, {**SPEC, "algorithms": {"top": 2}}, scheme=scheme
    )
    assert out["spec"]["algorithms_modelled"] == ["a", "c"]
    assert [m["algorithm"] for m in out["models"]] == [None, "a", "c"]


def test_command_line_errors_are_one_line_with_status_2(tmp_path, capsys):
    results, meta = _tables(
        [[True, False] * 5] * 2, blur=[0, 1] * 5, patient=["p1", "p2"] * 5
    )
    results.to_csv(tmp_path / "r.csv", index=False)
    meta.to_csv(tmp_path / "m.csv", index=False)
    (tmp_path / "s.json").write_text(json.dumps({**SPEC, "characteristics": ["x"]}))
    code = main(
        [
            str(tmp_path / "r.csv"),
            "--metadata",
            str(tmp_path / "m.csv"),
            "--spec",
            str(tmp_path / "s.json"),
            "--output",
            str(tmp_path / "o.json"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err == "error: unknown column 'x' in the metadata\n"
    assert not (tmp_path / "o.json").exists()


def test_engine_imports_without_django():
    code = "import sys, casemodels; print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_top_k_ranks_only_the_modelled_task():
    rng = np.random.default_rng(9)
    n = 60
    blur = rng.uniform(size=n).round(3)
    fail = [rng.uniform(size=n) < p for p in (0.2, 0.6, 0.4)]
    results, meta = _tables(
        fail, blur=blur, patient=[f"p{i % 6}" for i in range(n)], algorithms="abc"
    )
    other = results.assign(task="U", metric="HD95")  # a task without DSC
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "method": "aggregate_then_rank",
        "uncertainty": {"bootstrap": 0},
    }
    spec = {**SPEC, "task": "T", "algorithms": {"top": 1}, "per_algorithm": False}
    both = pd.concat([results, other], ignore_index=True)
    out = fit_case_models(both, meta, spec, scheme=scheme)
    assert out["spec"]["algorithms_modelled"] == ["a"]


def test_linear_log_likelihood_is_the_reml_log_likelihood_of_the_fitted_model():
    # An independent computation from the dense marginal covariance:
    # V = σ²I + σ_g² ZZ', REML ℓ = −½[(n−p)log 2π + log|V| + log|X'V⁻¹X| + r'V⁻¹r].
    rng = np.random.default_rng(7)
    n_patients, per_patient = 12, 5
    patient = np.repeat(np.arange(n_patients), per_patient)
    blur = rng.uniform(size=patient.size).round(3)
    value = 0.6 + 0.2 * blur + rng.normal(0, 0.1, n_patients)[patient]
    value += rng.normal(0, 0.05, patient.size)
    cases = [f"c{i:03d}" for i in range(patient.size)]
    results = pd.DataFrame(
        {
            "task": "T",
            "case": cases,
            "algorithm": "a",
            "metric": "DSC",
            "value": [repr(float(v)) for v in value.round(6)],
        }
    )
    metadata = pd.DataFrame(
        {"case": cases, "blur": blur.astype(str), "patient": patient.astype(str)}
    )
    spec = {
        "metric": "DSC",
        "outcome": {"type": "value"},
        "characteristics": ["blur"],
        "groups": ["patient"],
    }
    (model,) = [
        m
        for m in fit_case_models(results, metadata, spec)["models"]
        if m["scope"] != "global"
    ]
    y = np.array([float(v) for v in results["value"]])
    X = np.column_stack([np.ones(y.size), blur])
    Z = (patient[:, None] == np.arange(n_patients)).astype(float)
    beta = np.array([f["estimate"] for f in model["fixed"]])
    V = (
        model["residual_variance"] * np.eye(y.size)
        + model["random"]["patient"] * Z @ Z.T
    )
    Vinv = np.linalg.inv(V)
    r = y - X @ beta
    reml = -0.5 * (
        (y.size - 2) * np.log(2 * np.pi)
        + np.linalg.slogdet(V)[1]
        + np.linalg.slogdet(X.T @ Vinv @ X)[1]
        + r @ Vinv @ r
    )
    assert model["log_likelihood"] == pytest.approx(reml, rel=1e-8)
