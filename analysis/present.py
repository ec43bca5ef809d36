"""An analysis output (contract §3) arranged for templates: the analysis page
and the public results page of a published analysis (publicrecord)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from matplotlib.figure import Figure

from ranking.vocabulary import column_label
from registry.spreadsheet import csv_text

from . import plots
from .deviations import SEVERITY_ORDER
from .output import AnalysisOutput
from .reports import (
    RANK_CI_MEANINGS,
    descriptive_statistics,
    deviation_value_text,
    report_tables,
    table_columns,
)
from .reports.build import metric_higher_is_better
from .services import results_frame

SEVERITY_CLASS = {"critical": "danger", "warning": "warning", "info": "info"}

# Figures shown on the page (the PDF has them all): kind → (title, needs).
TASK_PLOTS = {
    "dot_box": "Dot-and-box plot",
    "blob": "Blob plot of bootstrap ranks",
    "significance": "Significance map",
    "target_dot_box": "Dot-and-box plot per target",
    "target_significance": "Significance map per target",
}
SET_PLOTS = {"across_tasks": "Ranks across tasks"}


def _as_text(code: str, value: Any) -> str:
    """A deviation's registered or observed value as readable text."""
    return "—" if value is None or value == "" else deviation_value_text(code, value)


def sorted_deviations(deviations: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Most severe first; registered and observed values as readable text."""
    rows = [
        {
            **d,
            "css": SEVERITY_CLASS.get(d.get("severity"), "secondary"),
            "registered_text": _as_text(d.get("code"), d.get("registered")),
            "observed_text": _as_text(d.get("code"), d.get("observed")),
        }
        for d in deviations
    ]
    return sorted(rows, key=lambda d: SEVERITY_ORDER.get(d.get("severity"), 9))


def task_plot_kinds(key: str, block: Mapping[str, Any]) -> list[str]:
    kinds = []
    targets = block.get("targets") or {}
    if key != "combined" and not targets:
        kinds.append("dot_box")
    if block.get("bootstrap"):
        kinds.append("blob")
    if block.get("significance"):
        kinds.append("significance")
    if key != "combined" and targets:  # each target in its own case space
        kinds.append("target_dot_box")
    if any(t.get("significance") for t in targets.values()):
        kinds.append("target_significance")
    return kinds


def plot_url(run_pk: int, kind: str, *, key: str, task: str | None) -> str:
    query = {"key": key} | ({"task": task} if task is not None else {})
    return f"{reverse('analysis:plot', args=[run_pk, kind])}?{urlencode(query)}"


def interval_table(block: Mapping[str, Any]) -> dict[str, Any]:
    """Rank, score and one interval column per registered rank_ci method of a
    task or target block; a cell is ``outside`` when the rank is not in it."""
    methods = list(block.get("rank_ci") or {})
    ranks = block["ranks"]
    rows = []
    for a in sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)):
        cells = []
        for method in methods:
            lo, hi = block["rank_ci"][method].get(a, [None, None])
            outside = None not in (lo, hi, ranks[a]) and not lo <= ranks[a] <= hi
            cells.append({"lower": lo, "upper": hi, "outside": outside})
        rows.append(
            {
                "rank": ranks[a],
                "algorithm": a,
                "score": block["scores"].get(a),
                "intervals": cells,
            }
        )
    return {
        "methods": [(m, RANK_CI_MEANINGS.get(m, "")) for m in methods],
        "rows": rows,
        "any_outside": any(c["outside"] for r in rows for c in r["intervals"]),
    }


# (kind, key, task) → the address of that figure
FigureUrl = Callable[[str, str, str | None], str]


def ranking_sections(
    run_pk: int, output: Mapping[str, Any], *, figure_url: FigureUrl | None = None
) -> list[dict[str, Any]]:
    """One section per ranking key: its tasks' tables and figures, then consensus.

    ``figure_url``: where the figures are served (default: the analysis page's
    PNG figures of run ``run_pk``)."""
    if figure_url is None:

        def figure_url(kind: str, key: str, task: str | None) -> str:
            return plot_url(run_pk, kind, key=key, task=task)

    rows = report_tables(output)["rankings"]
    sections = []
    reader = AnalysisOutput.of(output)
    for key in reader.keys:
        tasks = []
        for task, block in reader.tasks(key).items():
            bootstrap = [
                row for row in rows if (row["ranking"], row["task"]) == (key, task)
            ]
            tasks.append(
                {
                    "name": task,
                    "table": interval_table(block),
                    "targets": [
                        (name, interval_table(t))
                        for name, t in (block.get("targets") or {}).items()
                    ],
                    "bootstrap_rows": bootstrap,
                    "has_bootstrap": bool(block.get("bootstrap")),
                    "winner_stability": block.get("winner_stability"),
                    "kendall_tau": block.get("kendall_tau"),
                    "audit": audit_summary(block.get("audit")),
                    "plots": [
                        (TASK_PLOTS[k], figure_url(k, key, task))
                        for k in task_plot_kinds(key, block)
                    ],
                    # the same, split: the task's own figures and its targets'
                    "task_plots": [
                        (TASK_PLOTS[k], figure_url(k, key, task))
                        for k in task_plot_kinds(key, block)
                        if not k.startswith("target_")
                    ],
                    "target_plots": [
                        (TASK_PLOTS[k], figure_url(k, key, task))
                        for k in task_plot_kinds(key, block)
                        if k.startswith("target_")
                    ],
                }
            )
        consensus = reader.consensus(key)
        ranks = consensus.get("ranks") or {}
        sections.append(
            {
                "key": key,
                "tasks": tasks,
                "consensus": [
                    (ranks[a], a, (consensus.get("scores") or {}).get(a))
                    for a in sorted(
                        ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)
                    )
                ],
                "plots": [
                    (SET_PLOTS[k], figure_url(k, key, None))
                    for k in SET_PLOTS
                    if len(reader.tasks(key)) > 1
                ],
            }
        )
    return sections


def audit_summary(audit: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Alternatives (who is first, τ) and the rank range of each algorithm."""
    if not audit:
        return None
    alternatives = [
        {
            **alt,
            "first": ", ".join(sorted(a for a, r in alt["ranks"].items() if r == 1)),
        }
        for alt in audit.get("alternatives", [])
    ]
    firsts = {alt["first"] for alt in alternatives}
    return {
        "alternatives": alternatives,
        "same_winner": len(firsts) <= 1,
        "rank_range": sorted((audit.get("rank_range") or {}).items()),
    }


def run_figure(run, kind: str, key: str | None, task: str | None) -> Figure:
    """Figure ``kind`` of ranking ``key`` (and ``task``) of a finished run,
    drawn from its stored output; LookupError names what does not exist."""
    output = AnalysisOutput.of(run.output or {})
    entry = output.ranking(key)
    if entry is None:
        raise LookupError("No such ranking.")
    if kind in SET_PLOTS:
        if task is not None or len(output.tasks(key)) < 2:
            raise LookupError("No such figure.")
        return plots.rank_blobs_across_tasks(entry)
    block = output.entry(key, task)
    if (
        kind not in TASK_PLOTS
        or block is None
        or kind not in task_plot_kinds(key, block)
    ):
        raise LookupError("No such figure.")
    if kind == "blob":
        return plots.blob_plot(block)
    if kind == "significance":
        return plots.significance_map(block)
    frame = results_frame(run.results)
    if kind.startswith("target_"):
        return plots.target_grid(
            kind.removeprefix("target_"),
            frame,
            task=task,
            metric=key,
            targets=block["targets"],
            higher_is_better=metric_higher_is_better(output.scheme_of(task), key),
        )
    return plots.dot_box_plot(frame, task=task, metric=key, ranks=block["ranks"])


def table_csv_for_people(run, name: str) -> str:
    """The analysis table `name` (`report_tables`) as CSV with plain headers
    (`ranking.vocabulary.column_label`), for the analysis page's downloads;
    the API's CSV keeps the column names for programs. Raises LookupError for
    an unknown table."""
    tables = report_tables(
        run.output, statistics=descriptive_statistics(results_frame(run.results))
    )
    if name not in tables:
        raise LookupError(f"No table {name!r}.")
    columns = table_columns(tables, name)
    rows = [{column_label(k): v for k, v in row.items()} for row in tables[name]]
    return csv_text(rows, columns=[column_label(c) for c in columns])
