"""Deviation checks: where the challenge as run differs from the registration.

Pure functions over the registered design, the executed schemes, the results
table and the engine output; each check returns `Deviation`s with a stable
`code` (`004` §4.1 manipulation routes, §5.4 registration).

Rules (stated, so readers know what "suspected" means):
- Tasks with targets are checked per target: a target's cases are those with a
  value for any algorithm *for that target*, and a case is missing for an
  algorithm when it has no value for that target.
- `selective_submission_suspected`: per task, target, metric and algorithm with
  at least 3 missing cases, a case's difficulty is the mean of the other
  algorithms' values on it for that target (direction-aware). A one-sided
  Mann–Whitney U test asks whether the algorithm's missing cases are harder
  than its present ones; p ≤ 0.05 flags. One or two missing cases are no
  pattern (a single hard case would give p = 1/n).
- `unstable_winner`: bootstrap winner stability below 90 %, or another winner
  under an alternative scheme of the robustness audit.
- `missing_cases`: every algorithm with missing results, per target with its
  share, and for a task with several targets one summary over the task.
- `task_without_results`: a registered task with no row in the results (the
  report ranks only the tasks it is given).
- `value_out_of_bounds`: values outside a metric's registered range (stored
  on the organizer's word after the preview named them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from registry.numbers import percent_text

from .design import RegisteredDesign
from .output import AnalysisOutput

CRITICAL, WARNING, INFO = "critical", "warning", "info"
SEVERITY_ORDER = {CRITICAL: 0, WARNING: 1, INFO: 2}
WINNER_STABILITY_THRESHOLD = 0.9
SELECTIVE_ALPHA = 0.05
SELECTIVE_MIN_MISSING = 3
MISSING_WARNING_SHARE = 0.05
# Every code a deviation can have (the statistics filter by them); a test
# checks that each Deviation(...) below uses one of these.
DEVIATION_CODES = (
    "scheme_changed",
    "task_without_results",
    "missing_metric",
    "unregistered_metric",
    "value_out_of_bounds",
    "case_count_mismatch",
    "missing_cases",
    "selective_submission_suspected",
    "missing_handling_unregistered",
    "organizer_participation",
    "submission_limit_exceeded",
    "post_hoc_amendment",
    "unstable_winner",
)
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
    found += task_deviations(design, frame)
    found += metric_deviations(design, frame)
    found += bounds_deviations(design, frame)
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


def task_deviations(design: RegisteredDesign, frame: pd.DataFrame) -> list[Deviation]:
    """Registered tasks without a row in the results: the report ranks only
    the tasks it is given, so one left out is named here."""
    observed = sorted(str(t) for t in frame["task"].unique())
    return [
        Deviation(
            "task_without_results",
            WARNING,
            f"Registered task {task} has no results.",
            sorted(design.tasks),
            observed,
            task,
        )
        for task in sorted(set(design.tasks) - set(observed))
    ]


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


def bounds_deviations(design: RegisteredDesign, frame: pd.DataFrame) -> list[Deviation]:
    """Values outside a metric's registered range: the preview names them and
    the organizer may store them anyway, so the report says so too."""
    out = []
    for (task, metric), rows in frame.groupby(["task", "metric"], sort=True):
        registered = design.tasks.get(task)
        spec = registered.metrics.get(metric) if registered else None
        if spec is None or (spec.lower_bound is None and spec.upper_bound is None):
            continue
        low = -np.inf if spec.lower_bound is None else spec.lower_bound
        high = np.inf if spec.upper_bound is None else spec.upper_bound
        values = pd.to_numeric(rows["value"], errors="coerce")
        outside = rows[(values < low) | (values > high)]
        if outside.empty:
            continue
        lines = ", ".join(str(line) for line in outside["line"].head(10))
        more = " …" if len(outside) > 10 else ""
        found = values[outside.index]
        out.append(
            Deviation(
                "value_out_of_bounds",
                WARNING,
                f"Task {task}, {metric}: {len(outside)} value(s) outside the "
                f"registered range [{low:g}, {high:g}] (lines {lines}{more} of "
                "the stored table).",
                [spec.lower_bound, spec.upper_bound],
                [float(found.min()), float(found.max())],
                str(task),
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


def _case_matrices(frame: pd.DataFrame):
    """(task, target, metric, cases × algorithms values) per target ("" when
    the task has no targets): each target in its own case space."""
    if "target" in frame.columns:
        frame = frame.assign(target=frame["target"].fillna("").astype(str))
    else:
        frame = frame.assign(target="")
    values = pd.to_numeric(frame["value"], errors="coerce")
    frame = frame.assign(value=values)
    algorithms = {
        task: sorted(rows["algorithm"].unique())
        for task, rows in frame.groupby("task", sort=True)
    }
    for (task, target, metric), rows in frame.groupby(
        ["task", "target", "metric"], sort=True
    ):
        matrix = rows.pivot_table(
            index="case",
            columns="algorithm",
            values="value",
            aggfunc="first",
            dropna=False,
        ).reindex(columns=algorithms[task])
        yield str(task), str(target), str(metric), matrix


def _where(task: str, target: str, metric: str) -> str:
    return f"Task {task}" + (f", target {target}" if target else "") + f", {metric}"


def _severity(share: float) -> str:
    return WARNING if share > MISSING_WARNING_SHARE else INFO


def _missing_cases(
    severity: str, message: str, share: float, task: str, evidence: dict[str, Any]
) -> Deviation:
    """`share` of the cases have no result (observed: the share, rounded)."""
    return Deviation(
        "missing_cases",
        severity,
        message,
        observed=round(share, 4),
        task=task,
        evidence=evidence,
    )


def missing_case_deviations(frame: pd.DataFrame) -> list[Deviation]:
    """Per task, target and metric, every algorithm without a result for some
    of the target's cases; a task with several targets also gets one summary
    per algorithm and metric over all its targets."""
    out = []
    totals: dict[tuple[str, str, str], list[tuple[str, int, int]]] = {}
    for task, target, metric, matrix in _case_matrices(frame):
        cases = len(matrix.index)
        for algorithm in matrix.columns:
            missing = int(matrix[algorithm].isna().sum())
            totals.setdefault((task, metric, algorithm), []).append(
                (target, missing, cases)
            )
            if not missing:
                continue
            share = missing / cases
            out.append(
                _missing_cases(
                    _severity(share),
                    f"{_where(task, target, metric)}: {algorithm} has no result for "
                    f"{missing} of {cases} cases ({percent_text(share)}).",
                    share,
                    task,
                    {
                        "algorithm": algorithm,
                        "metric": metric,
                        **({"target": target} if target else {}),
                        "missing": missing,
                        "cases": cases,
                    },
                )
            )
    for (task, metric, algorithm), parts in totals.items():
        hit = [(t, k) for t, k, _ in parts if k]
        if len(parts) < 2 or not hit:
            continue
        missing = sum(k for _, k, _ in parts)
        cases = sum(n for _, _, n in parts)
        out.append(
            _missing_cases(
                max(
                    (_severity(k / n) for _, k, n in parts if k),
                    key=lambda s: -SEVERITY_ORDER[s],
                ),
                f"Task {task}, {metric}: {algorithm} has no result for {missing} of "
                f"{cases} cases over its {len(parts)} targets ("
                + ", ".join(f"{t}: {k}" for t, k in hit)
                + ").",
                missing / cases,
                task,
                {
                    "algorithm": algorithm,
                    "metric": metric,
                    "missing": missing,
                    "cases": cases,
                    "targets": dict(hit),
                },
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


def _suspicion(
    matrix: pd.DataFrame, algorithm: str, higher_is_better: bool
) -> tuple[float, float] | None:
    """(Mann–Whitney p, mean difficulty percentile of the missing cases), or
    None when the algorithm's missing cases cannot be compared."""
    missing = matrix[algorithm].isna().to_numpy()
    if missing.sum() < SELECTIVE_MIN_MISSING or missing.all():
        return None
    others = matrix.drop(columns=[algorithm])
    with np.errstate(all="ignore"):
        difficulty = others.mean(axis=1, skipna=True).to_numpy()
    if higher_is_better:
        difficulty = -difficulty  # low values of the others = hard case
    usable = np.isfinite(difficulty)
    hard_missing = difficulty[missing & usable]
    hard_present = difficulty[~missing & usable]
    if len(hard_missing) < SELECTIVE_MIN_MISSING or len(hard_present) == 0:
        return None
    every = np.concatenate([hard_missing, hard_present])
    if np.ptp(every) == 0:
        return None
    p = float(
        stats.mannwhitneyu(hard_missing, hard_present, alternative="greater").pvalue
    )
    percentile = float(np.mean([np.mean(every <= h) for h in hard_missing]))
    return p, percentile


