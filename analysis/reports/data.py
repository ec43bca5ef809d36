"""The plain data a report is rendered from, and the tables it shows.

:class:`ReportData` holds only plain values (strings, numbers, the analysis
output dict, PNG bytes), so the PDF can be rendered and tested without a
database; :func:`build_report_data` assembles it from a results table and an
analysis output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ranking import describe_scheme
from ranking.output import scheme_groups

from .bias_items import BIAS_ITEMS

__all__ = [
    "ORGANIZERS",
    "SECTIONS",
    "AlgorithmStatistics",
    "BiasCoverage",
    "Deviation",
    "ReportData",
    "ReportFigure",
    "TitleInfo",
    "bias_coverage",
    "descriptive_statistics",
    "report_tables",
]

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}

# Report sections, in order: key -> heading.
SECTIONS: dict[str, str] = {
    "title": "Title page",
    "summary": "Summary and deviations from the registered design",
    "design": "Registered design in brief",
    "tasks": "Rankings and uncertainty per task",
    "consensus": "Consensus across tasks",
    "audit": "Robustness and manipulation audit",
    "checklist": "BIAS reporting checklist",
    "appendix": "Appendix: descriptive statistics",
}

ORGANIZERS = "to be reported by the organizers"

# BIAS items (seed 004 A.8) this report covers, and the section that does.
_COVERED: dict[str, str] = {
    "5a": "title",
    "29a": "design",
    "30a": "design",
    "30b": "design",
    "31a": "design",
    "32b": "appendix",
    "33a": "tasks",
    "34": "appendix",
    "35a": "tasks",
    "35b": "tasks",
    "36": "audit",
}


@dataclass(frozen=True)
class TitleInfo:
    """What the title page says about the run and what it was run on."""

    challenge_name: str
    registration_identifier: str
    registration_version: str
    registration_hash: str
    results_version: str
    results_hash: str
    engine_version: str
    date: str
    seed: int | None
    exploratory: bool = False


@dataclass(frozen=True)
class Deviation:
    """A difference between the challenge as registered and as run."""

    code: str
    severity: str  # critical | warning | info
    message: str
    registered: Any = None
    observed: Any = None


@dataclass(frozen=True)
class AlgorithmStatistics:
    """Descriptive statistics of one algorithm's values in one task and metric."""

    task: str
    target: str
    metric: str
    algorithm: str
    n: int
    missing: int
    mean: float | None
    sd: float | None
    median: float | None
    q1: float | None
    q3: float | None

    @property
    def iqr(self) -> float | None:
        return None if self.q1 is None or self.q3 is None else self.q3 - self.q1


@dataclass(frozen=True)
class BiasCoverage:
    """A BIAS checklist item and the report section covering it (or None)."""

    item_id: str
    text: str
    section: str | None

    @property
    def covered_by(self) -> str:
        return SECTIONS[self.section] if self.section else ORGANIZERS


@dataclass(frozen=True)
class ReportFigure:
    """A rendered figure; ``task`` None places it with the consensus section."""

    key: str
    task: str | None
    title: str
    png: bytes
    dpi: int = 200  # the PDF never enlarges a figure beyond its natural size


@dataclass(frozen=True)
class ReportData:
    """Everything :func:`render_report_pdf` needs."""

    title: TitleInfo
    design: Mapping[str, str]
    output: Mapping[str, Any]
    deviations: tuple[Deviation, ...] = ()
    statistics: tuple[AlgorithmStatistics, ...] = ()
    bias: tuple[BiasCoverage, ...] = field(default_factory=lambda: bias_coverage())
    figures: tuple[ReportFigure, ...] = ()
    # Hook for further analyses (e.g. case characteristics, issue 16): each
    # callable gets the frame width in points and returns reportlab flowables,
    # placed after the audit section.
    further_analyses: tuple[Callable[[float], list], ...] = ()

    @property
    def sorted_deviations(self) -> list[Deviation]:
        """Critical first, then warnings, then information (stable)."""
        return sorted(self.deviations, key=lambda d: SEVERITY_ORDER.get(d.severity, 9))


def bias_coverage() -> tuple[BiasCoverage, ...]:
    """Every BIAS checklist item with the section of this report covering it."""
    return tuple(
        BiasCoverage(item_id=item.id, text=item.text, section=_COVERED.get(item.id))
        for item in BIAS_ITEMS
    )


