"""Plots across the tasks of a challenge (seed 000, Figs. 8, 16-18): ranks
across tasks, bootstrap blobs per algorithm and per task, stacked rank
frequencies, the task dendrogram and the network graph of tasks.

They read one ranking key of the analysis output (``output["rankings"][key]``:
``tasks`` and, when the scheme asks for it, ``consensus``). Algorithms are
ordered by the consensus ranking, or by their mean task rank without one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from scipy.cluster.hierarchy import dendrogram, linkage
from scipy.spatial.distance import squareform

from ranking import spearman_footrule

from ._style import (
    algorithm_colors,
    axis_width,
    label_size,
    new_figure,
    ordered,
    palette,
    rotate_labels,
)
from .uncertainty import draw_blobs

__all__ = [
    "bootstrap_blobs_per_algorithm",
    "bootstrap_blobs_per_task",
    "consensus_order",
    "rank_blobs_across_tasks",
    "stacked_frequency_plot",
    "task_dendrogram",
    "task_distances",
    "task_network",
]


def consensus_order(
    key_block: Mapping[str, Any], *, top_k: int | None = None
) -> list[str]:
    """Algorithms by consensus rank (or mean task rank), best first."""
    consensus = key_block.get("consensus")
    if consensus:
        return ordered(consensus["ranks"], top_k=top_k)
    tasks = list(key_block["tasks"].values())
    algs = list(tasks[0]["ranks"])
    means = {
        a: float(
            np.mean([t["ranks"][a] for t in tasks if t["ranks"].get(a) is not None])
        )
        for a in algs
    }
    return ordered(means, top_k=top_k)


def _grid(n: int) -> tuple[int, int]:
    cols = min(n, 5 if n > 12 else 4)
    return math.ceil(n / cols), cols


def _grid_layout(fig: Figure, rows: int, *, bottom: float = 0.0) -> None:
    """Fixed margins for panel grids (``tight_layout`` is slow with 40 panels)."""
    height = fig.get_figheight()
    fig.subplots_adjust(
        left=0.06,
        right=0.98,
        top=1 - 0.8 / height,
        bottom=(0.45 + bottom) / height,
        hspace=0.9 if rows > 1 else 0.2,
        wspace=0.3,
    )


def rank_blobs_across_tasks(
    key_block: Mapping[str, Any], *, top_k: int | None = None, title: str | None = None
) -> Figure:
    """Blob plot of the ranks each algorithm reached over the tasks (seed 000
    Fig. 16): area ∝ share of tasks; cross = median, line = 2.5–97.5 %."""
    tasks = key_block["tasks"]
    algs = consensus_order(key_block, top_k=top_k)
    m_all = len(next(iter(tasks.values()))["ranks"])
    freqs, summaries = [], []
    for a in algs:
        ranks = np.array([float(t["ranks"][a]) for t in tasks.values()])
        values, counts = np.unique(ranks, return_counts=True)
        freqs.append(
            {str(v): c / ranks.size for v, c in zip(values, counts, strict=True)}
        )
        summaries.append(
            {
                "median": float(np.median(ranks)),
                "lower": float(np.percentile(ranks, 2.5)),
                "upper": float(np.percentile(ranks, 97.5)),
            }
        )
    colors = algorithm_colors(algs)
    fig = new_figure(axis_width(len(algs)), max(3.5, 1.5 + 0.12 * m_all))
    ax = fig.add_subplot()
    draw_blobs(
        ax,
        algs,
        freqs,
        colors=[colors[a] for a in algs],
        summaries=summaries,
        max_rank=m_all,
    )
    rotate_labels(ax, len(algs))
    ax.set_xlabel("Algorithm (ordered by consensus)")
    fig.suptitle(title or f"Ranks across {len(tasks)} tasks", fontsize=10)
    fig.tight_layout()
    return fig


def _require_bootstrap(tasks: Mapping[str, Any]) -> None:
    if not all(t.get("bootstrap") for t in tasks.values()):
        raise ValueError("every task needs bootstrap results (bootstrap = 0)")


def bootstrap_blobs_per_algorithm(
    key_block: Mapping[str, Any], *, top_k: int | None = None, title: str | None = None
) -> Figure:
    """One panel per algorithm, tasks on the x axis, bootstrap rank blobs
    coloured by task (seed 000 Fig. 17a: strengths and weaknesses)."""
    tasks = key_block["tasks"]
    _require_bootstrap(tasks)
    algs = consensus_order(key_block, top_k=top_k)
    names = list(tasks)
    colors = palette(len(names))
    m_all = len(next(iter(tasks.values()))["ranks"])
    rows, cols = _grid(len(algs))
    fig = new_figure(cols * max(2.2, 0.35 * len(names) + 1.0), rows * 2.4 + 0.6)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False).ravel())
    for ax, a in zip(axes, algs, strict=False):
        draw_blobs(
            ax,
            names,
            [tasks[t]["bootstrap"][a]["freq"] for t in names],
            colors=colors,
            summaries=[tasks[t]["bootstrap"][a] for t in names],
            max_rank=m_all,
        )
        ax.set_title(a, fontsize=8)
        ax.tick_params(labelsize=6)
        rotate_labels(ax, max(7, len(names)))
    for ax in axes[len(algs) :]:
        ax.set_visible(False)
    fig.suptitle(title or "Bootstrap ranks per algorithm across tasks", fontsize=10)
    _grid_layout(fig, rows)
    return fig


def bootstrap_blobs_per_task(
    key_block: Mapping[str, Any], *, top_k: int | None = None, title: str | None = None
) -> Figure:
    """One panel per task, algorithms (consensus order) on the x axis, bootstrap
    rank blobs (seed 000 Fig. 17b: which tasks separate algorithms well)."""
    tasks = key_block["tasks"]
    _require_bootstrap(tasks)
    algs = consensus_order(key_block, top_k=top_k)
    colors = algorithm_colors(algs)
    m_all = len(next(iter(tasks.values()))["ranks"])
    rows, cols = _grid(len(tasks))
    cols = min(cols, 3)
    rows = math.ceil(len(tasks) / cols)
    fig = new_figure(cols * axis_width(len(algs), minimum=3.0), rows * 3.0 + 0.6)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False).ravel())
    for ax, (name, block) in zip(axes, tasks.items(), strict=False):
        draw_blobs(
            ax,
            algs,
            [block["bootstrap"][a]["freq"] for a in algs],
            colors=[colors[a] for a in algs],
            summaries=[block["bootstrap"][a] for a in algs],
            max_rank=m_all,
        )
        ax.set_title(name, fontsize=9)
        rotate_labels(ax, len(algs))
    for ax in axes[len(tasks) :]:
        ax.set_visible(False)
    fig.suptitle(title or "Bootstrap ranks per task", fontsize=10)
    fig.tight_layout()
    return fig


def stacked_frequency_plot(
    key_block: Mapping[str, Any], *, top_k: int | None = None, title: str | None = None
) -> Figure:
    """One panel per algorithm: the share of bootstrap samples at each rank,
    stacked by task (each task contributes 1 / number of tasks)."""
    tasks = key_block["tasks"]
    _require_bootstrap(tasks)
    algs = consensus_order(key_block, top_k=top_k)
    names = list(tasks)
    colors = palette(len(names))
    m_all = len(next(iter(tasks.values()))["ranks"])
    rows, cols = _grid(len(algs))
    fig = new_figure(cols * min(3.2, max(2.4, 0.1 * m_all + 1.2)), rows * 2.0 + 1.0)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False, sharey=True).ravel())
    rank_axis = np.arange(1, m_all + 1)
    for ax, a in zip(axes, algs, strict=False):
        base = np.zeros(m_all)
        for t, color in zip(names, colors, strict=True):
            heights = np.zeros(m_all)
            for r, share in tasks[t]["bootstrap"][a]["freq"].items():
                index = min(m_all, max(1, round(float(r)))) - 1
                heights[index] += share / len(names)
            ax.bar(rank_axis, heights, bottom=base, color=color, width=0.9, label=t)
            base += heights
        ax.set_title(a, fontsize=8)
        ax.tick_params(labelsize=6)
        ax.set_ylim(0, 1)
    for ax in axes[len(algs) :]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="lower center",
        ncol=min(len(names), 8),
        fontsize=label_size(len(names)),
        frameon=False,
    )
    fig.suptitle(title or "Bootstrap rank frequencies, stacked by task", fontsize=10)
    _grid_layout(fig, rows, bottom=0.6)
    return fig


def task_distances(key_block: Mapping[str, Any]) -> tuple[list[str], np.ndarray]:
    """Spearman's footrule between the task rankings (seed 000, Fig. 8)."""
    tasks = key_block["tasks"]
    names = list(tasks)
    algs = sorted(next(iter(tasks.values()))["ranks"])

    def vector(block: Mapping[str, Any]) -> np.ndarray:
        return np.array([float(block["ranks"][a]) for a in algs])

    vectors = [vector(tasks[t]) for t in names]
    n = len(names)
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            d[i, j] = d[j, i] = spearman_footrule(vectors[i], vectors[j])
    return names, d


