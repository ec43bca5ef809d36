"""The test-set planner (issue 29): oracles, determinism, resumption, refusals.

Tolerances: Monte-Carlo estimates are compared with their reference within
3 standard errors (a false alarm about 3 times in 1 000 for a fixed seed;
the seeds are fixed, so a failure is a change of behaviour, not bad luck).
"""

import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import norm

from ranking import run_analysis, significance_ranking
from ranking.cli import main
from ranking.planner import (
    PLAN_BLOCK,
    PlanLimits,
    PlanSpecError,
    plan_blocks,
    prepare_plan,
    recommended_n,
    run_plan,
    simulate_block,
    summarise_plan,
)

from .conftest import frame_from

MEAN_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "aggregate_then_rank",
}
MSD_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "test_then_rank",
    "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "none"},
    "uncertainty": {"bootstrap": 1000, "seed": 1},
}


def _spec(**changes):
    spec = {
        "scheme": MSD_SCHEME,
        "model": {
            "kind": "parametric",
            "means": {"A": 0.8, "B": 0.75, "C": 0.7},
            "sd": 0.1,
            "correlation": 0.5,
        },
        "n": [5, 20],
        "simulations": 150,
        "seed": 7,
    }
    spec.update(changes)
    return spec


@pytest.mark.parametrize("n", [5, 20, 100])
def test_two_algorithms_match_the_normal_oracle(n):
    # Differences A - B are normal with mean δ and sd s·√(2(1 − ρ)).
    delta, sd, rho = 0.1, 0.4, 0.3
    sigma = sd * math.sqrt(2 * (1 - rho))
    plan = run_plan(
        {
            "scheme": MEAN_SCHEME,
            "model": {
                "kind": "parametric",
                "means": {"A": delta, "B": 0.0},
                "sd": sd,
                "correlation": rho,
            },
            "n": [n],
            "simulations": 3000,
            "seed": 11,
        }
    )
    record = plan["n"][0]
    expected = norm.cdf(math.sqrt(n) * delta / sigma)
    assert abs(record["p_winner"] - expected) <= 3 * record["p_winner_se"]


def test_pilot_at_its_own_size_reproduces_bootstrap_winner_stability():
    rng = np.random.default_rng(0)
    skill = np.array([0.80, 0.76, 0.70, 0.60])
    values = np.clip(skill + rng.normal(0, 0.1, size=(25, 4)), 0, 1)
    frame = frame_from(values)
    analysis = run_analysis(frame, MSD_SCHEME).to_json_dict()
    stability = analysis["rankings"]["DSC"]["tasks"]["T1"]["winner_stability"]
    from ranking._validation import validate_table

    plan = run_plan(
        {
            "scheme": MSD_SCHEME,
            "model": {"kind": "pilot", "task": "T1"},
            "n": [25],
            "simulations": 1000,
            "seed": 3,
        },
        results=validate_table(frame),
    )
    record = plan["n"][0]
    se = math.sqrt(record["p_winner_se"] ** 2 + stability * (1 - stability) / 1000)
    assert 0.2 < stability < 0.97  # a case where the check can fail
    assert abs(record["p_winner"] - stability) <= 3 * se


def test_batched_simulations_rank_each_challenge_as_alone():
    # The block-diagonal batches must give each challenge its own ranking.
    prepared = prepare_plan(_spec(n=[12], simulations=30))
    from ranking.planner import _block_rng, _parametric_block

    ranks, matrices = _parametric_block(prepared, 12, 30, _block_rng(prepared, 12, 0))
    alone = np.array(
        [significance_ranking(x, alpha=0.05).ranks for x in matrices], dtype=float
    )
    assert np.array_equal(ranks, alone)


def test_same_seed_gives_byte_identical_plan_whatever_the_workers():
    spec = _spec(scheme={**MSD_SCHEME, "uncertainty": {"rank_ci": ["id_nemenyi"]}})
    one = json.dumps(run_plan(spec, workers=1), sort_keys=True)
    two = json.dumps(run_plan(spec, workers=2), sort_keys=True)
    other_seed = json.dumps(run_plan({**spec, "seed": 8}, workers=1), sort_keys=True)
    assert one == two
    assert one != other_seed


def test_resumed_plan_equals_a_plan_in_one_go():
    spec = _spec(simulations=2 * PLAN_BLOCK + 10)
    whole = run_plan(spec, workers=1)
    prepared = prepare_plan(spec)
    todo = plan_blocks(prepared)
    # A worker stored half the blocks as JSON, was killed, another did the rest
    stored = {
        nb: json.loads(json.dumps(simulate_block(prepared, *nb).to_json_dict()))
        for nb in todo[::2]
    }
    again = prepare_plan(spec)
    from ranking.planner import BlockStats

    blocks = {nb: BlockStats.from_json_dict(d) for nb, d in stored.items()}
    blocks.update({nb: simulate_block(again, *nb) for nb in reversed(todo[1::2])})
    assert json.dumps(summarise_plan(again, blocks)) == json.dumps(whole)