def _num(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def descriptive_statistics(results: pd.DataFrame) -> tuple[AlgorithmStatistics, ...]:
    """Per task, target, metric and algorithm: n, missing, mean, SD (ddof = 1),
    median and quartiles (linear interpolation, R type 7).

    ``missing`` counts the task's cases (all cases present for any algorithm in
    that task, target and metric) without a value for the algorithm: empty
    values and absent rows alike (contract §1).
    """
    frame = results.copy()
    if "target" not in frame.columns:
        frame["target"] = ""
    frame["target"] = frame["target"].fillna("").astype(str)
    frame["value"] = pd.to_numeric(frame["value"], errors="coerce")
    out: list[AlgorithmStatistics] = []
    for (task, target, metric), group in frame.groupby(
        ["task", "target", "metric"], sort=True
    ):
        n_cases = group["case"].nunique()
        for algorithm in sorted(group["algorithm"].unique()):
            values = group.loc[group["algorithm"] == algorithm, "value"].to_numpy(
                dtype=np.float64
            )
            values = values[~np.isnan(values)]
            n = int(values.size)
            q1 = q3 = med = mean = sd = float("nan")
            if n:
                mean = float(values.mean())
                med, q1, q3 = (float(v) for v in np.percentile(values, [50, 25, 75]))
                if n > 1:
                    sd = float(values.std(ddof=1))
            out.append(
                AlgorithmStatistics(
                    task=str(task),
                    target=str(target),
                    metric=str(metric),
                    algorithm=str(algorithm),
                    n=n,
                    missing=int(n_cases - n),
                    mean=_num(mean),
                    sd=_num(sd),
                    median=_num(med),
                    q1=_num(q1),
                    q3=_num(q3),
                )
            )
    return tuple(out)


def _ci_columns(block: Mapping[str, Any], algorithm: str) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for method, bounds in (block.get("rank_ci") or {}).items():
        lo, hi = bounds.get(algorithm, [None, None])
        row[f"rank_ci_{method}_lower"] = lo
        row[f"rank_ci_{method}_upper"] = hi
    return row


def report_tables(
    output: Mapping[str, Any],
    *,
    statistics: Sequence[AlgorithmStatistics] = (),
) -> dict[str, list[dict[str, Any]]]:
    """The report's numbers as flat rows, for CSV and JSON downloads.

    Returns
    -------
    dict
        ``rankings`` (one row per ranking key, task and algorithm: rank, score,
        bootstrap median and 95 % interval, the rank CI of every method, the
        task's winner stability and Kendall's τ summary), ``consensus`` and
        ``descriptive_statistics`` (when ``statistics`` are given).
    """
    rankings: list[dict[str, Any]] = []
    consensus: list[dict[str, Any]] = []
    for key, entry in output["rankings"].items():
        for task, block in entry["tasks"].items():
            tau = block.get("kendall_tau") or {}
            for algorithm in sorted(
                block["ranks"],
                key=lambda a, r=block["ranks"]: (r[a] is None, r[a] or 0, a),
            ):
                boot = (block.get("bootstrap") or {}).get(algorithm) or {}
                rankings.append(
                    {
                        "ranking": key,
                        "task": task,
                        "algorithm": algorithm,
                        "rank": block["ranks"][algorithm],
                        "score": block["scores"].get(algorithm),
                        "bootstrap_median_rank": boot.get("median"),
                        "bootstrap_lower": boot.get("lower"),
                        "bootstrap_upper": boot.get("upper"),
                        **_ci_columns(block, algorithm),
                        "winner_stability": block.get("winner_stability"),
                        "kendall_tau_median": tau.get("median"),
                        "kendall_tau_lower": tau.get("lower"),
                        "kendall_tau_upper": tau.get("upper"),
                    }
                )
        for algorithm, rank in (entry.get("consensus") or {}).get("ranks", {}).items():
            consensus.append(
                {
                    "ranking": key,
                    "algorithm": algorithm,
                    "rank": rank,
                    "score": entry["consensus"]["scores"].get(algorithm),
                }
            )
    consensus.sort(key=lambda r: (r["ranking"], r["rank"] is None, r["rank"] or 0))
    tables: dict[str, list[dict[str, Any]]] = {
        "rankings": rankings,
        "consensus": consensus,
    }
    if statistics:
        tables["descriptive_statistics"] = [
            {
                "task": s.task,
                "target": s.target,
                "metric": s.metric,
                "algorithm": s.algorithm,
                "n": s.n,
                "missing": s.missing,
                "mean": s.mean,
                "sd": s.sd,
                "median": s.median,
                "q1": s.q1,
                "q3": s.q3,
                "iqr": s.iqr,
            }
            for s in statistics
        ]
    return tables


def design_in_brief(scheme: Mapping[str, Any]) -> dict[str, str]:
    """The scheme in plain-language sentences (``describe_scheme``)."""
    return describe_scheme(dict(scheme))


def design_of(output: Mapping[str, Any]) -> dict[str, str]:
    """Design in brief; labels name the tasks when schemes differ by task."""
    groups = scheme_groups(output)
    if len(groups) == 1:
        return design_in_brief(groups[0][1])
    return {
        f"{key} (tasks {', '.join(tasks)})": sentence
        for tasks, scheme in groups
        for key, sentence in design_in_brief(scheme).items()
    }
