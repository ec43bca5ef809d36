"""The ranking scheme the tests share: MSD's (seed 004 A.6), as a reader writes it."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from ranking.scheme import (
    CONSENSUS_RULES,
    METHODS,
    MISSING_POLICIES,
    P_ADJUST,
    RANK_CI_METHODS,
    TARGET_RULES,
    TEST_METHODS,
    TIES,
)

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


@st.composite
def schemes(draw) -> dict[str, Any]:
    """Any valid scheme over one to three metrics: every option of the
    contract drawn independently, the combinations the engine refuses left out."""
    names = draw(
        st.lists(
            st.sampled_from(["DSC", "NSD", "HD95"]), min_size=1, max_size=3, unique=True
        )
    )
    method = draw(st.sampled_from(METHODS))
    policies = [p for p in MISSING_POLICIES if p != "last_rank"]
    if method == "rank_then_aggregate":
        policies.append("last_rank")
    missing = draw(st.none() | st.sampled_from(policies).map(lambda p: {"policy": p}))
    if missing and missing["policy"] == "value":
        missing["value"] = {m: draw(st.integers(-5, 100)) for m in names}
    aggregate = draw(
        st.sampled_from(["mean", "median"])
        | st.floats(0.01, 0.99).map(lambda q: {"quantile": round(q, 2)})
    )
    scheme = {
        "metric": names,
        "higher_is_better": {m: draw(st.booleans()) for m in names},
        "combine": draw(st.sampled_from(["mean_rank", None])),
        "method": method,
        "aggregate": aggregate,
        "missing": missing,
        "test": {
            "name": "wilcoxon",
            "alpha": draw(st.sampled_from([0.01, 0.05, 0.1])),
            "p_adjust": draw(st.sampled_from(P_ADJUST)),
            "method": draw(st.sampled_from(TEST_METHODS)),
        },
        "ties": draw(st.sampled_from(TIES)),
        "targets": draw(st.sampled_from(TARGET_RULES)),
        "consensus": draw(st.none() | st.sampled_from(CONSENSUS_RULES)),
        "uncertainty": {
            "bootstrap": draw(st.sampled_from([0, 100, 1000])),
            "seed": draw(st.none() | st.integers(0, 99)),
            "rank_ci": draw(
                st.lists(st.sampled_from(RANK_CI_METHODS), unique=True, max_size=3)
            ),
            "alpha": draw(st.sampled_from([0.05, 0.1])),
        },
    }
    return {key: value for key, value in scheme.items() if value is not None}
