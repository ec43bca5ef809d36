"""Plots across the tasks of a challenge (seed 000, Figs. 8, 16-18): ranks
across tasks, bootstrap blobs per algorithm and per task, stacked rank
frequencies, the task dendrogram and the network graph of tasks.

They read one ranking key of the analysis output (``output["rankings"][key]``:
``tasks`` and, when the scheme asks for it, ``consensus``). Algorithms are
ordered by the consensus ranking, or by their mean task rank without one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ranking import spearman_footrule

from ._paths import add_bars
from ._style import (
    OKABE_ITO,
    PRINT_WIDTH,
    algorithm_colors,
    axis_width,
    fit_to_text,
    label_size,
    new_figure,
    ordered,
    palette,
    panels_per_figure,
    plain_text,
    short_label,
)
from ._ticks import fixed_ticks
from .uncertainty import blob_figure, draw_blobs

# Dendrogram and network compare task rankings: with two tasks there is
# nothing to cluster (one distance), so they start at three.
MIN_TASKS_FOR_SIMILARITY = 3

__all__ = [
    "MIN_TASKS_FOR_SIMILARITY",
    "algorithms_per_figure",
    "bootstrap_blobs_per_algorithm",
    "bootstrap_blobs_per_task",
    "consensus_order",
    "rank_blobs_across_tasks",
    "stacked_frequency_plot",
    "task_dendrogram",
    "task_distances",
    "task_network",
    "tasks_per_figure",
]

# Panel heights (inches) of the grids across tasks; with PRINT_HEIGHT they
# decide how many panels one figure holds (the report splits larger grids).
ALGORITHM_PANEL_HEIGHT = 2.0
TASK_PANEL_HEIGHT = 2.1
STACKED_PANEL_HEIGHT = 1.8
STACKED_COLUMNS = 4
LEGEND_COLUMNS = 5


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


def _grid_layout(
    fig: Figure, rows: int, *, bottom: float = 0.0, hspace: float = 1.1
) -> None:
    """Fixed margins for panel grids (``tight_layout`` is slow with 40 panels),
    then the figure is fitted around its text."""
    height = fig.get_figheight()
    fig.subplots_adjust(
        left=0.06,
        right=0.98,
        top=1 - 0.8 / height,
        bottom=(0.45 + bottom) / height,
        hspace=hspace if rows > 1 else 0.2,
        wspace=0.35,
    )
    fit_to_text(fig)


def _panels(names: list[str], only: Sequence[str] | None) -> list[str]:
    return names if only is None else [n for n in names if n in set(only)]


def _ranked_count(tasks: Mapping[str, Any]) -> int:
    """How many algorithms the tasks rank (all of them, whatever top_k draws)."""
    return len(next(iter(tasks.values()))["ranks"])


@plain_text
def rank_blobs_across_tasks(
    key_block: Mapping[str, Any], *, top_k: int | None = None, title: str | None = None
) -> Figure:
    """Blob plot of the ranks each algorithm reached over the tasks (seed 000
    Fig. 16): area ∝ share of tasks; cross = median, line = 2.5–97.5 %."""
    tasks = key_block["tasks"]
    algs = consensus_order(key_block, top_k=top_k)
    m_all = _ranked_count(tasks)
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
    return blob_figure(
        algs,
        columns=algs,
        freqs=freqs,
        summaries=summaries,
        max_rank=m_all,
        xlabel="Algorithm (ordered by "
        + ("consensus)" if key_block.get("consensus") else "mean task rank)"),
        title=title or f"Ranks across {len(tasks)} tasks",
    )


def _bootstrap_tasks(key_block: Mapping[str, Any]) -> Mapping[str, Any]:
    """The key's tasks, refused unless every one has bootstrap results."""
    tasks = key_block["tasks"]
    if not all(t.get("bootstrap") for t in tasks.values()):
        raise ValueError("every task needs bootstrap results (bootstrap = 0)")
    return tasks


