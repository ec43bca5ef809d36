"""run_analysis end to end: output shape, targets, consensus, policies, refusal."""

import json

import numpy as np
import pandas as pd
import pytest

from ranking import MissingResultsError, run_analysis
from tests.schemes import mean_scheme, msd_scheme

from .conftest import frame_from

NAN = np.nan


def _task(out, task="T1", key="DSC"):
    return out.to_json_dict()["rankings"][key]["tasks"][task]


def test_run_analysis_output_has_contract_keys():
    frame = frame_from([[0.9, 0.8], [0.7, 0.6], [0.8, 0.5]])
    out = run_analysis(frame, mean_scheme(), bootstrap=10, seed=1)
    data = out.to_json_dict()
    assert sorted(data) == ["rankings", "scheme"]
    assert data["scheme"]["uncertainty"] == {
        "bootstrap": 10,
        "seed": 1,
        "rank_ci": [],
        "alpha": 0.05,
    }
    task = data["rankings"]["DSC"]["tasks"]["T1"]
    for key in ("ranks", "scores", "bootstrap", "kendall_tau", "winner_stability"):
        assert key in task
    assert task["ranks"] == {"A1": 1, "A2": 2}
    assert task["scores"]["A1"] == pytest.approx(0.8, abs=1e-12)
    assert task["significance"] == {"A1": {"A2": False}, "A2": {"A1": False}}
    json.dumps(data, allow_nan=False)


def test_run_analysis_refuses_missing_without_rule():
    frame = frame_from([[0.9, NAN, 0.1], [0.7, 0.6, NAN]])
    with pytest.raises(MissingResultsError, match="affected algorithms: A2, A3"):
        run_analysis(frame, mean_scheme(), bootstrap=0)


def test_run_analysis_absent_row_counts_as_missing():
    frame = frame_from([[0.9, 0.8], [0.7, 0.6]]).iloc[:-1]  # drop (c002, A2)
    with pytest.raises(MissingResultsError, match="A2"):
        run_analysis(frame, mean_scheme(), bootstrap=0)
    out = run_analysis(
        frame, mean_scheme(missing={"policy": "value", "value": 0}), bootstrap=0
    )
    assert _task(out)["scores"]["A2"] == pytest.approx(0.4, abs=1e-12)


@pytest.mark.parametrize(
    ("missing", "method", "scores"),
    [
        ({"policy": "value", "value": 0}, "aggregate_then_rank", [0.5, 0.45]),
        ({"policy": "ignore"}, "aggregate_then_rank", [0.5, 0.9]),
        ({"policy": "last_rank"}, "rank_then_aggregate", [1.5, 1.5]),
        ({"policy": "ignore"}, "rank_then_aggregate", [1.5, 1.0]),
    ],
)
def test_run_analysis_missing_policies(missing, method, scores):
    frame = frame_from([[0.2, 0.9], [0.8, NAN]])
    out = run_analysis(frame, mean_scheme(missing=missing, method=method), bootstrap=0)
    got = _task(out)["scores"]
    assert [got["A1"], got["A2"]] == pytest.approx(scores, abs=1e-12)


def test_run_analysis_targets_mean_rank_and_consensus():
    # target "edema": A1 > A2 > A3; target "core": A2 > A3 > A1
    edema = frame_from([[0.9, 0.8, 0.7]], target="edema")
    core = frame_from([[0.1, 0.8, 0.7]], target="core")
    task2 = frame_from([[0.5, 0.6, 0.7]], task="T2")
    task2.insert(1, "target", "")
    frame = pd.concat([edema, core, task2], ignore_index=True)
    out = run_analysis(frame, mean_scheme(consensus="mean_rank"), bootstrap=0)
    data = out.to_json_dict()["rankings"]["DSC"]
    t1 = data["tasks"]["T1"]
    assert t1["targets"]["edema"]["ranks"] == {"A1": 1, "A2": 2, "A3": 3}
    assert t1["targets"]["core"]["ranks"] == {"A1": 3, "A2": 1, "A3": 2}
    assert t1["scores"] == {"A1": 2.0, "A2": 1.5, "A3": 2.5}
    assert t1["ranks"] == {"A1": 2, "A2": 1, "A3": 3}
    assert data["tasks"]["T2"]["ranks"] == {"A1": 3, "A2": 2, "A3": 1}
    # consensus: mean of task ranks 2.5, 1.5, 2.0
    assert data["consensus"]["scores"] == {"A1": 2.5, "A2": 1.5, "A3": 2.0}
    assert data["consensus"]["ranks"] == {"A1": 3, "A2": 1, "A3": 2}


def test_run_analysis_consensus_mean_average_rank_uses_average_ties():
    t1 = frame_from([[0.9, 0.9, 0.1]], task="T1")  # ranks 1, 1, 3 (min)
    t2 = frame_from([[0.1, 0.5, 0.9]], task="T2")  # ranks 3, 2, 1
    frame = pd.concat([t1, t2], ignore_index=True)
    mean_rank = run_analysis(frame, mean_scheme(consensus="mean_rank"), bootstrap=0)
    average = run_analysis(
        frame, mean_scheme(consensus="mean_average_rank"), bootstrap=0
    )
    assert mean_rank.to_json_dict()["rankings"]["DSC"]["consensus"]["scores"] == {
        "A1": 2.0,
        "A2": 1.5,
        "A3": 2.0,
    }
    assert average.to_json_dict()["rankings"]["DSC"]["consensus"]["scores"] == {
        "A1": 2.25,
        "A2": 1.75,
        "A3": 2.0,
    }