def test_summary_refuses_missing_blocks():
    prepared = prepare_plan(_spec())
    with pytest.raises(ValueError, match="blocks not computed yet"):
        summarise_plan(prepared, {})


def test_stability_grows_with_n_and_recommends_the_first_n_that_reaches_target():
    model = {**_spec()["model"], "sd": 0.3}
    plan = run_plan(
        _spec(
            scheme=MEAN_SCHEME, model=model, n=[5, 40, 200], targets={"p_winner": 0.9}
        )
    )
    p = [r["p_winner"] for r in plan["n"]]
    assert p[0] < p[1] < p[2]
    assert plan["recommended_n"] == next(
        r["n"] for r in plan["n"] if r["p_winner"] >= 0.9
    )


def test_small_test_based_challenge_ties_everyone_first_but_not_alone():
    # With 3 cases no Wilcoxon test is significant (smallest one-sided p ≈ 0.09)
    record = run_plan(_spec(n=[3]))["n"][0]
    assert record["p_winner"] == 1.0
    assert record["p_winner_alone"] == 0.0


def test_recommended_n_needs_every_larger_n_to_meet_the_targets():
    records = [
        {"n": 10, "p_winner": 0.95, "rank_interval_width": 3.0},
        {"n": 20, "p_winner": 0.85, "rank_interval_width": 2.0},
        {"n": 30, "p_winner": 0.92, "rank_interval_width": 2.0},
    ]
    assert recommended_n(records, {"p_winner": 0.9}) == 30
    assert recommended_n(records, {"rank_interval_width": 2}) == 20
    assert recommended_n(records, {"p_winner": 0.99}) is None


def test_output_has_the_contract_fields():
    plan = run_plan(
        _spec(
            scheme={**MSD_SCHEME, "uncertainty": {"rank_ci": ["id_wilcoxon_one_sided"]}}
        )
    )
    for key in ("simulations", "seed", "engine_version", "recommended_n"):
        assert key in plan
    record = plan["n"][1]
    for key in (
        "n",
        "p_winner",
        "p_winner_se",
        "kendall_tau",
        "kendall_tau_se",
        "p_adjacent_swap",
        "rank_interval_width",
    ):
        assert record[key] is not None
    assert 1 <= record["rank_interval_width"] <= 3
    assert record["interval_simulations"] == 150


def test_gap_model_spaces_the_means_in_the_metric_direction():
    prepared = prepare_plan(
        _spec(
            scheme={**MEAN_SCHEME, "higher_is_better": False},
            model={
                "kind": "parametric",
                "algorithms": 3,
                "gap": 0.5,
                "best": 1.0,
                "sd": 1.0,
            },
        )
    )
    assert prepared.means.tolist() == [1.0, 1.5, 2.0]
    assert prepared.truth.tolist() == [1.0, 2.0, 3.0]


def test_missing_results_follow_the_scheme_rule():
    spec = _spec(model={**_spec()["model"], "missing_rate": 0.5}, n=[30])
    plan = run_plan(spec)
    clean = run_plan(_spec(n=[30]))
    assert plan["n"][0]["p_winner"] < clean["n"][0]["p_winner"]


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"n": []}, "n", "non-empty list"),
        ({"n": [1]}, "n", "between 2"),
        ({"n": [10, 10]}, "n", "each value once"),
        ({"simulations": 0}, "simulations", "between 1"),
        ({"seed": -1}, "seed", "between 0"),
        ({"targets": {"p_win": 0.9}}, "targets.p_win", "unknown field"),
        ({"model": {"kind": "guess"}}, "model.kind", "'parametric' or 'pilot'"),
        (
            {"model": {"kind": "parametric", "means": {"A": 1, "B": 0}, "sd": 0}},
            "model.sd",
            "> 0",
        ),
        (
            {
                "model": {
                    "kind": "parametric",
                    "means": {"A": 1, "B": 0},
                    "sd": 1,
                    "correlation": 1,
                }
            },
            "model.correlation",
            "< 1",
        ),
        (
            {
                "scheme": MEAN_SCHEME,
                "model": {
                    "kind": "parametric",
                    "means": {"A": 1, "B": 0},
                    "sd": 1,
                    "missing_rate": 0.1,
                },
            },
            "model.missing_rate",
            "no 'missing' rule",
        ),
        ({"scheme": {"metric": "DSC"}}, "scheme.higher_is_better", ""),
        ({"extra": 1}, "extra", "unknown field"),
    ],
)
def test_bad_spec_is_refused_naming_the_field(changes, field, words):
    with pytest.raises(PlanSpecError) as caught:
        prepare_plan(_spec(**changes))
    assert caught.value.field == field
    assert words in str(caught.value)


