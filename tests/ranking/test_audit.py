"""Robustness audit (seed 004 §4.1, §4.3) on hand-built examples."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking import parse_scheme, run_analysis, withheld_ranks
from ranking._core import build_tasks

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


def _withheld_by_recomputing(task, scheme, metric, policy):
    """Reference for ``withheld_ranks``: every variant's task ranked anew."""
    from ranking._core import MatrixRule, metric_task_ranking
    from ranking.audit import DEFAULT_WITHHOLD_PERCENT, _withhold

    effective = policy or scheme.missing.policy
    rule = MatrixRule.from_scheme(scheme, metric).with_(policy=effective)
    value = scheme.missing.value[metric] if effective == "value" else None
    out = {}
    for j, alg in enumerate(task.algorithms):
        out[alg] = {}
        for pct in DEFAULT_WITHHOLD_PERCENT:
            mats = {}
            for t in task.targets:
                x = _withhold(task.raw[metric][t], j, pct, rule.higher_is_better)
                mats[t] = x if value is None else np.where(np.isnan(x), value, x)
            rank = metric_task_ranking(
                task, metric, rule, None, targets_rule=scheme.targets, values=mats
            )[0][j]
            out[alg][str(pct)] = int(rank) if float(rank).is_integer() else rank
    return out


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    method=st.sampled_from(["aggregate_then_rank", "rank_then_aggregate"]),
    aggregate=st.sampled_from(["mean", "median", {"quantile": 0.25}]),
    ties=st.sampled_from(["min", "average", "max"]),
    targets=st.sampled_from([None, "mean_rank", "mean_average_rank"]),
    policy=st.sampled_from(["value", "ignore", "last_rank"]),
    higher_is_better=st.booleans(),
)
def test_updated_withheld_ranks_equal_ranking_every_variant_anew(
    data, method, aggregate, ties, targets, policy, higher_is_better
):
    # Few distinct values (ties) and missing results, one or two targets.
    n = data.draw(st.integers(5, 30))  # 20 % of 5 cases withholds one
    m = data.draw(st.integers(2, 6))
    cell = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.just(np.nan))
    frames = []
    for target in ["liver", "tumour"] if targets else [None]:
        values = np.array(
            data.draw(
                st.lists(st.lists(cell, min_size=m, max_size=m), min_size=n, max_size=n)
            )
        )
        values[0] = 0.5  # every algorithm has a result somewhere
        frames.append(frame_from(values, target=target))
    if policy == "last_rank" and method != "rank_then_aggregate":
        policy = "ignore"
    scheme = parse_scheme(
        {
            "metric": "DSC",
            "higher_is_better": higher_is_better,
            "method": method,
            "aggregate": aggregate,
            "ties": ties,
            **({"targets": targets} if targets else {}),
            "missing": {
                "policy": policy,
                **({"value": 0} if policy == "value" else {}),
            },
        }
    )
    (task,) = build_tasks(pd.concat(frames, ignore_index=True), scheme)
    for registered_or_ignore in (None, "ignore"):
        assert withheld_ranks(
            task, scheme, "DSC", policy=registered_or_ignore
        ) == _withheld_by_recomputing(task, scheme, "DSC", registered_or_ignore)
