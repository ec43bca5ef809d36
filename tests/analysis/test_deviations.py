"""Deviation checks on hand-built designs and results (no database)."""

import numpy as np
import pandas as pd
import pytest

from analysis.design import (
    RegisteredDesign,
    RegisteredMetric,
    RegisteredTask,
    submission_limit_from,
)
from analysis.deviations import find_deviations, selective_submission, unstable_winner
from ranking import parse_scheme, scheme_to_dict, validate_results

SCHEME = scheme_to_dict(
    parse_scheme(
        {
            "metric": "DSC",
            "higher_is_better": True,
            "method": "aggregate_then_rank",
            "missing": {"policy": "value", "value": 0},
            "uncertainty": {"bootstrap": 0, "seed": 1},
        }
    )
)


def task(name: str = "Liver", test_cases: int = 20) -> RegisteredTask:
    """A task ranked by DSC with SCHEME, missing cases set to the worst value."""
    return RegisteredTask(
        name=name,
        metrics={"DSC": RegisteredMetric("DSC", True, 0, 0, 1)},
        test_cases=test_cases,
        scheme=SCHEME,
        missing_handling="worst value",
    )


def design(**overrides) -> RegisteredDesign:
    values = {
        "identifier": "miccai-2027-001",
        "version": 1,
        "sha256": "0" * 64,
        "tasks": {"Liver": task()},
        "organizer_institutions": ("DKFZ",),
        "organizer_participation": "organizers may not participate",
        "submission_limit": 3,
    }
    values.update(overrides)
    return RegisteredDesign(**values)


def results(n_cases=20, algorithms=("A", "B", "C"), *, seed=0, extra=None):
    rng = np.random.default_rng(seed)
    difficulty = np.linspace(0.9, 0.5, n_cases)  # case c000 easiest
    rows = []
    for a_index, algorithm in enumerate(algorithms):
        for c in range(n_cases):
            value = difficulty[c] - 0.02 * a_index + rng.normal(0, 0.01)
            rows.append(
                {
                    "task": "Liver",
                    "case": f"c{c:03d}",
                    "algorithm": algorithm,
                    "metric": "DSC",
                    "value": f"{value:.4f}",
                }
            )
    frame = pd.DataFrame(rows)
    if extra is not None:
        frame = extra(frame)
    return validate_results(frame)


def codes(deviations):
    return sorted({d.code for d in deviations})


def test_clean_run_has_no_deviations():
    frame = results()
    found = find_deviations(
        design=design(), executed={"Liver": SCHEME}, frame=frame, output={}
    )
    assert found == []


def test_scheme_change_is_critical_and_names_the_fields():
    changed = {**SCHEME, "aggregate": "median"}
    found = find_deviations(
        design=design(), executed={"Liver": changed}, frame=results(), output={}
    )
    assert codes(found) == ["scheme_changed"]
    assert found[0].severity == "critical"
    assert "aggregate" in found[0].message


def test_case_count_and_metric_deviations():
    def add_hd(frame):
        hd = frame.assign(metric="HD95", value="3.0")
        return pd.concat([frame, hd], ignore_index=True)

    found = find_deviations(
        design=design(),
        executed={"Liver": SCHEME},
        frame=results(n_cases=18, extra=add_hd),
        output={},
    )
    assert codes(found) == ["case_count_mismatch", "unregistered_metric"]
    mismatch = next(d for d in found if d.code == "case_count_mismatch")
    assert (mismatch.registered, mismatch.observed) == (20, 18)


def test_algorithm_missing_the_hardest_cases_is_suspected():
    def withhold_hardest(frame):
        hardest = {f"c{c:03d}" for c in range(16, 20)}
        mask = (frame["algorithm"] == "C") & frame["case"].isin(hardest)
        frame.loc[mask, "value"] = ""
        return frame

    frame = results(extra=withhold_hardest)
    found = selective_submission(design(), {"Liver": SCHEME}, frame)
    assert [(d.code, d.evidence["algorithm"]) for d in found] == [
        ("selective_submission_suspected", "C")
    ]
    assert found[0].observed["missing_cases"] == ["c016", "c017", "c018", "c019"]
    # Mann–Whitney exact p for the 4 hardest of 20: 1 / C(20, 4).
    assert found[0].evidence["p_value"] == pytest.approx(1 / 4845, rel=1e-6)


def test_randomly_missing_cases_are_not_suspected():
    def withhold_spread(frame):
        spread = {"c001", "c007", "c012", "c018"}
        mask = (frame["algorithm"] == "C") & frame["case"].isin(spread)
        frame.loc[mask, "value"] = ""
        return frame

    frame = results(extra=withhold_spread)
    assert selective_submission(design(), {"Liver": SCHEME}, frame) == []
    found = find_deviations(
        design=design(), executed={"Liver": SCHEME}, frame=frame, output={}
    )
    assert codes(found) == ["missing_cases"]
    assert found[0].observed == 0.2


