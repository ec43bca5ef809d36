"""Plots of the assessment data of one task or target (seed 000, Figs. 1-3):
dot-and-box plots, podium plots and ranking heatmaps.

They read the long results table (contract §1) and the ranking of the analysis
output (``ranks``: the task's, or the target's for a task with targets), which
fixes the order of the algorithms. A task with targets is drawn per target,
each in its own case space: a case is missing for an algorithm when it has no
value *for that target* (as in the descriptive statistics of the report).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ranking import case_ranks

from ._paths import add_bars, add_lines
from ._style import (
    PRINT_WIDTH,
    algorithm_colors,
    axis_width,
    finite_limits,
    fit_to_text,
    label_size,
    new_figure,
    ordered,
    plain_text,
    short_label,
    square_side,
    x_labels,
)
from ._ticks import fixed_ticks

__all__ = [
    "dot_box_plot",
    "draw_dot_box",
    "draw_heatmap",
    "draw_podium",
    "per_case_rank_counts",
    "podium_plot",
    "ranking_heatmap",
    "shared_case_matrices",
    "target_grid",
    "targets_per_figure",
    "task_matrix",
    "task_targets",
]


def task_targets(results: pd.DataFrame, task: str) -> list[str]:
    """The targets of a task ([""] when it has none), sorted."""
    frame = results[results["task"] == task]
    if "target" not in frame.columns:
        return [""]
    return sorted(frame["target"].fillna("").astype(str).unique()) or [""]


def task_matrix(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    algorithms: list[str],
    target: str | None = None,
) -> np.ndarray:
    """(cases x algorithms) values of one task (or target) and metric; NaN =
    missing. The cases are those with a value for any algorithm in this task,
    target and metric, so each target keeps its own case space."""
    frame = results[(results["task"] == task) & (results["metric"] == metric)]
    if "target" in frame.columns:
        targets = frame["target"].fillna("").astype(str)
        if target is None and targets.nunique() > 1:
            raise ValueError(
                f"task {task!r} has targets; a figure shows one target at a time"
            )
        if target is not None:
            frame = frame[targets == target]
    elif target:
        raise ValueError(f"task {task!r} has no targets")
    if frame.empty:
        where = f"task {task!r}" + (f", target {target!r}" if target else "")
        raise ValueError(f"no results for {where} and metric {metric!r}")
    values = pd.to_numeric(frame["value"], errors="coerce")
    # what pivot_table(aggfunc="first") gives (sorted cases, first non-missing
    # value of a repeated pair), several times faster
    wide = values.groupby([frame["case"], frame["algorithm"]], sort=True).first()
    wide = wide.unstack("algorithm").reindex(columns=algorithms)
    return wide.to_numpy(dtype=np.float64)


# (results table id, task, metric, target, algorithms) -> matrix, while
# shared_case_matrices is active; the tables are kept so that no id is reused
_SHARED: dict[tuple[Any, ...], np.ndarray] | None = None
_SHARED_TABLES: dict[int, pd.DataFrame] = {}


@contextlib.contextmanager
def shared_case_matrices() -> Iterator[None]:
    """Within, the per-target figures of a task share their (cases x
    algorithms) matrices: the dot-and-box, podium and heatmap grids of a
    target read one matrix, computed once (the report draws all three).
    The results tables drawn from must not change within."""
    global _SHARED
    outer = _SHARED is not None
    if not outer:
        _SHARED = {}
    try:
        yield
    finally:
        if not outer:
            _SHARED = None
            _SHARED_TABLES.clear()


def _target_matrices(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    algorithms: Mapping[str, list[str]],
) -> dict[str, np.ndarray]:
    """:func:`task_matrix` of each target (name -> its algorithms), the
    task's rows of this metric split by target once; shared (read-only)
    within :func:`shared_case_matrices`."""
    keys = {
        name: (id(results), task, metric, name, tuple(algs))
        for name, algs in algorithms.items()
    }
    known = _SHARED if _SHARED is not None else {}
    missing = [name for name, key in keys.items() if key not in known]
    found = {name: known[key] for name, key in keys.items() if key in known}
    if missing:
        frame = results[(results["task"] == task) & (results["metric"] == metric)]
        by_target = (
            dict(tuple(frame.groupby(frame["target"].fillna("").astype(str))))
            if "target" in frame.columns
            else {}
        )
        for name in missing:
            x = task_matrix(
                by_target.get(name, frame.iloc[:0]),
                task=task,
                metric=metric,
                algorithms=algorithms[name],
                target=name,
            )
            x.setflags(write=False)  # shared by figures: none may change it
            found[name] = x
            if _SHARED is not None:
                _SHARED[keys[name]] = x
                _SHARED_TABLES[id(results)] = results
    return found


def _title(fig: Figure, text: str | None) -> None:
    if text:
        fig.suptitle(text, fontsize=10)


def _where(task: str, target: str | None) -> str:
    return f"{task} / {target}" if target else task


def _case_labels(x: np.ndarray, algs: list[str]) -> list[str]:
    labels = []
    for j, a in enumerate(algs):
        n_missing = int(np.isnan(x[:, j]).sum())
        name = short_label(a)
        labels.append(f"{name} ({n_missing} missing)" if n_missing else name)
    return labels


def _box_stats(values: np.ndarray) -> dict[str, float] | None:
    """Quartiles and 1.5 × IQR whiskers, computed so that values near the
    float limits (±1e308) clip to the largest finite number, never overflow."""
    if values.size == 0:
        return None
    big = np.finfo(np.float64).max
    with np.errstate(over="ignore", invalid="ignore"):
        q1, med, q3 = np.percentile(values, [25, 50, 75])
        iqr = q3 - q1
        low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    inside = values[(values >= low) & (values <= high)]
    if inside.size == 0 or not np.isfinite(iqr):
        inside = values
    stats = {
        "q1": q1,
        "med": med,
        "q3": q3,
        "whislo": inside.min(),
        "whishi": inside.max(),
    }
    return {
        k: float(np.clip(np.nan_to_num(v, nan=0.0), -big, big))
        for k, v in stats.items()
    }


def _draw_boxes(ax, stats: list[dict[str, float] | None], width: float = 0.6) -> None:
    """What ``Axes.bxp`` draws (boxes, whiskers, caps; medians above the dots),
    as two line collections instead of six Line2D per box."""
    frame, medians = [], []
    for pos, st in enumerate(stats):
        if st is None:
            continue
        left, right = pos - width / 2, pos + width / 2
        cap_l, cap_r = pos - width / 4, pos + width / 4
        frame += [
            [
                (left, st["q1"]),
                (right, st["q1"]),
                (right, st["q3"]),
                (left, st["q3"]),
                (left, st["q1"]),
            ],
            [(pos, st["q1"]), (pos, st["whislo"])],
            [(pos, st["q3"]), (pos, st["whishi"])],
            [(cap_l, st["whislo"]), (cap_r, st["whislo"])],
            [(cap_l, st["whishi"]), (cap_r, st["whishi"])],
        ]
        medians.append([(left, st["med"]), (right, st["med"])])
    # Line2D's look: 1 pt black, projecting caps, round joins; zorder as bxp
    style = {
        "edgecolors": "black",
        "linewidths": 1.0,
        "capstyle": "projecting",
        "joinstyle": "round",
    }
    add_lines(ax, frame, zorder=2, **style)
    add_lines(ax, medians, zorder=2.1, **style)


def draw_dot_box(ax, x: np.ndarray, algs: list[str], *, metric: str) -> None:
    """Boxes and jittered case dots of a (cases x algorithms) matrix."""
    colors = algorithm_colors(algs)
    data = [col[~np.isnan(col)] for col in x.T]
    stats = [_box_stats(v) for v in data]
    _draw_boxes(ax, stats)
    rng = np.random.default_rng(0)
    size = 3.5 if x.shape[0] <= 100 else 2.0
    for j, values in enumerate(data):
        # Line2D markers: the PDF writes one marker shape and its positions,
        # several times faster than a scatter collection.
        jitter = rng.uniform(-0.2, 0.2, size=values.size)
        ax.plot(
            j + jitter,
            values,
            "o",
            markersize=size,
            markeredgewidth=0,
            color=colors[algs[j]],
            alpha=0.6,
        )
    x_labels(ax, _case_labels(x, algs))
    ax.set_xlim(-0.6, len(algs) - 0.4)
    limits = finite_limits(x)
    if limits:
        ax.set_ylim(*limits)
    ax.set_ylabel(short_label(metric))
    ax.grid(axis="y", alpha=0.3)


@plain_text
def dot_box_plot(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    ranks: Mapping[str, float | None],
    target: str | None = None,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Box plots of each algorithm's metric values with jittered case dots.

    Algorithms are ordered by ``ranks`` (best left); missing values are not
    drawn and their count is printed under the algorithm's name.
    """
    algs = ordered(ranks, top_k=top_k)
    x = task_matrix(results, task=task, metric=metric, algorithms=algs, target=target)
    fig = new_figure(axis_width(len(algs), per_item=0.22), 3.6)
    ax = fig.add_subplot()
    draw_dot_box(ax, x, algs, metric=metric)
    ax.set_xlabel("Algorithm (ordered by rank)")
    _title(fig, title or f"{_where(task, target)}: {metric} per algorithm")
    return fit_to_text(fig)


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


