"""Robustness audit (seed 004 §4.1, §4.3) on hand-built examples."""

import numpy as np

from ranking import run_analysis

from .conftest import frame_from


def _audit(values, missing):
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "method": "aggregate_then_rank",
        "missing": missing,
    }
    out = run_analysis(frame_from(values), scheme, bootstrap=0, leave_one_out=False)
    return out.to_json_dict()["rankings"]["DSC"]["tasks"]["T1"]


def test_selective_submission_pays_off_only_when_missing_is_ignored():
    # A1: nine cases at 0.79 and one failure (mean 0.711); A2: 0.72 everywhere.
    a1 = np.array([0.79] * 9 + [0.0])
    a2 = np.full(10, 0.72)
    task = _audit(np.column_stack([a1, a2]), {"policy": "value", "value": 0})
    assert task["ranks"] == {"A1": 2, "A2": 1}
    selective = task["audit"]["selective_submission"]
    # withholding its worst 10 % (one case) puts A1 first if missing is ignored
    assert selective["ignore"]["A1"] == {"5": 2, "10": 1, "20": 1}
    # under the registered rule the withheld case counts as 0 again
    assert selective["registered_policy"]["A1"] == {"5": 2, "10": 2, "20": 2}


def test_audit_alternative_schemes_can_change_the_winner():
    # A1 wins on the mean, A2 on the median (and per-case ranks)
    a1 = np.array([1.0, 1.0, 0.1, 0.1, 0.1])
    a2 = np.array([0.2, 0.2, 0.2, 0.2, 0.2])
    task = _audit(np.column_stack([a1, a2]), {"policy": "ignore"})
    assert task["ranks"] == {"A1": 1, "A2": 2}
    by_scheme = {
        (a["method"], a["aggregate"]): a for a in task["audit"]["alternatives"]
    }
    assert by_scheme[("aggregate_then_rank", "median")]["ranks"] == {"A1": 2, "A2": 1}
    assert by_scheme[("aggregate_then_rank", "median")]["kendall_tau"] == -1.0
    assert by_scheme[("rank_then_aggregate", "mean")]["ranks"] == {"A1": 2, "A2": 1}
    assert task["audit"]["rank_range"] == {
        "A1": {"best": 1, "worst": 2},
        "A2": {"best": 1, "worst": 2},
    }
