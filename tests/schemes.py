"""The ranking scheme the tests share: MSD's (seed 004 A.6), as a reader writes it."""

from __future__ import annotations

import copy
from typing import Any

# DSC, a missing case scores 0 (the worst value), Wilcoxon significance ranking
# per target, mean rank over targets and over tasks, a 1000-sample bootstrap.
MSD_SCHEME: dict[str, Any] = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "test_then_rank",
    "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "none"},
    "ties": "min",
    "targets": "mean_rank",
    "consensus": "mean_rank",
    "uncertainty": {"bootstrap": 1000, "seed": 1, "rank_ci": ["bootstrap"]},
}

# Significance ranking (Wilcoxon) with the engine's defaults for the test, the
# ties and the targets; DSC, 0 for a missing case, a 1000-sample bootstrap.
SIGNIFICANCE_SCHEME: dict[str, Any] = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "test_then_rank",
    "uncertainty": {"bootstrap": 1000, "seed": 1, "rank_ci": ["bootstrap"]},
}


def msd_scheme(*, without: tuple[str, ...] = (), **fields: Any) -> dict[str, Any]:
    """A fresh copy of `MSD_SCHEME` with top-level `fields` replaced or added and
    the fields named in `without` left to the engine's defaults."""
    scheme = copy.deepcopy(MSD_SCHEME) | fields
    for name in without:
        del scheme[name]
    return scheme


def mean_scheme(**fields: Any) -> dict[str, Any]:
    """The simplest scheme: algorithms ranked by their mean DSC (aggregate, then
    rank); `fields` replace or add top-level fields."""
    base = {"metric": "DSC", "higher_is_better": True, "method": "aggregate_then_rank"}
    return base | fields