def selective_submission(design, executed, frame) -> list[Deviation]:
    """Per task, target and metric: algorithms whose missing cases are the
    ones the other algorithms found hardest on that target."""
    out = []
    for task, target, metric, matrix in _case_matrices(frame):
        higher_is_better = _direction(design, executed, task, metric)
        for algorithm in matrix.columns:
            found = _suspicion(matrix, algorithm, higher_is_better)
            if found is None or found[0] > SELECTIVE_ALPHA:
                continue
            p, percentile = found
            missing = matrix[algorithm].isna().to_numpy()
            out.append(
                Deviation(
                    "selective_submission_suspected",
                    CRITICAL,
                    f"{_where(task, target, metric)}: {algorithm}'s "
                    f"{int(missing.sum())} missing case(s) of {len(missing)} are "
                    "concentrated among the cases the other algorithms found "
                    f"hardest (Mann–Whitney p = {p:.3g}).",
                    None,
                    {
                        "missing_cases": sorted(str(c) for c in matrix.index[missing]),
                        **({"target": target} if target else {}),
                    },
                    task,
                    {
                        "algorithm": algorithm,
                        "metric": metric,
                        **({"target": target} if target else {}),
                        "p_value": p,
                        "mean_difficulty_percentile": round(percentile, 4),
                    },
                )
            )
    return out


def missing_handling(design, executed, frame) -> list[Deviation]:
    out = []
    with_missing = {
        task
        for task, _, _, matrix in _case_matrices(frame)
        if matrix.isna().to_numpy().any()
    }
    for task in sorted(with_missing):
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
    reader = AnalysisOutput.of(output)
    for entry in sorted(reader.entries(), key=lambda e: (e.key, e.task)):
        key, task, block = entry.key, entry.task, entry.block
        winners = sorted(a for a, r in block.get("ranks", {}).items() if r == 1)
        stability = block.get("winner_stability")
        if stability is not None and stability < WINNER_STABILITY_THRESHOLD:
            out.append(
                Deviation(
                    "unstable_winner",
                    WARNING,
                    f"Task {task} ({key}): the winner stays first in only "
                    f"{percent_text(stability)} of bootstrap samples.",
                    WINNER_STABILITY_THRESHOLD,
                    stability,
                    task,
                    {"winners": winners},
                )
            )
        changed = []
        for alternative in block.get("audit", {}).get("alternatives", []):
            alt_winners = sorted(a for a, r in alternative["ranks"].items() if r == 1)
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
