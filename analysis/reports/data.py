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

from analysis.output import AnalysisOutput
from ranking import describe_scheme, vocabulary
from ranking.output import group_tasks_by_scheme
from registry.numbers import percent_text

from .bias_items import BIAS_ITEMS

__all__ = [
    "FIGURE_TOP_K",
    "ORGANIZERS",
    "RANK_CI_MEANINGS",
    "SECTIONS",
    "AlgorithmStatistics",
    "BiasCoverage",
    "Deviation",
    "ReportData",
    "ReportFigure",
    "TitleInfo",
    "audit_findings",
    "bias_coverage",
    "descriptive_statistics",
    "deviation_value_text",
    "readable",
    "report_tables",
]

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}

# Beyond this many algorithms, the figures of single cases (dot-and-box) and
# the per-algorithm panels across tasks show the best FIGURE_TOP_K, and their
# titles say so; rankings, intervals, blob plots, heatmaps and significance
# maps keep every algorithm (issue 28: the 40 x 20 report had 162 pages).
FIGURE_TOP_K = 20

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

# A descriptive-statistics appendix of more rows (about four pages) is
# summarised: the full table is a download (40 x 20: 800 rows, 14 pages).
APPENDIX_MAX_ROWS = 240
STATISTICS_DOWNLOAD = (
    "The full table is offered for download on the analysis page (Summary"
    " statistics, CSV or JSON)."
)

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
    registration_note: str = ""  # e.g. that later registration versions exist
    # False: no registration to compare with (manage.py report), so no
    # deviations were checked and the scheme is the one given with the results
    registered: bool = True


@dataclass(frozen=True)
class Deviation:
    """A difference between the challenge as registered and as run."""

    code: str
    severity: str  # critical | warning | info
    message: str
    registered: Any = None
    observed: Any = None
    task: str | None = None
    evidence: Any = None


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
    """A BIAS checklist item, the report section covering it (or None) and
    where the registered design answers it (or None)."""

    item_id: str
    text: str
    section: str | None
    design: str | None = None

    @property
    def covered_by(self) -> str:
        parts = []
        if self.design:
            parts.append(f"Registered design: {self.design}")
        if self.section:
            parts.append(SECTIONS[self.section])
        return "; ".join(parts) or ORGANIZERS


@dataclass(frozen=True)
class ReportFigure:
    """A rendered vector figure (a one-page PDF of ``width`` × ``height``
    points); ``task`` None places it with the consensus section, ``targets``
    names the targets drawn (one panel each) for a task with targets."""

    key: str
    task: str | None
    title: str
    pdf: bytes
    width: float
    height: float
    caption: str = ""
    targets: tuple[str, ...] = ()


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
    registered_schemes: Mapping[str, Any] = field(default_factory=dict)
    # Where the full descriptive-statistics table is when the report only
    # summarises it (a long appendix): a sentence.
    statistics_download: str = STATISTICS_DOWNLOAD

    @property
    def statistics_summarised(self) -> bool:
        """Whether the appendix summarises the descriptive statistics (too
        many rows to print) and refers to ``statistics_download``."""
        return len(self.statistics) > APPENDIX_MAX_ROWS

    @property
    def sorted_deviations(self) -> list[Deviation]:
        """Critical first, then warnings, then information (stable)."""
        return sorted(self.deviations, key=lambda d: SEVERITY_ORDER.get(d.severity, 9))