def _per_algorithm_panels(
    key_block: Mapping[str, Any], *, top_k: int | None, only: Sequence[str] | None
) -> tuple[Mapping[str, Any], list[str], list[str], int]:
    """What a grid of one panel per algorithm, coloured by task, is drawn from:
    the tasks (with bootstrap results), the algorithms given a panel, a colour
    per task and the number of algorithms ranked."""
    tasks = _bootstrap_tasks(key_block)
    algs = _panels(consensus_order(key_block, top_k=top_k), only)
    return tasks, algs, palette(len(tasks)), _ranked_count(tasks)


@plain_text
def bootstrap_blobs_per_algorithm(
    key_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    only: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """One panel per algorithm, tasks on the x axis, bootstrap rank blobs
    coloured by task (seed 000 Fig. 17a: strengths and weaknesses).
    ``only`` draws a subset of the panels (a report splits large grids)."""
    tasks, algs, colors, m_all = _per_algorithm_panels(
        key_block, top_k=top_k, only=only
    )
    names = list(tasks)
    cols = min(len(algs), _algorithm_columns(len(names)))
    rows = math.ceil(len(algs) / cols)
    width = min(max(2.2, 0.2 * len(names) + 1.0), PRINT_WIDTH / cols)
    fig = new_figure(cols * width, rows * ALGORITHM_PANEL_HEIGHT + 0.6)
    panels = [(short_label(a), [tasks[t]["bootstrap"][a] for t in names]) for a in algs]
    _blob_grid(
        fig, cols, panels, columns=names, colors=colors, max_rank=m_all, small=True
    )
    fig.suptitle(title or "Bootstrap ranks per algorithm across tasks", fontsize=10)
    _grid_layout(fig, rows)
    return fig


def _algorithm_columns(n_tasks: int) -> int:
    """Columns of per-algorithm panels: fewer, wider ones for more tasks."""
    return 4 if n_tasks <= 8 else 3 if n_tasks <= 14 else 2


def _task_columns(m: int) -> int:
    """Columns of per-task panels: fewer, wider ones for more algorithms."""
    return 3 if m <= 10 else 2 if m <= 20 else 1


def algorithms_per_figure(n_tasks: int, kind: str = "per_algorithm") -> int:
    """Per-algorithm panels (``kind`` "per_algorithm" or "stacked") that fit
    one printed figure for ``n_tasks`` tasks."""
    if kind == "stacked":
        legend = 0.25 * math.ceil(n_tasks / LEGEND_COLUMNS) + 0.3
        return panels_per_figure(
            STACKED_COLUMNS, STACKED_PANEL_HEIGHT, extra=1.0 + legend
        )
    return panels_per_figure(_algorithm_columns(n_tasks), ALGORITHM_PANEL_HEIGHT)


def tasks_per_figure(m: int) -> int:
    """Per-task panels that fit one printed figure for ``m`` algorithms."""
    return panels_per_figure(_task_columns(m), TASK_PANEL_HEIGHT)


def _blob_grid(
    fig: Figure,
    cols: int,
    panels: list[tuple[str, list[Mapping[str, Any]]]],
    *,
    columns: list[str],
    colors: list[str],
    max_rank: int,
    small: bool = False,
) -> None:
    """A panel of bootstrap blobs per (title, blocks), in a grid of ``cols``
    columns (only the axes it fills): column j's blobs from ``blocks[j]``
    (``freq`` and the 95 % summary); ``small`` labels as in draw_blobs."""
    rows = math.ceil(len(panels) / cols)
    grid = fig.add_gridspec(rows, cols)
    for i, (name, blocks) in enumerate(panels):
        ax = fig.add_subplot(grid[i // cols, i % cols])
        draw_blobs(
            ax,
            columns,
            [block["freq"] for block in blocks],
            colors=colors,
            summaries=blocks,
            max_rank=max_rank,
            small=small,
        )
        ax.set_title(name, fontsize=8 if small else 9)


@plain_text
def bootstrap_blobs_per_task(
    key_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    only: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """One panel per task, algorithms (consensus order) on the x axis, bootstrap
    rank blobs (seed 000 Fig. 17b: which tasks separate algorithms well).
    ``only`` draws a subset of the tasks (a report splits large grids)."""
    all_tasks = _bootstrap_tasks(key_block)
    tasks = {t: all_tasks[t] for t in _panels(list(all_tasks), only)}
    algs = consensus_order(key_block, top_k=top_k)
    colors = algorithm_colors(algs)
    m_all = _ranked_count(all_tasks)
    cols = min(len(tasks), _task_columns(len(algs)))
    rows = math.ceil(len(tasks) / cols)
    width = min(axis_width(len(algs), per_item=0.2, minimum=3.0), PRINT_WIDTH / cols)
    fig = new_figure(cols * width, rows * TASK_PANEL_HEIGHT + 0.6)
    panels = [
        (short_label(name, 40), [block["bootstrap"][a] for a in algs])
        for name, block in tasks.items()
    ]
    faces = [colors[a] for a in algs]
    _blob_grid(fig, cols, panels, columns=algs, colors=faces, max_rank=m_all)
    fig.suptitle(title or "Bootstrap ranks per task", fontsize=10)
    _grid_layout(fig, rows)
    return fig


@plain_text
def stacked_frequency_plot(
    key_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    only: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """One panel per algorithm: the share of bootstrap samples at each rank,
    stacked by task (each task contributes 1 / number of tasks). ``only``
    draws a subset of the panels (a report splits large grids)."""
    tasks, algs, colors, m_all = _per_algorithm_panels(
        key_block, top_k=top_k, only=only
    )
    names = list(tasks)
    cols = min(len(algs), STACKED_COLUMNS)
    rows = math.ceil(len(algs) / cols)
    fig = new_figure(
        cols * PRINT_WIDTH / STACKED_COLUMNS, rows * STACKED_PANEL_HEIGHT + 1.0
    )
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False, sharey=True).ravel())
    top = 0.0  # the highest stack: the shared y axis ends just above it
    step = 1 if m_all <= 8 else 5 if m_all <= 30 else 10
    ticks = (
        [1, *range(step, m_all + 1, step)] if step > 1 else list(range(1, m_all + 1))
    )
    rank_axis = np.arange(1, m_all + 1)
    # the x range bar() would autoscale to (bars of width 0.9, 5 % margins)
    span = m_all - 0.1
    xlim = (0.55 - 0.05 * span, m_all + 0.45 + 0.05 * span)
    for ax, a in zip(axes, algs, strict=False):
        base = np.zeros(m_all)
        groups = []  # each task's stacked bars of the panel
        for t, color in zip(names, colors, strict=True):
            heights = np.zeros(m_all)
            for r, share in tasks[t]["bootstrap"][a]["freq"].items():
                index = min(m_all, max(1, round(float(r)))) - 1
                heights[index] += share / len(names)
            bars = [
                [(x - 0.45, b), (x - 0.45, b + h), (x + 0.45, b + h), (x + 0.45, b)]
                for x, h, b in zip(rank_axis, heights, base, strict=True)
                if h > 0
            ]
            groups.append((color, bars))
            base += heights
        top = max(top, float(base.max()))
        add_bars(ax, groups)
        ax.set_xlim(*xlim)
        ax.set_title(short_label(a), fontsize=8)
        ax.tick_params(labelsize=6)
        fixed_ticks(ax, "x", ticks, [str(r) for r in ticks], size=6)
    # spread over many ranks, the stacks are low: an axis up to 1 left the
    # panels looking empty at 40 algorithms
    axes[0].set_ylim(0, min(1.0, math.ceil(top * 10.5) / 10) if top > 0 else 1.0)
    axes[0].set_ylabel("share of samples", fontsize=6)
    for ax in axes[len(algs) :]:
        ax.set_visible(False)
    handles = [Patch(facecolor=color, edgecolor="none") for color in colors]
    fig.legend(
        handles,
        [short_label(x) for x in names],
        loc="lower center",
        ncol=min(len(names), LEGEND_COLUMNS),
        fontsize=label_size(len(names)),
        frameon=False,
    )
    fig.suptitle(title or "Bootstrap rank frequencies, stacked by task", fontsize=10)
    _grid_layout(fig, rows, bottom=0.25 * math.ceil(len(names) / LEGEND_COLUMNS) + 0.3)
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


def _require_tasks(names: list[str], what: str) -> None:
    if len(names) < MIN_TASKS_FOR_SIMILARITY:
        raise ValueError(f"a {what} needs at least {MIN_TASKS_FOR_SIMILARITY} tasks")


@plain_text
def task_dendrogram(
    key_block: Mapping[str, Any], *, title: str | None = None
) -> Figure:
    """Dendrogram of the tasks: complete linkage on Spearman's footrule
    between their rankings (seed 000 Fig. 8a)."""
    # scipy's clustering takes a third of a second to import: only here
    from scipy.cluster.hierarchy import dendrogram, linkage
    from scipy.spatial.distance import squareform

    names, d = task_distances(key_block)
    _require_tasks(names, "dendrogram")
    z = linkage(squareform(d, checks=False), method="complete")
    fig = new_figure(axis_width(len(names), per_item=0.45), 4.0)
    ax = fig.add_subplot()
    tree = dendrogram(z, labels=[short_label(n) for n in names], no_plot=True)
    for xs, ys in zip(tree["icoord"], tree["dcoord"], strict=True):
        ax.plot(xs, ys, color="0.2", linewidth=1.2)
    leaves = tree["ivl"]
    fixed_ticks(
        ax,
        "x",
        5 + 10 * np.arange(len(leaves)),
        leaves,
        size=label_size(len(names)),
        rotate=len(names) > 6,
    )
    ax.set_xlim(0, 10 * len(leaves))
    ax.set_ylim(0, max(1.0, 1.05 * float(z[:, 2].max())))
    ax.set_ylabel("Spearman's footrule (complete linkage)")
    fig.suptitle(title or "Similarity of task rankings", fontsize=10)
    return fit_to_text(fig)


def similarity_layout(d: np.ndarray) -> np.ndarray:
    """2-D positions whose distances follow ``d`` (classical multidimensional
    scaling), scaled to the unit disc; similar tasks end up close together."""
    n = d.shape[0]
    centre = np.eye(n) - np.ones((n, n)) / n
    b = -0.5 * centre @ (d.astype(np.float64) ** 2) @ centre
    values, vectors = np.linalg.eigh(b)
    order = np.argsort(values)[::-1][:2]
    xy = vectors[:, order] * np.sqrt(np.clip(values[order], 0.0, None))[None, :]
    xy = xy * np.where(xy.sum(axis=0) < 0, -1.0, 1.0)[None, :]  # fixed orientation
    radius = float(np.abs(xy).max())
    return xy / radius if radius > 0 else xy


@plain_text
def task_network(key_block: Mapping[str, Any], *, title: str | None = None) -> Figure:
    """Network graph of the tasks (seed 000 Fig. 8b): tasks placed by the
    similarity of their rankings (multidimensional scaling of Spearman's
    footrule), edges thicker and darker the more similar the rankings
    (1 − footrule / its maximum ⌊m²/2⌋); a node is coloured by its winner when
    the task has exactly one first-ranked algorithm, white otherwise."""
    names, d = task_distances(key_block)
    _require_tasks(names, "network")
    tasks = key_block["tasks"]
    algs = consensus_order(key_block)
    m = len(algs)
    similarity = 1.0 - d / max(1.0, float(m * m // 2))
    n = len(names)
    xy = similarity_layout(d)
    xs, ys = xy[:, 0], xy[:, 1]
    fig = new_figure(5.5, 4.6)
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
    winners = [_winner(tasks[t]["ranks"]) for t in names]
    styles = _winner_styles([a for a in algs if a in set(winners)])
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.set_aspect("equal")
    ax.apply_aspect()
    for i, winner in enumerate(winners):
        face, marker = styles.get(winner, ("white", "o"))
        ax.scatter(
            [xs[i]],
            [ys[i]],
            s=220,
            color=face,
            marker=marker,
            edgecolors="black",
            zorder=2,
        )
    _label_nodes(fig, ax, [short_label(t) for t in names], xy, size=label_size(n))
    for a, (face, marker) in styles.items():
        ax.scatter(
            [],
            [],
            s=60,
            color=face,
            marker=marker,
            edgecolors="black",
            label=f"winner: {short_label(a)}",
        )
    if None in winners:
        ax.scatter(
            [], [], s=60, color="white", edgecolors="black", label="tied winners"
        )
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
    ax.axis("off")
    fig.suptitle(
        title or "Network of tasks (position and edge width: ranking similarity)",
        fontsize=10,
    )
    return fit_to_text(fig)


def _winner(ranks: Mapping[str, float | None]) -> str | None:
    """The task's only first-ranked algorithm; None when several tie."""
    best = min(v for v in ranks.values() if v is not None)
    first = [a for a, r in ranks.items() if r == best]
    return first[0] if len(first) == 1 else None


# Winner markers beyond the eight colours: colour and shape together keep
# up to 40 winners apart (a viridis shade per algorithm did not).
_MARKERS = "osD^v<>p"


def _winner_styles(winners: list[str]) -> dict[str, tuple[str, str]]:
    """(colour, marker) per winning algorithm, in the given order."""
    colours = [c for c in OKABE_ITO if c != "#000000"]
    return {
        a: (colours[i % len(colours)], _MARKERS[(i // len(colours)) % len(_MARKERS)])
        for i, a in enumerate(winners)
    }


# Where a node's name may go (offset in points, alignment), in order of
# preference: above, below, right, left, then the diagonals.
_LABEL_SPOTS = (
    ((0, 10), "center", "bottom"),
    ((0, -10), "center", "top"),
    ((10, 0), "left", "center"),
    ((-10, 0), "right", "center"),
    ((8, 8), "left", "bottom"),
    ((-8, 8), "right", "bottom"),
    ((8, -8), "left", "top"),
    ((-8, -8), "right", "top"),
)
_NODE_RADIUS = 8.5  # points: a marker of area 220 pt²


def _spot_box(node, spot, width: float, height: float) -> tuple[float, ...]:
    """(x0, y0, x1, y1) in points of a name written at ``spot`` of ``node``."""
    (dx, dy), ha, va = spot
    x = node[0] + dx - {"left": 0, "center": width / 2, "right": width}[ha]
    y = node[1] + dy - {"bottom": 0, "center": height / 2, "top": height}[va]
    return x, y, x + width, y + height


def _clash(box, other) -> float:
    """Overlap area of two boxes (points²)."""
    w = min(box[2], other[2]) - max(box[0], other[0])
    h = min(box[3], other[3]) - max(box[1], other[1])
    return max(w, 0.0) * max(h, 0.0)


def _label_nodes(fig: Figure, ax, labels: list[str], xy: np.ndarray, *, size: float):
    """Write each node's name where it clashes least with the names written
    before and with the nodes (above it when that is free): close tasks had
    their names printed over each other."""
    position = ax.get_position()
    inches = min(
        position.width * fig.get_figwidth(), position.height * fig.get_figheight()
    )
    per_unit = inches * 72 / 2.5  # points per data unit (limits ±1.25, equal)
    nodes = [(x * per_unit, y * per_unit) for x, y in xy]
    taken = [
        (x - _NODE_RADIUS, y - _NODE_RADIUS, x + _NODE_RADIUS, y + _NODE_RADIUS)
        for x, y in nodes
    ]
    for label, node, (x, y) in zip(labels, nodes, xy, strict=True):
        width, height = 0.6 * size * len(label), 0.8 * size
        boxes = [_spot_box(node, spot, width, height) for spot in _LABEL_SPOTS]
        costs = [sum(_clash(b, t) for t in taken) for b in boxes]
        best = int(np.argmin(costs))
        taken.append(boxes[best])
        (dx, dy), ha, va = _LABEL_SPOTS[best]
        ax.annotate(
            label,
            (x, y),
            xytext=(dx, dy),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=size,
            zorder=3,
        )