def draw_podium(
    top, bottom, x: np.ndarray, algs: list[str], *, metric: str, higher_is_better: bool
) -> None:
    """The podium (top axes) and the share of places (bottom axes)."""
    m = len(algs)
    places = _podium_places(x, higher_is_better)
    colors = algorithm_colors(algs)
    offsets = (np.arange(m) - (m - 1) / 2) / (m + 1)
    xs = places - 1 + offsets[None, :]
    segments = []
    for i in range(x.shape[0]):
        order = np.argsort(places[i])
        present = ~np.isnan(x[i, order])
        segments.append(np.column_stack([xs[i, order][present], x[i, order][present]]))
    top.add_collection(
        LineCollection(segments, colors="0.6", linewidths=0.5, alpha=0.5)
    )
    for j, a in enumerate(algs):
        present = ~np.isnan(x[:, j])
        top.plot(
            xs[present, j],
            x[present, j],
            "o",
            markersize=3,
            markeredgewidth=0,
            color=colors[a],
            zorder=3,
        )
    top.set_xlim(-0.6, m - 0.4)
    limits = finite_limits(x)
    if limits:
        top.set_ylim(*limits)
    top.set_ylabel(short_label(metric))
    n = max(1, x.shape[0])
    width = 1.0 / (m + 1)
    # m x m bars as one collection (m * m Rectangle patches cost more to make
    # and draw than the rest of the panel); the axis starts at 0 as bar's does.
    groups = []
    for j, a in enumerate(algs):
        freq = np.bincount(places[:, j] - 1, minlength=m)[:m] / n
        lefts = np.arange(m) + offsets[j] - width / 2
        bars = [
            [(left, 0), (left, h), (left + width, h), (left + width, 0)]
            for left, h in zip(lefts, freq, strict=True)
        ]
        groups.append((colors[a], bars))
    add_bars(bottom, groups)
    peak = max((b[1][1] for _, bars in groups for b in bars), default=0.0)
    bottom.set_ylim(0, peak * 1.05 if peak > 0 else 1.0)
    bottom.set_ylabel("share of\ncases")  # one line outgrew the short panel
    places = [str(p) for p in range(1, m + 1)]
    fixed_ticks(bottom, "x", np.arange(m), places, size=label_size(m))
    fixed_ticks(top, "x", np.arange(m))  # marks only: the places are below
    bottom.set_xlabel("Podium place (per-case rank)")