def test_missing_results_without_a_registered_rule():
    no_rule = {k: v for k, v in SCHEME.items() if k != "missing"}
    registered = design(
        tasks={
            "Liver": RegisteredTask(
                "Liver", {"DSC": RegisteredMetric("DSC", True)}, 20, no_rule, None
            )
        }
    )

    def drop_one(frame):
        frame.loc[0, "value"] = ""
        return frame

    found = find_deviations(
        design=registered,
        executed={"Liver": SCHEME},
        frame=results(extra=drop_one),
        output={},
    )
    assert "missing_handling_unregistered" in codes(found)


def test_organizer_team_against_policy_and_submission_limit():
    def add_teams(frame):
        team = {"A": "Alpha", "B": "Beta", "C": "Gamma"}
        frame["team"] = frame["algorithm"].map(team)
        frame["submissions"] = frame["algorithm"].map({"A": "1", "B": "5", "C": "2"})
        return frame

    found = find_deviations(
        design=design(),
        executed={"Liver": SCHEME},
        frame=results(extra=add_teams),
        output={},
        team_affiliations={"Beta": " dkfz ", "Gamma": "Inria"},
    )
    assert codes(found) == ["organizer_participation", "submission_limit_exceeded"]
    organizer = next(d for d in found if d.code == "organizer_participation")
    assert organizer.observed["algorithms"] == ["B"]
    limit = next(d for d in found if d.code == "submission_limit_exceeded")
    assert (limit.registered, limit.observed) == (3, 5)


def test_post_hoc_versions_and_unstable_winner():
    output = {
        "rankings": {
            "DSC": {
                "tasks": {
                    "Liver": {
                        "ranks": {"A": 1, "B": 2},
                        "winner_stability": 0.62,
                        "audit": {
                            "alternatives": [
                                {
                                    "metric": "DSC",
                                    "method": "rank_then_aggregate",
                                    "aggregate": "median",
                                    "ranks": {"A": 2, "B": 1},
                                    "registered": False,
                                },
                            ]
                        },
                    }
                }
            }
        }
    }
    found = find_deviations(
        design=design(post_hoc_versions=(2,)),
        executed={"Liver": SCHEME},
        frame=results(),
        output=output,
    )
    assert [d.code for d in found] == [
        "post_hoc_amendment",
        "unstable_winner",
        "unstable_winner",
    ]
    assert found[0].severity == "critical"


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("Each team may make at most 3 submissions to the test set.", 3),
        ("A maximum of 2 test-set submissions per team.", 2),
        ("Docker containers are submitted once.", None),
    ],
)
def test_submission_limit_is_read_from_prose(text, limit):
    assert submission_limit_from(text) == limit


def _targets_results(withhold: int = 0) -> pd.DataFrame:
    """Three targets of 30 cases each, four teams; team-C withholds its
    `withhold` hardest cases of target "spleen" (hardest by the others)."""
    rng = np.random.default_rng(5)
    rows = []
    for target in ("colon", "vessel", "spleen"):
        difficulty = rng.normal(0, 1, 30)
        for a_index, algorithm in enumerate(("team-A", "team-B", "team-C", "team-D")):
            for c in range(30):
                value = 0.8 - 0.1 * difficulty[c] - 0.02 * a_index
                rows.append(
                    {
                        "task": "Mystery",
                        "target": target,
                        "case": f"{target}-{c:02d}",
                        "algorithm": algorithm,
                        "metric": "DSC",
                        "value": f"{value + rng.normal(0, 0.01):.4f}",
                    }
                )
    frame = pd.DataFrame(rows)
    if withhold:
        spleen = frame[(frame["target"] == "spleen") & (frame["algorithm"] != "team-C")]
        mean = (
            spleen.assign(v=spleen["value"].astype(float)).groupby("case")["v"].mean()
        )
        hardest = set(mean.sort_values().index[:withhold])
        mask = (frame["algorithm"] == "team-C") & frame["case"].isin(hardest)
        frame.loc[mask, "value"] = ""
    return validate_results(frame)


def _targets_design() -> RegisteredDesign:
    return design(tasks={"Mystery": task("Mystery", test_cases=90)})


def test_withholding_the_hardest_cases_of_one_target_is_suspected_there():
    frame = _targets_results(withhold=10)
    found = find_deviations(
        design=_targets_design(), executed={"Mystery": SCHEME}, frame=frame, output={}
    )
    suspected = [d for d in found if d.code == "selective_submission_suspected"]
    assert [(d.evidence["algorithm"], d.evidence["target"]) for d in suspected] == [
        ("team-C", "spleen")
    ]
    assert "target spleen" in suspected[0].message
    per_target = [
        d for d in found if d.code == "missing_cases" and "target" in d.evidence
    ]
    assert [(d.evidence["target"], d.observed, d.severity) for d in per_target] == [
        ("spleen", round(10 / 30, 4), "warning")
    ]
    summary = [
        d for d in found if d.code == "missing_cases" and "targets" in d.evidence
    ]
    assert [(d.evidence["missing"], d.evidence["cases"]) for d in summary] == [(10, 90)]