def task_dendrogram(
    key_block: Mapping[str, Any], *, title: str | None = None
) -> Figure:
    """Dendrogram of the tasks: complete linkage on Spearman's footrule
    between their rankings (seed 000 Fig. 8a)."""
    names, d = task_distances(key_block)
    if len(names) < 2:
        raise ValueError("a dendrogram needs at least two tasks")
    z = linkage(squareform(d, checks=False), method="complete")
    fig = new_figure(axis_width(len(names), per_item=0.45), 4.0)
    ax = fig.add_subplot()
    tree = dendrogram(z, labels=names, no_plot=True)
    for xs, ys in zip(tree["icoord"], tree["dcoord"], strict=True):
        ax.plot(xs, ys, color="0.2", linewidth=1.2)
    leaves = tree["ivl"]
    ax.set_xticks(5 + 10 * np.arange(len(leaves)), leaves)
    ax.set_xlim(0, 10 * len(leaves))
    ax.set_ylim(0, max(1.0, 1.05 * float(z[:, 2].max())))
    rotate_labels(ax, len(names))
    ax.set_ylabel("Spearman's footrule (complete linkage)")
    fig.suptitle(title or "Similarity of task rankings", fontsize=10)
    fig.tight_layout()
    return fig


def task_network(key_block: Mapping[str, Any], *, title: str | None = None) -> Figure:
    """Network graph of the tasks (seed 000 Fig. 8b, simplified): tasks on a
    circle, edges thicker and darker the more similar the rankings (1 − footrule
    / its maximum ⌊m²/2⌋); a node is coloured by its winner when the task has
    exactly one first-ranked algorithm, white otherwise."""
    names, d = task_distances(key_block)
    tasks = key_block["tasks"]
    algs = consensus_order(key_block)
    m = len(algs)
    similarity = 1.0 - d / max(1.0, float(m * m // 2))
    n = len(names)
    angle = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    xs, ys = np.cos(angle), np.sin(angle)
    fig = new_figure(6.5, 5.5)
    ax = fig.add_subplot()
    for i in range(n):
        for j in range(i + 1, n):
            s = float(np.clip(similarity[i, j], 0.0, 1.0))
            ax.plot(
                [xs[i], xs[j]],
                [ys[i], ys[j]],
                color=str(round(0.85 - 0.75 * s, 3)),
                linewidth=0.3 + 3.5 * s**2,
                zorder=1,
            )
    colors = algorithm_colors(algs)
    winners: dict[str, str] = {}
    for i, t in enumerate(names):
        ranks = tasks[t]["ranks"]
        first = [
            a
            for a, r in ranks.items()
            if r == min(v for v in ranks.values() if v is not None)
        ]
        face = colors[first[0]] if len(first) == 1 else "white"
        if len(first) == 1:
            winners[first[0]] = face
        ax.scatter([xs[i]], [ys[i]], s=500, color=face, edgecolors="black", zorder=2)
        ax.annotate(
            t,
            (xs[i] * 1.18, ys[i] * 1.18),
            ha="center",
            va="center",
            fontsize=label_size(n),
        )
    for a, face in sorted(winners.items()):
        ax.scatter([], [], s=60, color=face, edgecolors="black", label=f"winner: {a}")
    if winners:
        ax.legend(
            loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False
        )
    ax.set_xlim(-1.4, 1.4)
    ax.set_ylim(-1.4, 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.suptitle(
        title or "Network of tasks (edge width: ranking similarity)", fontsize=10
    )
    fig.tight_layout()
    return fig
