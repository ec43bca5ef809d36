"""Descriptive statistics and download tables, checked by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.reports import audit_findings, descriptive_statistics, report_tables


def _tiny() -> pd.DataFrame:
    # Cases c1..c5. A: 1, 2, 3, 4 and c5 empty. B: 2, 2, 2, c4 absent, 10.
    rows = [("c1", "A", "1"), ("c2", "A", "2"), ("c3", "A", "3"), ("c4", "A", "4")]
    rows += [("c5", "A", ""), ("c1", "B", "2"), ("c2", "B", "2"), ("c3", "B", "2")]
    rows += [("c5", "B", "10")]
    return pd.DataFrame(
        [
            {"task": "T", "case": c, "algorithm": a, "metric": "DSC", "value": v}
            for c, a, v in rows
        ]
    )


def test_descriptive_statistics_match_hand_computation():
    a, b = descriptive_statistics(_tiny())
    # A: mean 2.5; SD sqrt(5/3) with n - 1; type-7 quartiles 1.75 and 3.25.
    assert (a.algorithm, a.n, a.missing) == ("A", 4, 1)
    assert a.mean == 2.5
    assert a.sd == pytest.approx(math.sqrt(5 / 3), abs=1e-12)
    assert (a.median, a.q1, a.q3, a.iqr) == (2.5, 1.75, 3.25, 1.5)
    # B: an absent row counts as missing; SD sqrt(48/3) = 4; Q3 = 2 + 0.25 * 8.
    assert (b.algorithm, b.n, b.missing) == ("B", 4, 1)
    assert b.mean == 4.0
    assert b.sd == pytest.approx(4.0, abs=1e-12)
    assert (b.median, b.q1, b.q3, b.iqr) == (2.0, 2.0, 4.0, 2.0)


def test_descriptive_statistics_single_value_has_no_sd():
    frame = _tiny()
    frame = frame[(frame["algorithm"] == "A") & (frame["case"] == "c1")]
    (only,) = descriptive_statistics(frame)
    assert (only.n, only.mean, only.sd, only.iqr) == (1, 1.0, None, 0.0)


def test_report_tables_rows_per_task_and_algorithm(ideal_run):
    results, output = ideal_run
    tables = report_tables(output, statistics=descriptive_statistics(results))
    brain = [r for r in tables["rankings"] if r["task"] == "Brain"]
    assert [r["algorithm"] for r in brain] == ["A1", "A2", "A3", "A4", "A5"]
    assert brain[0]["rank"] == 1
    assert brain[0]["rank_ci_id_wilcoxon_one_sided_lower"] == 1
    assert brain[0]["bootstrap_median_rank"] == 1
    assert len(tables["rankings"]) == 15
    assert next(r["algorithm"] for r in tables["consensus"]) == "A1"
    assert len(tables["descriptive_statistics"]) == 15


def test_a_merged_output_reads_each_tasks_own_scheme():
    """Tasks ranked under different schemes (compute_output's merge): the audit
    quotes each task's own missing rule; the merge has no consensus rows."""

    def withholding(gain_rank):
        return {
            "ranks": {"A": 2, "B": 1},
            "scores": {"A": 0.8, "B": 0.9},
            "audit": {
                "selective_submission": {"registered_policy": {"A": {"10": gain_rank}}}
            },
        }

    output = {
        "schemes": {
            "Brain": {"missing": {"policy": "worst_value"}},
            "Heart": {"missing": {"policy": "ignore"}},
        },
        "rankings": {
            "DSC": {"tasks": {"Heart": withholding(1), "Brain": withholding(1)}}
        },
    }
    findings = audit_findings(output)
    assert [f.split(":")[0] for f in findings] == [
        "Task Heart (DSC)",
        "Task Brain (DSC)",
    ]
    assert "(leave out)" in findings[0]  # the rule in words
    assert "(worst_value)" in findings[1]
    tables = report_tables(output)
    assert tables["consensus"] == []
    assert [r["task"] for r in tables["rankings"]] == [
        "Heart",
        "Heart",
        "Brain",
        "Brain",
    ]


def test_report_tables_carry_each_targets_ranking():
    # The page and the PDF show every target's ranks, scores and rank
    # intervals; the rankings CSV had the task's combined ranking only.
    target = {
        "ranks": {"A": 1, "B": 2},
        "scores": {"A": 2.0, "B": 0.0},
        "rank_ci": {"bootstrap": {"A": [1, 1], "B": [1, 2]}},
    }
    output = {
        "scheme": {"metric": "DSC"},
        "rankings": {
            "DSC": {
                "tasks": {
                    "Dev": {
                        "ranks": {"A": 1, "B": 2},
                        "scores": {"A": 1.5, "B": 1.5},
                        "winner_stability": 0.9,
                        "targets": {"brain": target, "heart": {**target}},
                    }
                }
            }
        },
    }
    tables = report_tables(output)
    # the task's rankings keep their columns; the targets' come beside them
    assert [(r["task"], r["algorithm"], r["rank"]) for r in tables["rankings"]] == [
        ("Dev", "A", 1),
        ("Dev", "B", 2),
    ]
    assert "target" not in tables["rankings"][0]
    assert tables["rankings"][0]["winner_stability"] == 0.9
    rows = tables["target_rankings"]
    assert [(r["task"], r["target"], r["algorithm"], r["rank"]) for r in rows] == [
        ("Dev", "brain", "A", 1),
        ("Dev", "brain", "B", 2),
        ("Dev", "heart", "A", 1),
        ("Dev", "heart", "B", 2),
    ]
    brain_b = rows[1]
    assert (brain_b["score"], brain_b["rank_ci_bootstrap_lower"]) == (0.0, 1)
    assert brain_b["rank_ci_bootstrap_upper"] == 2
    assert brain_b["winner_stability"] is None  # the task's, not the target's


def test_deviation_shares_read_as_percentages():
    # The message said "(25.0 %)", the Observed column "0.25".
    from analysis.reports import deviation_value_text

    assert deviation_value_text("missing_cases", 0.25) == "25.0 %"
    assert deviation_value_text("unstable_winner", 0.896) == "89.6 %"
    # other values, and the unstable winner's lists of names, as they are
    assert deviation_value_text("unstable_winner", ["A", "B"]) == "A, B"
    assert deviation_value_text("case_count_mismatch", 20) == "20"
    assert deviation_value_text("missing_cases", None) == "–"
