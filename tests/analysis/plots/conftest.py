"""Analysis outputs shared by the plot and report tests (no database)."""

from __future__ import annotations

import pandas as pd
import pytest

from ranking import run_analysis, simulate
from tests.schemes import mean_scheme

SCHEME = mean_scheme(
    missing={"policy": "value", "value": 0},
    consensus="mean_rank",
    uncertainty={
        "bootstrap": 20,
        "seed": 7,
        "rank_ci": ["bootstrap", "id_wilcoxon_one_sided"],
    },
)


def ideal_three_tasks() -> pd.DataFrame:
    """c_ideal (seed 000) three times, as tasks Brain, Liver and Lung."""
    return pd.concat(
        [
            simulate.c_ideal(seed=i, n_cases=20).assign(task=name)
            for i, name in enumerate(["Brain", "Liver", "Lung"])
        ],
        ignore_index=True,
    )


@pytest.fixture(scope="session")
def ideal():
    results = ideal_three_tasks()
    return results, run_analysis(results, SCHEME).to_json_dict()


def forty_algorithms(
    *, n_tasks: int, n_cases: int, seed: int, bootstrap: int
) -> tuple[pd.DataFrame, dict]:
    """(results, output) of 40 msd_like algorithms (5 % missing) under SCHEME,
    with fewer bootstrap samples to keep the large cases fast."""
    results = simulate.msd_like(
        n_tasks=n_tasks, n_algorithms=40, n_cases=n_cases, missing_rate=0.05, seed=seed
    )
    uncertainty = {**SCHEME["uncertainty"], "bootstrap": bootstrap}
    output = run_analysis(results, {**SCHEME, "uncertainty": uncertainty})
    return results, output.to_json_dict()


@pytest.fixture(scope="session")
def forty():
    return forty_algorithms(n_tasks=3, n_cases=12, seed=3, bootstrap=10)


@pytest.fixture(scope="session")
def forty_by_twenty():
    """40 algorithms x 20 tasks: the scale the report must stay readable at."""
    return forty_algorithms(n_tasks=20, n_cases=6, seed=4, bootstrap=5)