def bias_coverage(
    design_answers: Mapping[str, str] | None = None,
) -> tuple[BiasCoverage, ...]:
    """Every BIAS checklist item with the section of this report covering it
    and, from ``design_answers`` (item → the registered design's parameters
    answering it), where the registered design answers it."""
    answers = design_answers or {}
    return tuple(
        BiasCoverage(
            item_id=item.id,
            text=item.text,
            section=_COVERED.get(item.id),
            design=answers.get(item.id),
        )
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


def _ranking_rows(
    key: str, task: str, block: Mapping[str, Any], *, target: str | None = None
) -> list[dict[str, Any]]:
    """One row per algorithm of a task's ranking or, with ``target``, of one
    of its targets (ranks, scores, rank intervals; the bootstrap summaries are
    the task's, so a target's are empty)."""
    tau = block.get("kendall_tau") or {}
    where = {"ranking": key, "task": task}
    if target is not None:
        where["target"] = target
    rows = []
    for algorithm in sorted(
        block["ranks"],
        key=lambda a, r=block["ranks"]: (r[a] is None, r[a] or 0, a),
    ):
        boot = (block.get("bootstrap") or {}).get(algorithm) or {}
        rows.append(
            {
                **where,
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
    return rows


def report_tables(
    output: Mapping[str, Any],
    *,
    statistics: Sequence[AlgorithmStatistics] = (),
) -> dict[str, list[dict[str, Any]]]:
    """The report's numbers as flat rows, for CSV and JSON downloads.

    Returns
    -------
    dict
        ``rankings`` (one row per ranking key, task and algorithm: rank,
        score, bootstrap median and 2.5/97.5 % percentiles, the rank CI of
        every method, the task's winner stability and Kendall's τ summary),
        ``target_rankings`` (the same per target of a task with targets, with
        a ``target`` column; empty otherwise), ``consensus`` and
        ``descriptive_statistics`` (when ``statistics`` are given).
    """
    rankings: list[dict[str, Any]] = []
    target_rankings: list[dict[str, Any]] = []
    consensus: list[dict[str, Any]] = []
    out = AnalysisOutput.of(output)
    for key in out.keys:
        for task, block in out.tasks(key).items():
            rankings += _ranking_rows(key, task, block)
            for target, t_block in (block.get("targets") or {}).items():
                target_rankings += _ranking_rows(key, task, t_block, target=target)
        key_consensus = out.consensus(key)
        for algorithm, rank in key_consensus.get("ranks", {}).items():
            consensus.append(
                {
                    "ranking": key,
                    "algorithm": algorithm,
                    "rank": rank,
                    "score": key_consensus["scores"].get(algorithm),
                }
            )
    consensus.sort(key=lambda r: (r["ranking"], r["rank"] is None, r["rank"] or 0))
    tables: dict[str, list[dict[str, Any]]] = {
        "rankings": rankings,
        "target_rankings": target_rankings,
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


RANKING_COLUMNS = (
    "ranking", "task", "algorithm", "rank", "score", "bootstrap_median_rank",
    "bootstrap_lower", "bootstrap_upper", "winner_stability",
    "kendall_tau_median", "kendall_tau_lower", "kendall_tau_upper",
)  # fmt: skip
EMPTY_TABLE_COLUMNS = {
    "rankings": RANKING_COLUMNS,
    "consensus": ("ranking", "algorithm", "rank", "score"),
    "descriptive_statistics": (
        "task", "target", "metric", "algorithm", "n", "missing",
        "mean", "sd", "median", "q1", "q3", "iqr",
    ),
}  # fmt: skip


def table_columns(tables: Mapping[str, list[dict[str, Any]]], name: str) -> list[str]:
    """The header of `report_tables`' table `name`: its rows' keys, or for an
    empty table the columns it would have (a target table: the rankings'
    columns with ``target`` after ``task``)."""
    if tables.get(name):
        return list(tables[name][0])
    if name == "target_rankings":
        columns = table_columns(tables, "rankings")
        return [*columns[:2], "target", *columns[2:]]
    return list(EMPTY_TABLE_COLUMNS.get(name, ()))


def design_in_brief(scheme: Mapping[str, Any]) -> dict[str, str]:
    """The scheme in plain-language sentences (``describe_scheme``)."""
    return describe_scheme(dict(scheme))


def design_of(
    output: Mapping[str, Any], registered: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """The *registered* design in brief when the registered schemes are known
    (an exploratory run executes another scheme), else the executed one;
    labels name the tasks when schemes differ by task."""
    known = {t: s for t, s in (registered or {}).items() if s}
    groups = (
        group_tasks_by_scheme(known)
        if known
        else AnalysisOutput.of(output).scheme_groups()
    )
    if not groups:
        return {}
    if len(groups) == 1:
        return design_in_brief(groups[0][1])
    return {
        f"{key} (tasks {', '.join(tasks)})": sentence
        for tasks, scheme in groups
        for key, sentence in design_in_brief(scheme).items()
    }


# One line per rank-interval method (contract §2, seed 001): what it means.
RANK_CI_MEANINGS: dict[str, str] = {
    "bootstrap": "2.5–97.5 % of the ranks of mean scores over paired bootstrap samples",
    "bootstrap_unpaired": "as bootstrap, each algorithm's cases drawn independently",
    "id_nemenyi": "ranks not excluded by Nemenyi tests on per-case ranks",
    "id_wilcoxon_two_sided": "ranks not excluded by two-sided pairwise Wilcoxon"
    " tests (Holm per algorithm)",
    "id_wilcoxon_one_sided": "ranks not excluded by one-sided pairwise Wilcoxon"
    " tests (Holm per algorithm and side)",
    "anova_tukey": "ranks not excluded by Tukey HSD on rank-transformed values",
}

READABLE_ITEMS = 12  # list items shown in a table cell before "… and n more"


# Deviations whose registered / observed numbers are shares (missing cases,
# winner stability and its threshold): shown as percentages, as in the message.
SHARE_CODES = frozenset({"missing_cases", "unstable_winner"})


# Deviations of one kind and severity in one task are one row of the report
# from this many on (RobustMIS: 20 near-identical rows of missing cases).
GROUP_DEVIATIONS_FROM = 3


@dataclass(frozen=True)
class DeviationRow:
    """A row of the report's deviations table: one deviation, or ``count``
    of one kind and severity in one task."""

    severity: str
    code: str
    message: str
    registered: str
    observed: str
    count: int = 1


def deviation_rows(deviations: Sequence[Deviation]) -> list[DeviationRow]:
    """The deviations as table rows, in their order; those of one code and
    severity in one task grouped into one row from GROUP_DEVIATIONS_FROM on
    (at the place of the first), each one's distinguishing part kept."""
    groups: dict[tuple[str, str, str | None], list[Deviation]] = {}
    for d in deviations:
        groups.setdefault((d.severity, d.code, d.task), []).append(d)
    rows = []
    for d in deviations:
        group = groups[(d.severity, d.code, d.task)]
        if d.task is None or len(group) < GROUP_DEVIATIONS_FROM:
            rows.append(_deviation_row(d))
        elif d is group[0]:
            rows.append(_grouped_row(group))
    return rows


def _deviation_row(d: Deviation) -> DeviationRow:
    observed = "; ".join(
        t
        for t in (deviation_value_text(d.code, d.observed), readable(d.evidence))
        if t != "–"
    )
    return DeviationRow(
        d.severity,
        d.code,
        d.message,
        deviation_value_text(d.code, d.registered),
        observed or "–",
    )


def _missing_counts(group: list[Deviation]) -> str | None:
    """Missing cases of several algorithms in one task, compactly: per metric
    (and target) the algorithms with their number of missing cases; None
    unless every deviation's evidence says all that."""
    keys = {"algorithm", "metric", "missing", "cases"}
    if not all(
        isinstance(d.evidence, Mapping) and keys <= d.evidence.keys() for d in group
    ):
        return None
    parts: dict[tuple[str, str, int], list[str]] = {}
    for d in group:
        e = d.evidence
        where = (str(e["metric"]), str(e.get("target") or ""), int(e["cases"]))
        parts.setdefault(where, []).append(f"{e['algorithm']} {e['missing']}")
    return "; ".join(
        f"{metric}{f', target {target}' if target else ''} (of {cases} cases): "
        + ", ".join(counts)
        for (metric, target, cases), counts in parts.items()
    )


def _common_start(texts: list[str]) -> str:
    """The longest beginning all ``texts`` share (character by character)."""
    first, last = min(texts), max(texts)
    size = next(
        (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
        min(len(first), len(last)),
    )
    return first[:size]


def _grouped_row(group: list[Deviation]) -> DeviationRow:
    """One row for deviations of one kind in one task: missing cases as
    counts per algorithm; others by what their messages say after their
    common beginning ("Task X, MI " …): that beginning once, then each rest."""
    messages = [d.message for d in group]
    counts = _missing_counts(group) if group[0].code == "missing_cases" else None
    if counts is not None:
        message = (
            f"Task {group[0].task}: {len(group)} results without some cases, missing"
            f" cases per algorithm: {counts}."
        )
    else:
        common = _common_start(messages)
        common = common[: common.rfind(" ") + 1] if " " in common else ""
        rests = [m[len(common) :].rstrip(".") for m in messages]
        message = f"{len(group)} findings: {common}" + "; ".join(rests) + "."
    values = sorted(
        {d.observed for d in group if d.observed is not None}, key=lambda v: str(v)
    )
    if values and all(isinstance(v, int | float) for v in values):
        low, high = min(values), max(values)
        code = group[0].code
        observed = deviation_value_text(code, low) + (
            f" to {deviation_value_text(code, high)}" if high != low else ""
        )
    else:
        observed = readable(values) if values else "–"
    registered = {repr(d.registered) for d in group}
    return DeviationRow(
        group[0].severity,
        group[0].code,
        message,
        deviation_value_text(group[0].code, group[0].registered)
        if len(registered) == 1
        else "various",
        observed,
        count=len(group),
    )


def deviation_value_text(code: str, value: Any) -> str:
    """A deviation's registered or observed value as readers see it: a share
    as a percentage ("25.0 %", not 0.25), anything else :func:`readable`."""
    if code in SHARE_CODES and isinstance(value, float):
        return percent_text(value)
    return readable(value)


def readable(value: Any) -> str:
    """A stored value (deviation evidence, a scheme field) as plain text:
    ``key: value`` pairs and comma-separated lists, never raw JSON."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, Mapping):
        return "; ".join(
            f"{k.replace('_', ' ')}: {readable(v)}" for k, v in value.items()
        )
    if isinstance(value, (list, tuple)):
        items = [readable(v) for v in value[:READABLE_ITEMS]]
        more = len(value) - READABLE_ITEMS
        return ", ".join(items) + (f" … and {more} more" if more > 0 else "")
    return str(value)


def _first(ranks: Mapping[str, Any], places: int = 1) -> list[str]:
    present = sorted((r, a) for a, r in ranks.items() if r is not None and r <= places)
    return [a for _, a in present]


def _alternative_name(alt: Mapping[str, Any]) -> str:
    words = {
        "aggregate_then_rank": "aggregate-then-rank",
        "rank_then_aggregate": "rank-then-aggregate",
        "test_then_rank": "test-then-rank",
    }
    name = words.get(alt["method"], alt["method"])
    if alt.get("aggregate") not in (None, "none"):
        name += f" ({alt['aggregate']})"
    return f"{name} of {alt['metric']}"


def _is_metric(key: str, alternatives: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the ranking key is one of the metrics the alternatives use
    (a combined ranking of several metrics is not)."""
    return any(alt["metric"] == key for alt in alternatives)


def _scheme_sentences(
    where: str, block: Mapping[str, Any], key: str | None = None
) -> list[str]:
    """What the alternative schemes change. A metric's ranking (``key``) is
    also compared with the alternatives of the scheme's other metrics (the
    metric is one of the choices a ranking is sensitive to, seed 002): those
    sentences say that another metric, not only another method, was used."""
    alternatives = (block.get("audit") or {}).get("alternatives") or []
    if not alternatives:
        return []
    winners, podium = _first(block["ranks"]), _first(block["ranks"], 3)
    out = []
    for alt in alternatives:
        if alt.get("registered"):
            continue
        alt_winners, alt_podium = _first(alt["ranks"]), _first(alt["ranks"], 3)
        name = _alternative_name(alt)
        if key is not None and alt["metric"] != key and _is_metric(key, alternatives):
            name += f" (another metric than {key}, not only another method)"
        if alt_winners != winners:
            out.append(
                f"{where}: under {name} the winner would be"
                f" {', '.join(alt_winners) or '–'} instead of"
                f" {', '.join(winners) or '–'} (Kendall's τ to the registered"
                f" ranking {readable(alt.get('kendall_tau'))})."
            )
        elif alt_podium != podium:
            out.append(
                f"{where}: under {name} the winner stays but the podium changes"
                f" from {', '.join(podium)} to {', '.join(alt_podium)}."
            )
    if not out:
        out.append(
            f"{where}: every alternative scheme keeps the winner"
            f" ({', '.join(winners) or '–'}) and the podium ({', '.join(podium)})."
        )
    return out


def _withholding_sentences(
    where: str, block: Mapping[str, Any], rule: str
) -> list[str]:
    rule = vocabulary.short_label(rule).lower()  # "replace by a fixed value"
    selective = (block.get("audit") or {}).get("selective_submission") or {}
    table = selective.get("registered_policy") or {}
    if not table:
        return []
    out = []
    for algorithm in sorted(table):
        rank = block["ranks"].get(algorithm)
        if rank is None:
            continue
        gains = [
            (r, int(p))
            for p, r in table[algorithm].items()
            if r is not None and r < rank
        ]
        if gains:
            best, percent = min(gains)
            out.append(
                f"{where}: {algorithm} would gain by withholding cases under the"
                f" registered missing rule ({rule}): withholding its worst"
                f" {percent} % of cases moves it from rank {readable(rank)} to"
                f" {readable(best)}."
            )
    if not out:
        out.append(
            f"{where}: no algorithm would improve its rank by withholding its"
            f" worst cases under the registered missing rule ({rule})."
        )
    return out


def audit_findings(
    output: Mapping[str, Any], deviations: Sequence[Any] = ()
) -> list[str]:
    """The audit's conclusions, one sentence per finding: which alternative
    schemes change the winner or the podium, which algorithms would gain by
    withholding cases under the registered missing rule (and by how much),
    and which selective submissions the deviation checks suspect."""
    sentences: list[str] = []
    out = AnalysisOutput.of(output)
    for entry in out.entries():
        where = f"Task {entry.task} ({entry.key})"
        missing = out.scheme_of(entry.task).get("missing") or {}
        rule = readable(missing.get("policy", "none"))
        sentences += _scheme_sentences(where, entry.block, entry.key)
        sentences += _withholding_sentences(where, entry.block, rule)
    for d in deviations:
        if d.code == "selective_submission_suspected":
            sentences.append(f"Suspected selective submission: {d.message}")
    return sentences