def test_run_analysis_several_metrics_separate_and_combined():
    dsc = frame_from([[0.9, 0.8, 0.7], [0.8, 0.7, 0.6]], metric="DSC")
    hd = frame_from([[9.0, 1.0, 5.0], [8.0, 2.0, 4.0]], metric="HD")
    frame = pd.concat([dsc, hd], ignore_index=True)
    directions = {"DSC": True, "HD": False}
    separate = run_analysis(
        frame,
        mean_scheme(metric=["DSC", "HD"], higher_is_better=directions),
        bootstrap=0,
    ).to_json_dict()
    assert sorted(separate["rankings"]) == ["DSC", "HD"]
    assert separate["rankings"]["HD"]["tasks"]["T1"]["ranks"] == {
        "A1": 3,
        "A2": 1,
        "A3": 2,
    }
    combined = run_analysis(
        frame,
        mean_scheme(
            metric=["DSC", "HD"], higher_is_better=directions, combine="mean_rank"
        ),
        bootstrap=5,
        seed=1,
    ).to_json_dict()
    task = combined["rankings"]["combined"]["tasks"]["T1"]
    # DSC ranks 1, 2, 3; HD ranks 3, 1, 2 -> means 2, 1.5, 2.5
    assert task["scores"] == {"A1": 2.0, "A2": 1.5, "A3": 2.5}
    assert task["ranks"] == {"A1": 2, "A2": 1, "A3": 3}


def test_run_analysis_msd_scheme_na_worst_value_and_subtasks():
    i = np.arange(10)
    a = 0.9 - 0.001 * i
    b = a - 0.1 - 0.001 * i
    c = b - 0.01 * (i + 1) * (-1.0) ** i
    c[0] = NAN  # N/A -> 0 (worst DSC); B - C stays non-significant (T+ = 30)
    edema = frame_from(np.column_stack([a, b, c]), target="edema")
    core = frame_from(np.column_stack([b, a, c - 0.2]), target="core")
    frame = pd.concat([edema, core], ignore_index=True)
    scheme = msd_scheme(uncertainty={"bootstrap": 20, "seed": 1})
    task = _task(run_analysis(frame, scheme))
    assert task["targets"]["edema"]["scores"] == {"A1": 2, "A2": 0, "A3": 0}
    assert task["targets"]["edema"]["ranks"] == {"A1": 1, "A2": 2, "A3": 2}
    assert task["targets"]["core"]["ranks"] == {"A1": 2, "A2": 1, "A3": 3}
    assert task["targets"]["edema"]["significance"]["A1"] == {"A2": True, "A3": True}
    # mean significance ranks 1.5, 1.5, 2.5
    assert task["scores"] == {"A1": 1.5, "A2": 1.5, "A3": 2.5}
    assert task["ranks"] == {"A1": 1, "A2": 1, "A3": 3}


def test_run_analysis_average_ties_give_fractional_ranks():
    frame = frame_from([[0.5, 0.5, 0.1]])
    out = run_analysis(frame, mean_scheme(ties="average"), bootstrap=0)
    assert _task(out)["ranks"] == {"A1": 1.5, "A2": 1.5, "A3": 3.0}


def test_run_analysis_reports_progress_up_to_one():
    frame = pd.concat(
        [frame_from([[0.9, 0.8]], task=t) for t in ("T1", "T2", "T3")],
        ignore_index=True,
    )
    seen = []
    run_analysis(frame, mean_scheme(), bootstrap=0, progress=seen.append)
    assert seen == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_run_analysis_is_byte_identical_under_row_shuffle():
    rng = np.random.default_rng(0)
    values = rng.random((15, 4))
    values[3, 1] = NAN
    frame = frame_from(values)
    scheme = mean_scheme(missing={"policy": "ignore"}, method="test_then_rank")
    one = run_analysis(frame, scheme, bootstrap=30, seed=2).to_json_dict()
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    two = run_analysis(shuffled, scheme, bootstrap=30, seed=2).to_json_dict()
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_run_analysis_unknown_metric_is_refused():
    with pytest.raises(ValueError, match="metric 'NSD' of the scheme has no row"):
        run_analysis(frame_from([[1.0, 2.0]]), mean_scheme(metric="NSD"), bootstrap=0)


def test_run_analysis_audit_alternatives_and_selective_submission():
    frame = frame_from([[0.9, 0.5], [0.9, 0.6], [0.1, 0.7], [0.9, 0.5]])
    scheme = mean_scheme(missing={"policy": "value", "value": 0})
    audit = _task(run_analysis(frame, scheme, bootstrap=0))["audit"]
    assert len(audit["alternatives"]) == 5
    registered = [a for a in audit["alternatives"] if a["registered"]]
    assert [(a["method"], a["aggregate"]) for a in registered] == [
        ("aggregate_then_rank", "mean")
    ]
    # means 0.7 vs 0.575 -> A1 first; medians 0.9 vs 0.55 -> A1 first
    assert audit["rank_range"]["A1"] == {"best": 1, "worst": 1}
    selective = audit["selective_submission"]
    assert selective["percents"] == [5, 10, 20]
    # 20 % of 4 cases = 0 cases (floor), so nothing changes
    assert selective["ignore"]["A2"] == {"5": 2, "10": 2, "20": 2}
