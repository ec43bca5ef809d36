"""Plots of the assessment data of one task (seed 000, Figs. 1-3):
dot-and-box plots, podium plots and ranking heatmaps.

They read the long results table (contract §1) and the task ranking of the
analysis output (``ranks``), which fixes the order of the algorithms.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ranking import case_ranks

from ._style import (
    algorithm_colors,
    axis_width,
    label_size,
    new_figure,
    ordered,
    rotate_labels,
)

__all__ = ["dot_box_plot", "podium_plot", "ranking_heatmap", "task_matrix"]


def task_matrix(
    results: pd.DataFrame, *, task: str, metric: str, algorithms: list[str]
) -> np.ndarray:
    """(cases x algorithms) values of one task and metric; NaN = missing.

    With targets, every (case, target) pair is one row.
    """
    frame = results[(results["task"] == task) & (results["metric"] == metric)]
    if frame.empty:
        raise ValueError(f"no results for task {task!r} and metric {metric!r}")
    frame = frame.assign(value=pd.to_numeric(frame["value"], errors="coerce"))
    index = ["case"]
    if "target" in frame.columns:
        frame = frame.assign(target=frame["target"].fillna("").astype(str))
        index.append("target")
    wide = frame.pivot_table(
        index=index, columns="algorithm", values="value", aggfunc="first", dropna=False
    )
    wide = wide.reindex(columns=algorithms)
    return wide.to_numpy(dtype=np.float64)


def _title(fig: Figure, text: str | None) -> None:
    if text:
        fig.suptitle(text, fontsize=10)


def dot_box_plot(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    ranks: Mapping[str, float | None],
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Box plots of each algorithm's metric values with jittered case dots.

    Algorithms are ordered by ``ranks`` (best left); missing values are not
    drawn and their count is printed under the algorithm's name.
    """
    algs = ordered(ranks, top_k=top_k)
    x = task_matrix(results, task=task, metric=metric, algorithms=algs)
    colors = algorithm_colors(algs)
    fig = new_figure(axis_width(len(algs), per_item=0.3), 4.2)
    ax = fig.add_subplot()
    data = [col[~np.isnan(col)] for col in x.T]
    ax.boxplot(
        data,
        positions=np.arange(len(algs)),
        widths=0.6,
        showfliers=False,
        medianprops={"color": "black"},
    )
    rng = np.random.default_rng(0)
    dot = 12 if x.shape[0] <= 100 else 4
    for j, values in enumerate(data):
        jitter = rng.uniform(-0.2, 0.2, size=values.size)
        ax.scatter(
            j + jitter, values, s=dot, color=colors[algs[j]], alpha=0.6, linewidths=0
        )
    labels = []
    for j, a in enumerate(algs):
        n_missing = int(np.isnan(x[:, j]).sum())
        labels.append(f"{a}\n({n_missing} missing)" if n_missing else a)
    ax.set_xticks(np.arange(len(algs)), labels)
    rotate_labels(ax, len(algs))
    ax.set_ylabel(metric)
    ax.set_xlabel("Algorithm (ordered by rank)")
    ax.grid(axis="y", alpha=0.3)
    _title(fig, title or f"{task}: {metric} per algorithm")
    fig.tight_layout()
    return fig


def _podium_places(x: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Per-case places 1..m without ties (ties broken by algorithm order,
    missing results last), as seed 000 requires unique ranks for podiums."""
    m = x.shape[1]
    key = np.where(np.isnan(x), -np.inf, x if higher_is_better else -x)
    order = np.argsort(-key, axis=1, kind="stable")
    places = np.empty_like(order)
    rows = np.arange(x.shape[0])[:, None]
    places[rows, order] = np.arange(1, m + 1)[None, :]
    return places


def podium_plot(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    ranks: Mapping[str, float | None],
    higher_is_better: bool,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Podium plot (seed 000 Fig. 2): each case's values placed on the podium of
    the algorithm's per-case place, dots of one case joined by a line; below,
    how often each algorithm reached each place.

    With ``top_k`` only the k best algorithms take part (places among them).
    """
    algs = ordered(ranks, top_k=top_k)
    m = len(algs)
    x = task_matrix(results, task=task, metric=metric, algorithms=algs)
    places = _podium_places(x, higher_is_better)
    colors = algorithm_colors(algs)
    fig = new_figure(axis_width(m, per_item=0.55, minimum=6.0), 6.0)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    offsets = (np.arange(m) - (m - 1) / 2) / (m + 1)
    xs = places - 1 + offsets[None, :]
    for i in range(x.shape[0]):
        order = np.argsort(places[i])
        present = ~np.isnan(x[i, order])
        top.plot(
            xs[i, order][present],
            x[i, order][present],
            color="0.6",
            linewidth=0.5,
            alpha=0.5,
        )
    for j, a in enumerate(algs):
        present = ~np.isnan(x[:, j])
        top.scatter(
            xs[present, j],
            x[present, j],
            s=10,
            color=colors[a],
            label=a,
            zorder=3,
            linewidths=0,
        )
    top.set_ylabel(metric)
    top.legend(
        fontsize=label_size(m),
        ncol=max(1, m // 12 + 1),
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        frameon=False,
    )
    n = x.shape[0]
    width = 1.0 / (m + 1)
    for j, a in enumerate(algs):
        freq = np.array([(places[:, j] == p).sum() for p in range(1, m + 1)]) / n
        bottom.bar(np.arange(m) + offsets[j], freq, width=width, color=colors[a])
    bottom.set_ylabel("share of cases")
    bottom.set_xticks(np.arange(m), [str(p) for p in range(1, m + 1)])
    bottom.set_xlabel("Podium place (per-case rank)")
    for label in bottom.get_xticklabels():
        label.set_fontsize(label_size(m))
    _title(fig, title or f"{task}: podium plot ({metric})")
    fig.tight_layout()
    return fig


def ranking_heatmap(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    ranks: Mapping[str, float | None],
    higher_is_better: bool,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Ranking heatmap (seed 000 Fig. 3): cell (rank i, algorithm A) counts the
    cases in which A had per-case rank i (ties: minimum rank; missing results
    ranked last). Algorithms are ordered by the task ranking."""
    algs = ordered(ranks, top_k=top_k)
    m = len(algs)
    x = task_matrix(results, task=task, metric=metric, algorithms=algs)
    per_case = case_ranks(
        x, ties="min", higher_is_better=higher_is_better, missing="last_rank"
    )
    counts = np.zeros((m, m))
    for j in range(m):
        values, freq = np.unique(per_case[:, j], return_counts=True)
        for v, c in zip(values, freq, strict=True):
            counts[int(v) - 1, j] = c
    size = max(4.0, 1.5 + 0.22 * m)
    fig = new_figure(size + 1.2, size)
    ax = fig.add_subplot()
    image = ax.imshow(counts, cmap="viridis_r", aspect="auto", origin="upper")
    fig.colorbar(image, ax=ax, label="number of cases")
    ax.set_xticks(np.arange(m), algs)
    ax.set_yticks(np.arange(m), [str(i) for i in range(1, m + 1)])
    rotate_labels(ax, m)
    for label in ax.get_yticklabels():
        label.set_fontsize(label_size(m))
    ax.set_xlabel("Algorithm (ordered by task rank)")
    ax.set_ylabel("Per-case rank")
    _title(fig, title or f"{task}: ranking heatmap ({metric})")
    fig.tight_layout()
    return fig