def test_audit_sentence_names_the_team_that_withheld_hard_cases():
    from analysis.reports import audit_findings
    from ranking import run_analysis

    frame = _targets_results(withhold=10)
    found = find_deviations(
        design=_targets_design(), executed={"Mystery": SCHEME}, frame=frame, output={}
    )
    output = run_analysis(frame, {**SCHEME, "targets": "mean_rank"}).to_json_dict()
    sentences = audit_findings(output, found)
    suspected = [s for s in sentences if s.startswith("Suspected selective")]
    assert len(suspected) == 1
    assert "team-C" in suspected[0]
    assert "target spleen" in suspected[0]


def test_single_hard_missing_case_is_no_pattern():
    def withhold_hardest(frame):
        mask = (frame["algorithm"] == "C") & (frame["case"] == "c019")
        frame.loc[mask, "value"] = ""
        return frame

    frame = results(extra=withhold_hardest)
    assert selective_submission(design(), {"Liver": SCHEME}, frame) == []


def test_unstable_winners_of_a_merged_output_in_key_and_task_order():
    def unstable(stability):
        return {"ranks": {"A": 1, "B": 2}, "winner_stability": stability}

    output = {  # compute_output's merge of two schemes, stored out of order
        "schemes": {"Heart": SCHEME, "Liver": SCHEME},
        "rankings": {
            "NSD": {"tasks": {"Liver": unstable(0.5)}},
            "DSC": {"tasks": {"Liver": unstable(0.6), "Heart": unstable(0.99)}},
        },
    }
    found = unstable_winner(output)
    assert [(d.task, d.observed) for d in found] == [("Liver", 0.6), ("Liver", 0.5)]
    assert found[0].message.startswith("Task Liver (DSC)")


def test_a_registered_task_without_results_is_a_deviation():
    # The report ranks only the tasks in the file: a registered task left out
    # must be named, not silently missing from a "no deviations" summary.
    registered = design(tasks={"Liver": task(), "Kidney": task("Kidney")})
    found = find_deviations(
        design=registered, executed={"Liver": SCHEME}, frame=results(), output={}
    )
    assert codes(found) == ["task_without_results"]
    (missing,) = found
    assert missing.severity == "warning"
    assert missing.task == "Kidney"
    assert missing.message == "Registered task Kidney has no results."
    assert (missing.registered, missing.observed) == (
        ["Kidney", "Liver"],
        ["Liver"],
    )


def test_shares_in_deviation_messages_read_as_everywhere_else():
    # A stability of 89.6 %, under the 90 % threshold, was reported as "only
    # 90%"; shares now read as the report's other shares (percent_text).
    output = {
        "rankings": {
            "DSC": {"tasks": {"Liver": {"ranks": {"A": 1}, "winner_stability": 0.896}}}
        }
    }
    (unstable,) = unstable_winner(output)
    assert "stays first in only 89.6 % of bootstrap samples" in unstable.message

    def withhold_one(frame):  # 1 of 21 cases: 4.8 %, under the warning share
        return frame.drop(
            frame[(frame.algorithm == "B") & (frame.case == "c000")].index
        )

    found = find_deviations(
        design=design(tasks={"Liver": task(test_cases=21)}),
        executed={"Liver": SCHEME},
        frame=results(n_cases=21, extra=withhold_one),
        output={},
    )
    (missing,) = [d for d in found if d.code == "missing_cases"]
    assert missing.message.endswith("B has no result for 1 of 21 cases (4.8 %).")
    assert missing.severity == "info"


def test_values_outside_the_registered_range_are_a_deviation():
    # The preview names them and the organizer may store them anyway; the
    # report then ranked a DSC of 1.5 without a word.
    def impossible(frame):
        frame.loc[frame.index[:2], "value"] = ["1.5", "-0.25"]
        return frame

    found = find_deviations(
        design=design(),
        executed={"Liver": SCHEME},
        frame=results(extra=impossible),
        output={},
    )
    assert codes(found) == ["value_out_of_bounds"]
    (outside,) = found
    assert outside.severity == "warning"
    assert outside.message == (
        "Task Liver, DSC: 2 value(s) outside the registered range [0, 1] "
        "(lines 2, 3 of the stored table)."
    )
    assert (outside.registered, outside.observed) == ([0, 1], [-0.25, 1.5])
