"""Fits bounded in groupings, iterations and time (issue 30): one fit with 40
crossed groupings had been at 0 % after 16.5 minutes; it is now refused fast
with a message naming the model, its size and what to change."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

from casemodels import (
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_SECONDS,
    CaseModelError,
    fit_case_models,
    prepare_model_data,
)
from casemodels._budget import BudgetExceeded, FitBudget
from casemodels.cli import main


def crossed_groupings(groupings: int, *, cases: int = 240, algorithms: int = 4):
    """(results, metadata, spec): failure depends on blur; ``groupings``
    crossed columns of 6 random levels each, every one a random intercept."""
    rng = np.random.default_rng(2)
    blur = rng.uniform(size=cases).round(3)
    names = [f"c{i:04d}" for i in range(cases)]
    meta = {"case": names, "blur": blur.astype(str)}
    for g in range(groupings):
        meta[f"g{g:02d}"] = [f"l{v}" for v in rng.integers(0, 6, cases)]
    rows = []
    for a in range(algorithms):
        fail = rng.uniform(size=cases) < 1 / (1 + np.exp(1 - 2 * blur))
        rows += [
            ("T", names[i], f"alg{a}", "DSC", "0.2" if fail[i] else "0.9")
            for i in range(cases)
        ]
    results = pd.DataFrame(
        rows, columns=["task", "case", "algorithm", "metric", "value"]
    )
    spec = {
        "metric": "DSC",
        "outcome": {"type": "failure", "below": 0.5},
        "characteristics": ["blur"],
        "groups": [f"g{g:02d}" for g in range(groupings)],
    }
    return results, pd.DataFrame(meta), spec


def test_forty_crossed_groupings_stop_fast_at_the_time_bound():
    results, meta, spec = crossed_groupings(40)
    start = time.monotonic()
    with pytest.raises(CaseModelError) as refused:
        fit_case_models(results, meta, spec, max_groupings=40, max_seconds=1.0)
    elapsed = time.monotonic() - start
    # one PIRLS step past the bound at most (≈ 0.1-0.5 s here; a loaded machine)
    assert elapsed < 8.0
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(
        "41 crossed groupings (g00, g01, g02, g03, …, algorithm; 244 levels), "
        "960 observations, 2 fixed effects: the global model did not converge "
        "within 1 s (the time limit; "
    )
    assert message.endswith(
        "; use fewer grouping factors (each is a crossed random intercept; 40 named "
        "now), fewer characteristics or fewer algorithms"
    )


def test_forty_crossed_groupings_are_refused_before_fitting_by_default():
    results, meta, spec = crossed_groupings(40, cases=30)
    start = time.monotonic()
    with pytest.raises(CaseModelError) as refused:
        prepare_model_data(results, meta, spec)
    assert time.monotonic() - start < 2.0
    assert str(refused.value) == (
        "the specification names 40 groupings; the limit is 10 (each grouping is a "
        "crossed random intercept and the fit's cost grows steeply with their "
        "number: use fewer grouping factors)"
    )


def test_iteration_bound_stops_a_model_and_names_it():
    results, meta, spec = crossed_groupings(1, cases=120)
    with pytest.raises(CaseModelError) as refused:
        fit_case_models(results, meta, spec, max_iterations=5, max_seconds=None)
    message = str(refused.value)
    assert message.startswith(
        "2 crossed groupings (g00, algorithm; 10 levels), 480 observations, "
        "2 fixed effects: the global model did not converge in 5 iterations "
        "(the iteration limit; "
    )
    assert message.endswith(
        "; use fewer characteristics, merge rare levels or model fewer algorithms"
    )


def test_budget_counts_iterations_and_seconds_with_its_own_clock():
    now = [0.0]
    budget = FitBudget(max_iterations=3, max_seconds=10.0, clock=lambda: now[0])
    for _ in range(3):
        budget.iteration()
    with pytest.raises(BudgetExceeded) as past:
        budget.iteration()
    assert (past.value.kind, past.value.limit) == ("iterations", 3)
    budget.new_model()
    budget.iteration()
    now[0] = 10.5
    with pytest.raises(BudgetExceeded) as late:
        budget.check_time()
    assert (late.value.kind, late.value.iterations, late.value.elapsed) == (
        "seconds",
        1,
        10.5,
    )


def test_interrupt_stops_the_fit_from_outside():
    class StopError(Exception):
        pass

    def interrupt():
        raise StopError

    results, meta, spec = crossed_groupings(1, cases=60)
    with pytest.raises(StopError):
        fit_case_models(results, meta, spec, interrupt=interrupt)


@pytest.mark.parametrize("bound", ["max_iterations", "max_seconds"])
def test_bounds_must_be_positive(bound):
    with pytest.raises(ValueError, match=f"{bound} must be positive"):
        FitBudget(**{bound: 0})


def test_defaults_are_documented_numbers():
    assert (DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_SECONDS) == (20_000, 300.0)


def test_command_line_stops_at_its_time_bound_with_one_line(tmp_path, capsys):
    results, meta, spec = crossed_groupings(8, cases=120)
    results.to_csv(tmp_path / "results.csv", index=False)
    meta.to_csv(tmp_path / "meta.csv", index=False)
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    code = main(
        [
            str(tmp_path / "results.csv"),
            "--metadata",
            str(tmp_path / "meta.csv"),
            "--spec",
            str(tmp_path / "spec.json"),
            "--output",
            str(tmp_path / "out.json"),
            "--max-seconds",
            "0.5",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(
        "error: 9 crossed groupings (g00, g01, g02, g03, …, algorithm;"
    )
    assert "did not converge within 0.5 s (the time limit;" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out.json").exists()