def test_limits_bound_the_work():
    limits = PlanLimits(max_n_values=2, max_simulations=100, max_work=1000)
    with pytest.raises(PlanSpecError, match="at most 2 values"):
        prepare_plan(_spec(n=[5, 10, 20]), limits=limits)
    with pytest.raises(PlanSpecError, match="between 1 and 100"):
        prepare_plan(_spec(simulations=150), limits=limits)
    with pytest.raises(PlanSpecError, match="exceeds 1,000"):
        prepare_plan(_spec(simulations=100), limits=limits)


def test_cli_plans_from_a_file_and_from_stdin(tmp_path, capsys, monkeypatch):
    spec = _spec(simulations=50)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    assert main(["plan", str(path)]) == 0
    from_file = capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(spec)))
    assert main(["plan", "-"]) == 0
    from_stdin = capsys.readouterr().out
    assert from_file == from_stdin
    assert json.loads(from_file)["n"][0]["n"] == 5


def test_cli_refuses_a_bad_spec_with_exit_code_2(tmp_path, capsys):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_spec(n="ten")))
    assert main(["plan", str(path)]) == 2
    assert "n: expected a non-empty list" in capsys.readouterr().err


def test_python_m_ranking_plan_pilot_from_a_csv(tmp_path):
    csv = tmp_path / "pilot.csv"
    frame_from([[0.9, 0.5], [0.8, 0.6], [0.85, 0.55], [0.7, 0.65]]).to_csv(
        csv, index=False
    )
    spec = {
        "scheme": MEAN_SCHEME,
        "model": {"kind": "pilot", "results": str(csv), "task": "T1"},
        "n": [4, 8],
        "simulations": 40,
        "seed": 1,
    }
    done = subprocess.run(
        [sys.executable, "-m", "ranking", "plan", "-"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=False,
    )
    plan = json.loads(done.stdout)
    assert done.returncode == 0
    assert plan["model"] == {
        "kind": "pilot",
        "task": "T1",
        "cases": 4,
        "results": str(csv),
    }
    assert plan["true_ranks"] == {"A1": 1.0, "A2": 2.0}


def _pilot_of_two_metrics(dsc_values: np.ndarray) -> str:
    """Task T1 scored only in HD, task T2 in DSC; T1 also has ``dsc_values``
    (all NaN: every DSC result missing) unless it is None."""
    import pandas as pd

    values = np.random.default_rng(7).normal([0.8, 0.75, 0.7], 0.05, size=(8, 3))
    frames = [
        frame_from(values, task="T1", metric="HD", algorithms=["A", "B", "C"]),
        frame_from(values, task="T2", metric="DSC", algorithms=["A", "B", "C"]),
    ]
    if dsc_values is not None:
        frames.append(
            frame_from(dsc_values, task="T1", metric="DSC", algorithms=["A", "B", "C"])
        )
    return pd.concat(frames).to_csv(index=False)


@pytest.mark.parametrize(
    ("dsc_values", "words"),
    [
        (None, "the pilot task 'T1' has no row of it; its metrics are 'HD'"),
        (np.full((8, 3), np.nan), "every value of it in the pilot task 'T1' is"),
    ],
)
def test_pilot_task_without_values_of_the_scheme_metric_is_refused(
    tmp_path, dsc_values, words
):
    # Under aggregate-then-rank the missing rule would fill every value, and
    # the plan would say "the winner is always right" from fill values.
    csv = tmp_path / "pilot.csv"
    csv.write_text(_pilot_of_two_metrics(dsc_values))
    scheme = {**MEAN_SCHEME, "missing": {"policy": "value", "value": 0}}
    model = {"kind": "pilot", "results": str(csv), "task": "T1"}
    spec = {"scheme": scheme, "model": model, "n": [5], "simulations": 10, "seed": 1}
    with pytest.raises(ValueError, match="scheme ranks metric 'DSC'") as caught:
        run_plan(spec)
    assert words in str(caught.value)
    # The task that has the metric is planned from the same table.
    plan = run_plan({**spec, "model": {**model, "task": "T2"}})
    assert plan["model"]["cases"] == 8
