"""Deviation checks: where the challenge as run differs from the registration.

Pure functions over the registered design, the executed schemes, the results
table and the engine output; each check returns `Deviation`s with a stable
`code` (`004` §4.1 manipulation routes, §5.4 registration).

Rules (stated, so readers know what "suspected" means):
- `selective_submission_suspected`: per task, metric and algorithm with missing
  cases, a case's difficulty is the mean of the other algorithms' values on it
  (direction-aware). A one-sided Mann–Whitney U test asks whether the
  algorithm's missing cases are harder than its present ones; p ≤ 0.05 flags.
- `unstable_winner`: bootstrap winner stability below 90 %, or another winner
  under an alternative scheme of the robustness audit.
- `missing_cases`: every algorithm with missing results, with its share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .design import RegisteredDesign

CRITICAL, WARNING, INFO = "critical", "warning", "info"
SEVERITY_ORDER = {CRITICAL: 0, WARNING: 1, INFO: 2}
WINNER_STABILITY_THRESHOLD = 0.9
SELECTIVE_ALPHA = 0.05
NOT_RANKED = "organizers may participate but are not ranked"
NOT_ALLOWED = "organizers may not participate"


@dataclass(frozen=True)
class Deviation:
    code: str
    severity: str
    message: str
    registered: Any = None
    observed: Any = None
    task: str | None = None
    evidence: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "registered": self.registered,
            "observed": self.observed,
            "task": self.task,
            "evidence": self.evidence,
        }


def find_deviations(
    *,
    design: RegisteredDesign,
    executed: Mapping[str, dict[str, Any]],
    frame: pd.DataFrame,
    output: dict[str, Any],
    team_affiliations: Mapping[str, str] | None = None,
) -> list[Deviation]:
    """All deviations, most severe first (stable order within a severity)."""
    found: list[Deviation] = []
    found += scheme_changes(design, executed)
    found += metric_deviations(design, frame)
    found += case_count_deviations(design, frame)
    found += missing_case_deviations(frame)
    found += selective_submission(design, executed, frame)
    found += missing_handling(design, executed, frame)
    found += organizer_participation(design, frame, team_affiliations or {})
    found += submission_limit(design, frame)
    found += post_hoc(design)
    found += unstable_winner(output)
    return sorted(found, key=lambda d: SEVERITY_ORDER[d.severity])


def scheme_changes(design: RegisteredDesign, executed) -> list[Deviation]:
    out = []
    for task, scheme in sorted(executed.items()):
        registered = design.tasks.get(task)
        registered_scheme = registered.scheme if registered else None
        if scheme != registered_scheme:
            changed = sorted(
                k
                for k in set(scheme) | set(registered_scheme or {})
                if scheme.get(k) != (registered_scheme or {}).get(k)
            )
            what = (
                "no scheme was registered"
                if registered_scheme is None
                else f"fields changed: {', '.join(changed)}"
            )
            out.append(
                Deviation(
                    "scheme_changed",
                    CRITICAL,
                    f"Task {task}: the executed ranking scheme differs from the "
                    f"registered one ({what}).",
                    registered_scheme,
                    scheme,
                    task,
                )
            )
    return out


def metric_deviations(design: RegisteredDesign, frame: pd.DataFrame) -> list[Deviation]:
    out = []
    for task, rows in frame.groupby("task", sort=True):
        registered = design.tasks.get(task)
        if registered is None:
            continue
        observed = set(rows["metric"])
        for metric in sorted(observed - set(registered.metrics)):
            out.append(
                Deviation(
                    "unregistered_metric",
                    WARNING,
                    f"Task {task}: metric {metric} was not registered.",
                    sorted(registered.metrics),
                    sorted(observed),
                    task,
                )
            )
        for metric in sorted(set(registered.metrics) - observed):
            out.append(
                Deviation(
                    "missing_metric",
                    WARNING,
                    f"Task {task}: registered metric {metric} has no results.",
                    sorted(registered.metrics),
                    sorted(observed),
                    task,
                )
            )
    return out


def case_count_deviations(design, frame) -> list[Deviation]:
    out = []
    for task, rows in frame.groupby("task", sort=True):
        registered = design.tasks.get(task)
        if registered is None or registered.test_cases is None:
            continue
        cases = int(rows["case"].nunique())
        if cases != registered.test_cases:
            out.append(
                Deviation(
                    "case_count_mismatch",
                    WARNING,
                    f"Task {task}: {cases} test cases in the results, "
                    f"{registered.test_cases} registered.",
                    registered.test_cases,
                    cases,
                    task,
                )
            )
    return out


def _case_matrix(rows: pd.DataFrame) -> pd.DataFrame:
    """cases × algorithms values for one task and metric (targets averaged)."""
    return rows.pivot_table(
        index="case", columns="algorithm", values="value", aggfunc="mean", dropna=False
    )


def missing_case_deviations(frame: pd.DataFrame) -> list[Deviation]:
    """Per task and metric, every algorithm without a result for some cases."""
    out = []
    for (task, metric), rows in frame.groupby(["task", "metric"], sort=True):
        matrix = _case_matrix(rows)
        cases = len(matrix.index)
        for algorithm in matrix.columns:
            missing = int(matrix[algorithm].isna().sum())
            if missing:
                share = missing / cases
                out.append(
                    Deviation(
                        "missing_cases",
                        WARNING if share > 0.05 else INFO,
                        f"Task {task}, {metric}: {algorithm} has no result for "
                        f"{missing} of {cases} cases ({share:.0%}).",
                        None,
                        round(share, 4),
                        task,
                        {"algorithm": algorithm, "metric": metric},
                    )
                )
    return out


def _direction(design: RegisteredDesign, executed, task: str, metric: str) -> bool:
    scheme = executed.get(task) or {}
    hib = scheme.get("higher_is_better")
    if isinstance(hib, dict) and metric in hib:
        return bool(hib[metric])
    if isinstance(hib, bool):
        return hib
    registered = design.tasks.get(task)
    if registered and metric in registered.metrics:
        return registered.metrics[metric].higher_is_better
    return True


def selective_submission(design, executed, frame) -> list[Deviation]:
    out = []
    for (task, metric), rows in frame.groupby(["task", "metric"], sort=True):
        matrix = _case_matrix(rows)
        higher_is_better = _direction(design, executed, task, metric)
        for algorithm in matrix.columns:
            missing = matrix[algorithm].isna().to_numpy()
            if not missing.any() or missing.all():
                continue
            others = matrix.drop(columns=[algorithm])
            difficulty = others.mean(axis=1, skipna=True).to_numpy()
            if higher_is_better:
                difficulty = -difficulty  # low values of others = hard case
            usable = ~np.isnan(difficulty)
            hard_missing = difficulty[missing & usable]
            hard_present = difficulty[~missing & usable]
            if len(hard_missing) == 0 or len(hard_present) == 0:
                continue
            if np.ptp(np.concatenate([hard_missing, hard_present])) == 0:
                continue
            p = float(
                stats.mannwhitneyu(
                    hard_missing, hard_present, alternative="greater"
                ).pvalue
            )
            if p <= SELECTIVE_ALPHA:
                percentile = float(
                    np.mean(
                        [
                            np.mean(np.concatenate([hard_missing, hard_present]) <= h)
                            for h in hard_missing
                        ]
                    )
                )
                out.append(
                    Deviation(
                        "selective_submission_suspected",
                        CRITICAL,
                        f"Task {task}, {metric}: {algorithm}'s {int(missing.sum())} "
                        "missing case(s) are concentrated among the cases other "
                        f"algorithms found hardest (Mann–Whitney p = {p:.3g}).",
                        None,
                        {
                            "missing_cases": sorted(
                                str(c) for c in matrix.index[missing]
                            )
                        },
                        task,
                        {
                            "algorithm": algorithm,
                            "metric": metric,
                            "p_value": p,
                            "mean_difficulty_percentile": round(percentile, 4),
                        },
                    )
                )
    return out


def missing_handling(design, executed, frame) -> list[Deviation]:
    out = []
    for task, rows in frame.groupby("task", sort=True):
        algorithms = rows["algorithm"].nunique()
        cells = rows["case"].nunique() * algorithms * rows["metric"].nunique()
        has_missing = rows["value"].isna().any() or len(rows) < cells
        if not has_missing:
            continue
        registered = design.tasks.get(task)
        registered_rule = (
            (registered.scheme or {}).get("missing") if registered else None
        )
        executed_rule = (executed.get(task) or {}).get("missing")
        if registered_rule is None:
            out.append(
                Deviation(
                    "missing_handling_unregistered",
                    CRITICAL,
                    f"Task {task}: results are missing but the registered scheme has "
                    "no rule for missing results"
                    + (
                        f"; the analysis used {executed_rule}."
                        if executed_rule
                        else "."
                    ),
                    None,
                    executed_rule,
                    task,
                )
            )
    return out


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def organizer_participation(design, frame, affiliations) -> list[Deviation]:
    policy = design.organizer_participation
    if policy not in (NOT_ALLOWED, NOT_RANKED) or "team" not in frame.columns:
        return []
    institutions = {_normalise(i) for i in design.organizer_institutions}
    out = []
    teams = frame.groupby("team")["algorithm"].unique()
    for team, algorithms in teams.items():
        affiliation = affiliations.get(str(team), "")
        if affiliation and _normalise(affiliation) in institutions:
            out.append(
                Deviation(
                    "organizer_participation",
                    CRITICAL,
                    f"Team {team} ({affiliation}) shares an institution with the "
                    f"organizers, but the registered policy is: {policy}.",
                    policy,
                    {
                        "team": str(team),
                        "affiliation": affiliation,
                        "algorithms": sorted(map(str, algorithms)),
                    },
                )
            )
    return out


def submission_limit(design, frame) -> list[Deviation]:
    if design.submission_limit is None or "submissions" not in frame.columns:
        return []
    counts = pd.to_numeric(frame["submissions"], errors="coerce")
    over = frame.assign(n=counts)[counts > design.submission_limit]
    out = []
    for algorithm, rows in over.groupby("algorithm", sort=True):
        observed = int(rows["n"].max())
        out.append(
            Deviation(
                "submission_limit_exceeded",
                WARNING,
                f"{algorithm} made {observed} test-set submissions; the registered "
                f"limit is {design.submission_limit}.",
                design.submission_limit,
                observed,
                None,
                {"algorithm": algorithm},
            )
        )
    return out


def post_hoc(design: RegisteredDesign) -> list[Deviation]:
    return [
        Deviation(
            "post_hoc_amendment",
            CRITICAL,
            f"Registration version {number} was approved after the first results "
            "were uploaded.",
            None,
            number,
        )
        for number in design.post_hoc_versions
    ]


def unstable_winner(output: dict[str, Any]) -> list[Deviation]:
    out = []
    for key, ranking in sorted(output.get("rankings", {}).items()):
        for task, block in sorted(ranking.get("tasks", {}).items()):
            winners = sorted(a for a, r in block.get("ranks", {}).items() if r == 1)
            stability = block.get("winner_stability")
            if stability is not None and stability < WINNER_STABILITY_THRESHOLD:
                out.append(
                    Deviation(
                        "unstable_winner",
                        WARNING,
                        f"Task {task} ({key}): the winner stays first in only "
                        f"{stability:.0%} of bootstrap samples.",
                        WINNER_STABILITY_THRESHOLD,
                        stability,
                        task,
                        {"winners": winners},
                    )
                )
            changed = []
            for alternative in block.get("audit", {}).get("alternatives", []):
                alt_winners = sorted(
                    a for a, r in alternative["ranks"].items() if r == 1
                )
                if not alternative.get("registered") and alt_winners != winners:
                    changed.append({**alternative, "winners": alt_winners})
            if changed:
                described = "; ".join(
                    f"{a['method']} ({a['aggregate']}) of {a['metric']}: "
                    f"{', '.join(a['winners'])}"
                    for a in changed
                )
                out.append(
                    Deviation(
                        "unstable_winner",
                        WARNING,
                        f"Task {task} ({key}): {len(changed)} alternative ranking "
                        f"scheme(s) give another winner than {', '.join(winners)} — "
                        f"{described}.",
                        winners,
                        [a["winners"] for a in changed],
                        task,
                        {"alternatives": changed},
                    )
                )
    return out