def _legend(ax, algs: list[str]) -> None:
    """The algorithm colours, right of the axes."""
    colors = algorithm_colors(algs)
    # the dot of scatter(s=20): 4.47 pt across with a 1.5 pt edge of its colour;
    # as Line2D handles, not as empty scatters the axes would have to draw
    handles = [
        Line2D(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=math.sqrt(20),
            markeredgewidth=1.5,
            color=colors[a],
            label=short_label(a),
        )
        for a in algs
    ]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        ncol=max(1, len(algs) // 14 + 1),
        fontsize=label_size(len(algs)),
        frameon=False,
    )


@plain_text
def podium_plot(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    ranks: Mapping[str, float | None],
    higher_is_better: bool,
    target: str | None = None,
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
    x = task_matrix(results, task=task, metric=metric, algorithms=algs, target=target)
    fig = new_figure(axis_width(m, per_item=0.45, minimum=5.5), 5.0)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    draw_podium(top, bottom, x, algs, metric=metric, higher_is_better=higher_is_better)
    _legend(top, algs)
    _title(fig, title or f"{_where(task, target)}: podium plot ({metric})")
    return fit_to_text(fig)


def per_case_rank_counts(x: np.ndarray, *, higher_is_better: bool) -> np.ndarray:
    """(rank x algorithm) number of cases with that per-case rank (ties: min,
    missing results ranked last)."""
    m = x.shape[1]
    per_case = case_ranks(
        x, ties="min", higher_is_better=higher_is_better, missing="last_rank"
    )
    counts = np.zeros((m, m))
    for j in range(m):
        values, freq = np.unique(per_case[:, j], return_counts=True)
        for v, c in zip(values, freq, strict=True):
            counts[int(v) - 1, j] = c
    return counts


def draw_heatmap(
    ax,
    x: np.ndarray,
    algs: list[str],
    *,
    higher_is_better: bool,
    share_up_to: float | None = None,
):
    """Counts of per-case ranks (see :func:`per_case_rank_counts`); with
    ``share_up_to``, shares of the cases instead, on a scale from 0 to it
    (panels of a grid share one scale and one colour bar)."""
    m = len(algs)
    counts = per_case_rank_counts(x, higher_is_better=higher_is_better)
    if share_up_to is None:
        cells, top = counts, max(1.0, float(counts.max()))
    else:
        cells, top = counts / max(1, x.shape[0]), share_up_to
    # interpolation "none": the PDF embeds one pixel per cell, drawn as vectors;
    # the scale starts at 0 so the lightest colour means no case in every panel
    image = ax.imshow(
        cells,
        cmap="viridis_r",
        aspect="auto",
        origin="upper",
        interpolation="none",
        vmin=0,
        vmax=top,
    )
    x_labels(ax, [short_label(a) for a in algs])
    ranks = [str(i) for i in range(1, m + 1)]
    fixed_ticks(ax, "y", np.arange(m), ranks, size=label_size(m))
    ax.set_ylabel("Per-case rank")
    return image


@plain_text
def ranking_heatmap(
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    ranks: Mapping[str, float | None],
    higher_is_better: bool,
    target: str | None = None,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Ranking heatmap (seed 000 Fig. 3): cell (rank i, algorithm A) counts the
    cases in which A had per-case rank i (ties: minimum rank; missing results
    ranked last). Algorithms are ordered by the task ranking."""
    algs = ordered(ranks, top_k=top_k)
    m = len(algs)
    x = task_matrix(results, task=task, metric=metric, algorithms=algs, target=target)
    size = square_side(m, most=PRINT_WIDTH - 1.2)
    fig = new_figure(size + 1.0, size)
    ax = fig.add_subplot()
    image = draw_heatmap(ax, x, algs, higher_is_better=higher_is_better)
    vector_colorbar(fig, image, ax=ax, label="number of cases")
    ax.set_xlabel("Algorithm (ordered by task rank)")
    _title(fig, title or f"{_where(task, target)}: ranking heatmap ({metric})")
    return fit_to_text(fig)


# Inches right of a heatmap grid for its one colour bar and its labels
HEATMAP_BAR = 1.0


def targets_per_figure(m: int) -> int:
    """Target panels per figure for m algorithms: small multiples while the
    panels stay readable, one per figure at 40 algorithms."""
    return 6 if m <= 10 else 4 if m <= 16 else 2 if m <= 25 else 1


@plain_text
def target_grid(
    kind: str,
    results: pd.DataFrame,
    *,
    task: str,
    metric: str,
    targets: Mapping[str, Mapping[str, Any]],
    higher_is_better: bool = True,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """One panel per target of a task (dot_box, podium, heatmap or
    significance), each in the target's own case space and rank order."""
    from .uncertainty import draw_significance

    names = list(targets)
    m = len(ordered(targets[names[0]]["ranks"], top_k=top_k))
    cols = min(len(names), 2 if m <= 10 and kind != "podium" else 1)
    rows = -(-len(names) // cols)
    room = PRINT_WIDTH / cols  # each column's share of the printed width
    if kind == "dot_box":
        panel = (min(room, axis_width(m, per_item=0.22, minimum=3.2)), 2.6)
    elif kind == "podium":
        panel = (min(room, axis_width(m, per_item=0.4, minimum=3.4)), 3.6)
    else:
        # heatmaps: one colour bar right of the grid (HEATMAP_BAR inches)
        bar = HEATMAP_BAR / cols if kind == "heatmap" else 0.0
        side = min(room - bar, max(2.6, 0.9 + 0.15 * m))
        panel = (side + bar, side)
    fig = new_figure(cols * panel[0], rows * panel[1] + 0.5)
    wspace = {"heatmap": 0.6, "significance": 1.0}.get(kind, 0.45)
    # room above the first row for the figure title and the panel titles
    top = min(0.88, 1 - 0.6 / fig.get_figheight())
    right = 1 - HEATMAP_BAR / fig.get_figwidth() if kind == "heatmap" else None
    grid = fig.add_gridspec(rows, cols, hspace=0.9, wspace=wspace, top=top, right=right)
    shown = {name: ordered(targets[name]["ranks"], top_k=top_k) for name in names}
    matrices = (
        {}
        if kind == "significance"
        else _target_matrices(results, task=task, metric=metric, algorithms=shown)
    )
    # the largest share of a target's cases in any cell: the heatmaps' scale
    share_up_to = max(
        (
            per_case_rank_counts(x, higher_is_better=higher_is_better).max()
            / max(1, x.shape[0])
            for x in matrices.values()
        ),
        default=1.0,
    )
    image = None
    panels = []
    for i, name in enumerate(names):
        spec = grid[i // cols, i % cols]
        algs = shown[name]
        if kind == "significance":
            ax = fig.add_subplot(spec)
            draw_significance(ax, targets[name], algs)
        else:
            x = matrices[name]
            if kind == "dot_box":
                ax = fig.add_subplot(spec)
                draw_dot_box(ax, x, algs, metric=metric)
            elif kind == "podium":
                inner = spec.subgridspec(2, 1, height_ratios=[3, 1], hspace=0.1)
                ax = fig.add_subplot(inner[0])
                bottom = fig.add_subplot(inner[1], sharex=ax)
                draw_podium(
                    ax,
                    bottom,
                    x,
                    algs,
                    metric=metric,
                    higher_is_better=higher_is_better,
                )
            elif kind == "heatmap":
                ax = fig.add_subplot(spec)
                image = draw_heatmap(
                    ax,
                    x,
                    algs,
                    higher_is_better=higher_is_better,
                    share_up_to=max(float(share_up_to), 1e-9),
                )
            else:
                raise ValueError(f"unknown figure kind {kind!r}")
        ax.set_title(f"Target {short_label(name, 40)}", fontsize=9)
        panels.append(ax)
        if kind == "podium" and i == 0:
            _legend(ax, algs)
    if image is not None:  # one colour bar for every heatmap, right of them
        _grid_colorbar(fig, image, panels)
    _title(fig, title or f"{task}: {kind.replace('_', ' ')} per target ({metric})")
    return fit_to_text(fig)


def _grid_colorbar(fig: Figure, image, panels: list) -> None:
    """The heatmap grid's colour bar: beside the top row of panels, as tall
    as one panel, in the room the grid leaves on the right."""
    first = panels[0].get_position()
    right = max(ax.get_position().x1 for ax in panels)
    width = 0.15 / fig.get_figwidth()  # inches, as a panel's bar was
    gap = 0.2 / fig.get_figwidth()
    cax = fig.add_axes((right + gap, first.y0, width, first.height))
    vector_colorbar(fig, image, cax=cax, label="share of cases")


def vector_colorbar(fig: Figure, image, **kwargs):
    """A colour bar drawn as one vector gradient: matplotlib rasterizes the bar
    of a scale with 50 or more levels (e.g. a heatmap of many cases), and as
    vectors it would be one filled patch per level (256, each written to the
    PDF on its own). A Gouraud-shaded mesh through the same level boundaries
    is a single PDF shading with the same colours."""
    bar = fig.colorbar(image, **kwargs)
    if bar.solids is None:
        return bar
    bounds = bar.solids.get_coordinates()[:, 0, :]  # band edges along the bar
    vertical = bar.orientation == "vertical"
    edges = bounds[:, 1] if vertical else bounds[:, 0]
    shade = np.column_stack([edges, edges])
    across = [0.0, 1.0]
    bar.solids.remove()
    bar.solids = bar.ax.pcolormesh(
        *((across, edges, shade) if vertical else (edges, across, shade.T)),
        cmap=bar.cmap,
        norm=bar.norm,
        shading="gouraud",
        rasterized=False,
    )
    return bar
