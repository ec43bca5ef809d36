"""From a results table and an analysis output to :class:`ReportData`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from analysis import plots
from ranking.output import scheme_of

from .data import (
    Deviation,
    ReportData,
    ReportFigure,
    TitleInfo,
    bias_coverage,
    descriptive_statistics,
    design_of,
)

__all__ = ["build_report_data", "build_report_figures"]

# Grids of one panel per algorithm, and podiums, are cut to the best k.
GRID_TOP_K = 20
PODIUM_TOP_K = 10
FIGURE_DPI = 200  # high-DPI PNG: no SVG-to-PDF converter is installed


def _hib(scheme: Mapping[str, Any], metric: str) -> bool:
    value = scheme["higher_is_better"]
    return bool(value[metric] if isinstance(value, Mapping) else value)


def _png(fig) -> bytes:
    return plots.figure_png(fig, dpi=FIGURE_DPI)


def _task_figures(
    results: pd.DataFrame,
    scheme: Mapping[str, Any],
    key: str,
    task: str,
    block: Mapping[str, Any],
    taus: Mapping[str, Any],
    top_k: int | None,
) -> list[ReportFigure]:
    figures: list[ReportFigure] = []

    def add(title: str, fig) -> None:
        figures.append(
            ReportFigure(key=key, task=task, title=title, png=_png(fig), dpi=FIGURE_DPI)
        )

    m = len(block["ranks"])
    if key != "combined":
        hib = _hib(scheme, key)
        common = {"task": task, "metric": key, "ranks": block["ranks"]}
        add("Dot-and-box plot", plots.dot_box_plot(results, **common, top_k=top_k))
        k = min(top_k or m, PODIUM_TOP_K)
        add(
            "Podium plot" + (f" (best {k} algorithms)" if k < m else ""),
            plots.podium_plot(results, **common, higher_is_better=hib, top_k=k),
        )
        add(
            "Ranking heatmap",
            plots.ranking_heatmap(results, **common, higher_is_better=hib, top_k=top_k),
        )
    if block.get("bootstrap"):
        add("Blob plot of bootstrap ranks", plots.blob_plot(block, top_k=top_k))
        add(
            "Violin plot of Kendall's τ",
            plots.kendall_tau_violins(
                {task: taus.get(task)}, summaries={task: block.get("kendall_tau")}
            ),
        )
    if block.get("significance"):
        add("Significance map", plots.significance_map(block, top_k=top_k))
    if block.get("audit", {}).get("alternatives"):
        add(
            "Ranks across ranking methods",
            plots.ranking_methods_plot(block, top_k=top_k),
        )
    return figures


def _task_set_figures(
    key: str, entry: Mapping[str, Any], taus: Mapping[str, Any], top_k: int | None
) -> list[ReportFigure]:
    tasks = entry["tasks"]
    if len(tasks) < 2:
        return []
    grid_k = min(top_k or GRID_TOP_K, GRID_TOP_K)
    figs: list[tuple[str, Any]] = [
        ("Ranks across tasks", plots.rank_blobs_across_tasks(entry, top_k=top_k)),
    ]
    if all(block.get("bootstrap") for block in tasks.values()):
        figs += [
            (
                "Bootstrap ranks per task",
                plots.bootstrap_blobs_per_task(entry, top_k=top_k),
            ),
            (
                "Bootstrap ranks per algorithm",
                plots.bootstrap_blobs_per_algorithm(entry, top_k=grid_k),
            ),
            (
                "Stacked rank frequencies",
                plots.stacked_frequency_plot(entry, top_k=grid_k),
            ),
            (
                "Kendall's τ per task",
                plots.kendall_tau_violins(
                    dict(taus),
                    summaries={t: b.get("kendall_tau") for t, b in tasks.items()},
                ),
            ),
        ]
    figs += [
        ("Task dendrogram", plots.task_dendrogram(entry)),
        ("Network of tasks", plots.task_network(entry)),
    ]
    return [
        ReportFigure(key=key, task=None, title=t, png=_png(f), dpi=FIGURE_DPI)
        for t, f in figs
    ]


def build_report_figures(
    results: pd.DataFrame, output: Mapping[str, Any], *, top_k: int | None = None
) -> tuple[ReportFigure, ...]:
    """Every figure of the report, in report order (per key: tasks, then across).

    Kendall's τ violins use the τ samples re-drawn with the output's seed
    (:func:`analysis.plots.bootstrap_kendall_taus`).
    """
    figures: list[ReportFigure] = []
    for key, entry in output["rankings"].items():
        has_boot = any(b.get("bootstrap") for b in entry["tasks"].values())
        taus = (
            plots.bootstrap_kendall_taus(results, output, key=key) if has_boot else {}
        )
        for task, block in entry["tasks"].items():
            scheme = scheme_of(output, task)
            figures += _task_figures(results, scheme, key, task, block, taus, top_k)
        figures += _task_set_figures(key, entry, taus, top_k)
    return tuple(figures)


def build_report_data(
    results: pd.DataFrame,
    output: Mapping[str, Any],
    *,
    title: TitleInfo,
    deviations: Iterable[Deviation] = (),
    figures: bool = True,
    top_k: int | None = None,
) -> ReportData:
    """Assemble the report of one analysis run (no database involved)."""
    return ReportData(
        title=title,
        design=design_of(output),
        output=output,
        deviations=tuple(deviations),
        statistics=descriptive_statistics(results),
        bias=bias_coverage(),
        figures=build_report_figures(results, output, top_k=top_k) if figures else (),
    )
