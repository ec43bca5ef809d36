"""Targets that do not share cases (e.g. the organs of an MSD phase)."""

import pandas as pd
import pytest

from ranking import run_analysis
from tests.schemes import mean_scheme

SCHEME = mean_scheme(
    missing={"policy": "value", "value": 0},
    aggregate="median",
    targets="mean_rank",
    uncertainty={"bootstrap": 30, "seed": 1},
)


def table():
    rows = []
    # Target "liver": A better on its own three cases; "spleen": B better.
    for case, (a, b) in zip(
        ["l1", "l2", "l3"], [(0.9, 0.8), (0.8, 0.7), (0.7, 0.6)], strict=True
    ):
        rows += [("T", "liver", case, "A", a), ("T", "liver", case, "B", b)]
    for case, (a, b) in zip(["s1", "s2"], [(0.5, 0.6), (0.4, 0.9)], strict=True):
        rows += [("T", "spleen", case, "A", a), ("T", "spleen", case, "B", b)]
    frame = pd.DataFrame(rows, columns=["task", "target", "case", "algorithm", "value"])
    return frame.assign(metric="DSC", value=frame["value"].astype(str))


def test_each_target_is_scored_on_its_own_cases_only():
    output = run_analysis(table(), SCHEME).output
    targets = output["rankings"]["DSC"]["tasks"]["T"]["targets"]
    # Medians over the target's own cases: not diluted by the other target's
    # cases (which would be filled with 0 and give a median of 0 to everyone).
    assert targets["liver"]["scores"] == pytest.approx({"A": 0.8, "B": 0.7})
    assert targets["spleen"]["scores"] == pytest.approx({"A": 0.45, "B": 0.75})
    assert targets["liver"]["ranks"] == {"A": 1, "B": 2}
    assert targets["spleen"]["ranks"] == {"A": 2, "B": 1}


def test_bootstrap_draws_apply_to_every_target_alike():
    first = run_analysis(table(), SCHEME).output
    second = run_analysis(table().sample(frac=1, random_state=3), SCHEME).output
    assert first == second
    boot = first["rankings"]["DSC"]["tasks"]["T"]["bootstrap"]
    assert set(boot) == {"A", "B"}
