"""Run a ranking scheme on small simulated data sets (the scheme page's preview).

Two data sets of seed `000` ("Assessment data"), 5 algorithms and 30 cases:
c_ideal (disjoint value ranges, a clear ranking) and c_random (no systematic
difference, ranks by chance). At most 200 bootstrap samples, no leave-one-out
and no audit, so a preview takes well under a second. No database access.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ranking import parse_scheme, run_analysis, simulate, vocabulary

PREVIEW_CASES = 30
PREVIEW_BOOTSTRAP = 200
# Names and explanations in ranking.vocabulary (DATA_SET_TERMS).
DATA_SETS = (("c_ideal", simulate.c_ideal), ("c_random", simulate.c_random))


@dataclass(frozen=True)
class PreviewRow:
    algorithm: str
    rank: Any
    score: Any
    bootstrap: dict[str, Any] | None
    intervals: dict[str, list[Any]]


@dataclass(frozen=True)
class PreviewRanking:
    key: str  # metric name, or "combined"
    rows: tuple[PreviewRow, ...]
    interval_methods: tuple[str, ...]
    winner_stability: float | None
    kendall_tau: dict[str, Any] | None


@dataclass(frozen=True)
class PreviewResult:
    name: str
    explanation: str
    rankings: tuple[PreviewRanking, ...]
    bootstrap: int


def simulated_results(factory, scheme) -> pd.DataFrame:
    """The data set with one copy per metric of the scheme, in its direction."""
    base = factory(n_cases=PREVIEW_CASES, seed=1)
    frames = []
    for metric in scheme.metrics:
        frame = base.copy()
        frame["metric"] = metric
        if not scheme.higher_is_better[metric]:
            frame["value"] = 1.0 - frame["value"]  # keep A1 the best
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def preview_scheme(scheme_data: dict[str, Any]) -> tuple[PreviewResult, ...]:
    """Ranks and bootstrap intervals of `scheme_data` on c_ideal and c_random."""
    scheme = parse_scheme(scheme_data)
    n_boot = min(scheme.uncertainty.bootstrap, PREVIEW_BOOTSTRAP)
    seed = scheme.uncertainty.seed if scheme.uncertainty.seed is not None else 1
    results = []
    for name, factory in DATA_SETS:
        output = run_analysis(
            simulated_results(factory, scheme),
            scheme,
            bootstrap=n_boot,
            seed=seed,
            leave_one_out=False,
            audit=False,
        ).output
        rankings = []
        for key, entry in output["rankings"].items():
            block = next(iter(entry["tasks"].values()))
            intervals = block.get("rank_ci", {})
            boot = block.get("bootstrap", {})
            rows = sorted(
                (
                    PreviewRow(
                        algorithm=a,
                        rank=rank,
                        score=block["scores"].get(a),
                        bootstrap=boot.get(a),
                        intervals={m: ci[a] for m, ci in intervals.items()},
                    )
                    for a, rank in block["ranks"].items()
                ),
                key=lambda r: (r.rank, r.algorithm),
            )
            rankings.append(
                PreviewRanking(
                    key=key,
                    rows=tuple(rows),
                    interval_methods=tuple(intervals),
                    winner_stability=block.get("winner_stability"),
                    kendall_tau=block.get("kendall_tau"),
                )
            )
        results.append(
            PreviewResult(name, vocabulary.explanation(name), tuple(rankings), n_boot)
        )
    return tuple(results)
