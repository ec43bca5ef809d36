"""Simulated test-case characteristics for the RobustMIS demo (seed 004 §5.4).

The published analysis annotated 17 image characteristics of the RobustMIS test
cases (Tables 5.36-5.38) and estimated with mixed models which of them made the
top five algorithms fail. The demo simulates six of them with effects of known
size on the log-odds of failure (MI DSC below 0.5), a random intercept per
surgical procedure and one per team, so the fitted odds ratios can be checked
against the truth: four raise the odds of failure, one lowers them, and
reflections have no effect at all.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TASK = "Multiple instance segmentation"
TEAMS = [f"mis-team-{n:02d}" for n in range(1, 11)]
PROCEDURES = 14  # Stage 2 (4 new patients) and Stage 3 (10 unknown surgeries)
CASES = 700
# characteristic: (prevalence, true log-odds effect on failure)
EFFECTS: dict[str, tuple[float, float]] = {
    "instrument_overlap": (0.25, 1.2),
    "motion_artifacts": (0.20, 0.9),
    "underexposed_instrument": (0.15, 0.8),
    "smoke": (0.12, 0.7),
    "overexposed_instrument": (0.15, -0.6),
    "reflections": (0.30, 0.0),
}
INTERCEPT = -1.6
PROCEDURE_SD = 0.7
TEAM_SKILL = np.linspace(-0.8, 0.9, len(TEAMS))  # log-odds shift, best first

SPEC = {
    "task": TASK,
    "metric": "MI DSC",
    "outcome": {"type": "failure", "below": 0.5},
    "characteristics": list(EFFECTS),
    "groups": ["procedure"],
    "algorithms": {"top": 5},
    "per_algorithm": True,
    "missing": "failure",
    "alpha": 0.05,
}
SCHEME = {
    "metric": "MI DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "aggregate_then_rank",
    "aggregate": "mean",
    "ties": "min",
    "uncertainty": {"bootstrap": 0, "seed": 2019},
}


def simulate(seed: int = 2019) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(results table, case metadata table) of the demo."""
    rng = np.random.default_rng(seed)
    cases = [f"frame-{c + 1:04d}" for c in range(CASES)]
    procedure = rng.integers(0, PROCEDURES, CASES)
    present = {
        name: (rng.uniform(size=CASES) < prevalence).astype(int)
        for name, (prevalence, _) in EFFECTS.items()
    }
    eta = INTERCEPT + rng.normal(0, PROCEDURE_SD, PROCEDURES)[procedure]
    for name, (_, effect) in EFFECTS.items():
        eta = eta + effect * present[name]
    rows = []
    for team, skill in zip(TEAMS, TEAM_SKILL, strict=True):
        fail = rng.uniform(size=CASES) < 1 / (1 + np.exp(-(eta + skill)))
        dsc = np.where(fail, rng.uniform(0.02, 0.48, CASES), rng.beta(8, 2, CASES))
        dsc = np.where(fail, dsc, np.clip(dsc, 0.5, 1.0))
        nsd = np.clip(dsc + rng.normal(0, 0.05, CASES), 0, 1)
        delivered = rng.uniform(size=CASES) > 0.01  # about 1 % missing results
        for c, case in enumerate(cases):
            for metric, values in (("MI DSC", dsc), ("MI NSD", nsd)):
                value = f"{values[c]:.4f}" if delivered[c] else ""
                rows.append((TASK, case, team, metric, value))
    results = pd.DataFrame(
        rows, columns=["task", "case", "algorithm", "metric", "value"]
    )
    metadata = pd.DataFrame(
        {
            "case": cases,
            **present,
            "procedure": [f"procedure-{p + 1:02d}" for p in procedure],
        }
    )
    return results, metadata.astype(str)
