"""Plots of the uncertainty of one task's ranking (seed 000, Figs. 4-7):
blob plots of bootstrap ranks, violin plots of Kendall's τ, significance maps
and line plots of the ranks under alternative ranking schemes.

They read one task (or target) block of the analysis output (contract §3) and
nothing else: the violins draw the stored quantiles of the τ samples
(``kendall_tau_quantiles``), so no figure re-runs a bootstrap.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import text_to_path

from ._paths import add_lines
from ._style import (
    NOT_SIGNIFICANT,
    PRINT_WIDTH,
    SIGNIFICANT,
    algorithm_colors,
    axis_width,
    fit_to_text,
    label_size,
    new_figure,
    ordered,
    palette,
    plain_text,
    print_height,
    short_label,
    square_side,
    x_labels,
)
from ._ticks import fixed_ticks

__all__ = [
    "blob_figure",
    "blob_plot",
    "draw_blobs",
    "draw_significance",
    "kendall_tau_violins",
    "rank_percentiles",
    "ranking_methods_plot",
    "significance_map",
]


def rank_percentiles(
    freq: Mapping[str, float], shares: tuple[float, ...] = (0.025, 0.975)
) -> list[float | None]:
    """Percentiles of a rank distribution ({rank: share}) as ranks that occur:
    for each share, the smallest rank reached or bettered in at least that
    share of the samples (as the bootstrap rank intervals are). Interpolating
    between ranks gave "4.025", a rank no sample had."""
    ranks = sorted((float(r), float(v)) for r, v in freq.items())
    cumulative = np.cumsum([v for _, v in ranks]) if ranks else np.array([])
    total = cumulative[-1] if ranks else 0.0
    out: list[float | None] = []
    for share in shares:
        reached = np.flatnonzero(cumulative >= share * total - 1e-9)
        out.append(ranks[int(reached[0])][0] if ranks and reached.size else None)
    return out


def draw_blobs(
    ax,
    columns: list[str],
    freqs: list[Mapping[str, float]],
    *,
    colors: list[str],
    summaries: list[Mapping[str, Any] | None] | None = None,
    max_rank: int,
    small: bool = False,
) -> None:
    """Blobs at (column, rank) with area ∝ share; median cross and 95 % line.
    Column names are sized for their number and rotated beyond six; ``small``:
    every label at 6 pt, names rotated (panels of a grid). A blob of share 1
    is about as wide as its column (at most 260 pt²)."""
    fig = ax.get_figure(root=True)
    column = ax.get_position().width * fig.get_figwidth() * 72 / max(len(columns), 1)
    scale = min(260.0, 1.2 * column**2)
    # One artist per layer (blobs, lines, medians) for all columns, in column
    # order: what a scatter and a line per column draw, at a fraction of the
    # cost of creating and drawing dozens of artists.
    xs, ys, sizes, faces, lines, medians = [], [], [], [], [], []
    for j, freq in enumerate(freqs):
        xs += [j] * len(freq)
        ys += [float(r) for r in freq]
        sizes += [scale * float(v) for v in freq.values()]
        faces += [colors[j]] * len(freq)
        summary = summaries[j] if summaries else None
        if summary and summary.get("median") is not None:
            lower, upper = rank_percentiles(freq) if freq else (None, None)
            lower = summary["lower"] if lower is None else lower
            upper = summary["upper"] if upper is None else upper
            lines.append([(j, lower), (j, upper)])
            medians.append((j, summary["median"]))
    if xs:
        ax.scatter(xs, ys, s=sizes, color=faces, alpha=0.8, linewidths=0, zorder=2)
    if lines:
        add_lines(
            ax, lines, edgecolors="black", linewidths=1, capstyle="projecting", zorder=3
        )
        ax.scatter(
            *zip(*medians, strict=True), marker="x", color="black", s=20, zorder=4
        )
    names = [short_label(c, 40) for c in columns]
    if small:
        fixed_ticks(ax, "x", np.arange(len(names)), names, size=6, rotate=True)
    else:
        x_labels(ax, names)
    ax.set_xlim(-0.6, len(columns) - 0.4)
    ax.set_ylim(max_rank + 0.5, 0.5)
    step = 1 if max_rank <= 20 else 5
    ranks = (
        [1, *range(step, max_rank + 1, step)] if step > 1 else range(1, max_rank + 1)
    )
    fixed_ticks(
        ax,
        "y",
        ranks,
        [str(r) for r in ranks],
        size=6 if small else None,
        grid_alpha=0.3,
    )
    ax.set_ylabel("Rank")


@plain_text
def blob_plot(
    task_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    title: str | None = None,
    height: float | None = None,
) -> Figure:
    """Blob plot of bootstrap ranks (seed 000 Fig. 5): area ∝ share of samples
    in which the algorithm reached the rank; cross = median, line = 2.5–97.5 %.
    The task rank is printed above each algorithm's name. ``height``
    (inches): as the panels of a grid, instead of a height for the ranks."""
    boot = task_block.get("bootstrap")
    if not boot:
        raise ValueError("the task has no bootstrap results (bootstrap = 0)")
    ranks = task_block["ranks"]
    algs = ordered(ranks, top_k=top_k)
    return blob_figure(
        algs,
        columns=[f"{ranks[a]}\n{a}" if len(algs) <= 20 else a for a in algs],
        freqs=[boot[a]["freq"] for a in algs],
        summaries=[boot[a] for a in algs],
        max_rank=len(ranks),
        xlabel=(
            "Algorithm (task rank above the name)" if len(algs) <= 20 else "Algorithm"
        ),
        title=title or "Bootstrap rank distribution",
        height=height,
    )


def blob_figure(
    algs: list[str],
    *,
    columns: list[str],
    freqs: list[Mapping[str, float]],
    summaries: list[Mapping[str, Any]],
    max_rank: int,
    xlabel: str,
    title: str,
    height: float | None = None,
) -> Figure:
    """One axes of rank blobs, a column per algorithm in its colour, sized for
    the number of algorithms and of ranks (the blob plots of Figs. 5 and 16),
    or ``height`` inches high."""
    colors = algorithm_colors(algs)
    height = print_height(1.5 + 0.12 * max_rank) if height is None else height
    fig = new_figure(axis_width(len(algs)), height)
    ax = fig.add_subplot()
    draw_blobs(
        ax,
        columns,
        freqs,
        colors=[colors[a] for a in algs],
        summaries=summaries,
        max_rank=max_rank,
    )
    ax.set_xlabel(xlabel)
    fig.suptitle(title, fontsize=10)
    return fit_to_text(fig)


@plain_text
def kendall_tau_violins(
    samples: Mapping[str, Any],
    *,
    summaries: Mapping[str, Mapping[str, Any]] | None = None,
    title: str | None = None,
) -> Figure:
    """Violin plots of Kendall's τ between the full ranking and each bootstrap
    ranking (seed 000 Figs. 6 and 18), one violin per label, ordered by median τ.

    ``samples`` are τ values or the stored equally spaced quantiles of them
    (``kendall_tau_quantiles``): either gives the violin's shape. Labels
    without samples are drawn from their summary (median dot and 2.5–97.5 %
    line); constant samples (e.g. τ = 1 throughout) are drawn as a bar. The τ
    axis spans the data, so narrow distributions stay visible.
    """
    summaries = summaries or {}
    labels = list(dict.fromkeys([*samples, *summaries]))

    def values(label: str) -> np.ndarray:
        raw = samples.get(label)
        s = np.asarray([] if raw is None else raw, dtype=np.float64)
        return s[np.isfinite(s)]

    def median(label: str) -> float:
        s = values(label)
        if s.size:
            return float(np.median(s))
        value = (summaries.get(label) or {}).get("median")
        return -2.0 if value is None else float(value)

    labels.sort(key=lambda label: (-median(label), label))
    fig = new_figure(axis_width(len(labels), per_item=0.4, minimum=3.5), 3.2)
    ax = fig.add_subplot()
    colors = palette(len(labels))
    drawn: list[float] = []
    for j, label in enumerate(labels):
        s = values(label)
        drawn += list(s)
        if s.size >= 2 and np.ptp(s) > 0:
            parts = ax.violinplot([s], positions=[j], showmedians=True, widths=0.8)
            for body in parts["bodies"]:
                body.set_facecolor(colors[j])
                body.set_alpha(0.6)
        elif s.size:
            ax.plot([j - 0.3, j + 0.3], [s[0], s[0]], color=colors[j], linewidth=3)
        else:
            summary = summaries.get(label) or {}
            if summary.get("median") is not None:
                drawn += [summary["lower"], summary["upper"]]
                ax.plot([j, j], [summary["lower"], summary["upper"]], color=colors[j])
                ax.scatter([j], [summary["median"]], color=colors[j], zorder=3)
    x_labels(ax, [short_label(x) for x in labels])
    low = min([*drawn, 1.0])
    ax.set_ylim(max(-1.05, low - 0.1 * (1.0 - low) - 0.02), 1.02)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    ax.set_ylabel("Kendall's τ (full data vs bootstrap)")
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title or "Ranking stability: Kendall's τ", fontsize=10)
    return fit_to_text(fig)


def draw_significance(ax, task_block: Mapping[str, Any], algs: list[str]) -> None:
    """Yellow cell (B row, A column) where A is significantly better than B."""
    sig = task_block.get("significance") or {}
    m = len(algs)
    grid = np.zeros((m, m))
    for xj, a in enumerate(algs):
        for yi, b in enumerate(algs):
            if a != b and sig.get(a, {}).get(b):
                grid[yi, xj] = 1.0
    ax.imshow(
        grid,
        cmap=ListedColormap([NOT_SIGNIFICANT, SIGNIFICANT]),
        vmin=0,
        vmax=1,
        aspect="equal",
        interpolation="none",  # one pixel per cell in the PDF
    )
    names = [short_label(a) for a in algs]
    x_labels(ax, names)
    fixed_ticks(ax, "y", np.arange(m), names, size=label_size(m))
    # two lines: one would run into the next panel of a per-target grid
    ax.set_xlabel("Algorithm A\n(yellow: A significantly better than B)")
    ax.set_ylabel("Algorithm B")


@plain_text
def significance_map(
    task_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Significance map (seed 000 Fig. 7): yellow where the algorithm on the
    x axis is significantly better than the one on the y axis, blue elsewhere;
    both axes ordered by rank. For a task with targets, pass a target block."""
    if not task_block.get("significance"):
        raise ValueError("the task has no significance map (targets or combined)")
    algs = ordered(task_block["ranks"], top_k=top_k)
    m = len(algs)
    size = square_side(m, most=PRINT_WIDTH - 1.0)
    fig = new_figure(size, size)
    ax = fig.add_subplot()
    draw_significance(ax, task_block, algs)
    fig.suptitle(title or "Significance map", fontsize=10)
    return fit_to_text(fig)


def _alternative_label(alt: Mapping[str, Any], several_metrics: bool) -> str:
    words = {
        "aggregate_then_rank": "aggregate→rank",
        "rank_then_aggregate": "rank→aggregate",
        "test_then_rank": "test→rank",
    }
    label = words.get(alt["method"], alt["method"])
    if alt["aggregate"] != "none":
        label += f" ({alt['aggregate']})"
    if several_metrics:
        label = f"{alt['metric']}: {label}"
    return label + (" = registered" if alt.get("registered") else "")


# The method names under the ranks-across-methods plot, when upright
METHOD_LABEL_PT = 6.5
LABEL_GAP = 0.04  # inches between two upright method names


def _widest_line(label: str, size: float) -> float:
    """Inches: the widest line of ``label`` at font ``size``."""
    prop = FontProperties(size=size)
    return (
        max(
            text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0]
            for line in label.split("\n")
        )
        / 72
    )


def _wrapped_method(label: str) -> str:
    """A method's column label in short lines ("aggregate→", "rank",
    "(mean)", "= registered"), to stand upright beside the others."""
    label = label.replace("registered scheme", "registered\nscheme")
    label = label.replace("→", "→\n").replace(" (", "\n(").replace(" = ", "\n= ")
    return label.replace(": ", ":\n")


# Beyond this many algorithms, 40 coloured lines could not be followed: the
# best FOLLOWED_TOP and the FOLLOWED_MOVERS whose rank changes most across
# the methods are drawn in colour and named, the rest as thin grey lines.
FOLLOWED_MOST = 15
FOLLOWED_TOP = 10
FOLLOWED_MOVERS = 5


def _followed(algs: list[str], rankings: list[Mapping[str, Any]]) -> list[str]:
    """The algorithms drawn in colour and named, in ``algs`` order."""
    if len(algs) <= FOLLOWED_MOST:
        return algs

    def spread(a: str) -> float:
        ranks = [float(r[a]) for r in rankings if r.get(a) is not None]
        return max(ranks) - min(ranks) if ranks else 0.0

    rest = sorted(algs[FOLLOWED_TOP:], key=lambda a: (-spread(a), algs.index(a)))
    chosen = set(algs[:FOLLOWED_TOP]) | set(rest[:FOLLOWED_MOVERS])
    return [a for a in algs if a in chosen]


# Tied names at a line end stop at this many characters ("A, B +2 more"):
# the axis leaves room for the longest label at both ends, and three long
# names squeezed the method columns until their labels touched (RobustMIS).
END_LABEL_CHARS = 24


def _names_by_rank(
    ranking: Mapping[str, Any], algs: list[str], most: int = 3
) -> dict[float, str]:
    """The names to write at one end of the lines, one label per rank: tied
    algorithms share a label ("A, B +2 more" beyond ``most`` names or
    END_LABEL_CHARS characters; the first name always) instead of printing
    over each other."""
    tied: dict[float, list[str]] = {}
    for a in algs:
        if ranking.get(a) is not None:
            tied.setdefault(float(ranking[a]), []).append(short_label(a))
    labels = {}
    for rank, names in tied.items():
        shown = names[:1]
        for name in names[1:most]:
            if len(", ".join([*shown, name])) > END_LABEL_CHARS:
                break
            shown.append(name)
        rest = len(names) - len(shown)
        labels[rank] = ", ".join(shown) + (f" +{rest} more" if rest else "")
    return labels


def _room_for_names(
    fig: Figure, ax, ends: tuple[list[str], list[str]], size: float, span: float
) -> tuple[float, float]:
    """How far (in x data units) the x axis must reach before its first and
    beyond its last column for the names written at the two ends of the
    lines (``ends``: left, right) to stay inside the axes, clear of the rank
    tick labels and the frame: w = n·S / (A − l − r) for names n inches wide
    at that end (l, r at the left and right), axes A inches wide and S data
    units of columns. Each end gets its own room: long tied names at the
    right squeezed the columns when both ends got the room of the widest."""
    prop = FontProperties(size=size)

    def inches(names: list[str]) -> float:
        widest = max(
            (
                text_to_path.get_text_width_height_descent(n, prop, ismath=False)[0]
                for n in names
            ),
            default=0.0,
        )
        return widest / 72 + 0.1  # and a little air before the point

    left, right = (inches(names) for names in ends)
    axes_inches = ax.get_position().width * fig.get_figwidth()
    columns = max(axes_inches - left - right, 0.3 * axes_inches)
    return left * span / columns, right * span / columns


@plain_text
def ranking_methods_plot(
    task_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Line plot of each algorithm's rank under the registered ranking and
    every alternative scheme of the robustness audit (seed 000 Fig. 4);
    parallel lines mean the ranking does not depend on the method. The
    alternative that repeats the registered scheme says so ("= registered");
    algorithms are named at both ends of their lines (tied ones together)."""
    audit = task_block.get("audit")
    if not audit or not audit.get("alternatives"):
        raise ValueError("the task has no robustness audit")
    alts = audit["alternatives"]
    several = len({a["metric"] for a in alts}) > 1
    columns = ["registered scheme", *[_alternative_label(a, several) for a in alts]]
    rankings = [task_block["ranks"], *[a["ranks"] for a in alts]]
    algs = ordered(task_block["ranks"], top_k=top_k)
    followed = _followed(algs, rankings)
    colors = algorithm_colors(followed)
    m_all = len(task_block["ranks"])
    width = min(PRINT_WIDTH, 2.5 + 0.75 * len(columns))
    # the method names below: in a few short lines side by side where they
    # fit (half an inch), else rotated (up to an inch and a half)
    # (beyond 20 algorithms a rank is 8 pt high: names at 6.5 pt stay apart
    # and the plot shares a page with the blob plot)
    axis = 1.2 + (0.17 if m_all <= 20 else 0.11) * m_all
    fig = new_figure(width, print_height(axis, outside=0.5))
    ax = fig.add_subplot()
    xs = np.arange(len(columns))
    styles = ["-", "--", ":", "-."]
    size = label_size(m_all)
    for a in algs:
        ys = [np.nan if r.get(a) is None else float(r[a]) for r in rankings]
        if a in colors:
            j = followed.index(a)
            ax.plot(
                xs,
                ys,
                marker="o",
                markersize=3,
                color=colors[a],
                linestyle=styles[(j // 8) % len(styles)],
                zorder=3,
            )
        else:  # the rest: context, unnamed
            ax.plot(xs, ys, color="0.8", linewidth=0.6, zorder=2)
    algs = followed
    ends = {
        (xs[0] - 0.08, "right"): _names_by_rank(rankings[0], algs),
        (xs[-1] + 0.08, "left"): _names_by_rank(rankings[-1], algs),
    }
    for (x, ha), labels in ends.items():
        for y, label in labels.items():
            ax.text(x, y, label, ha=ha, va="center", fontsize=size)
    left, right = (list(labels.values()) for labels in ends.values())
    room = _room_for_names(fig, ax, (left, right), size, span=len(columns) - 0.8)
    ax.set_xlim(-0.1 - room[0], len(columns) - 0.9 + room[1])
    # a column's width in inches, once the names at the line ends have room
    column = ax.get_position().width * fig.get_figwidth() / (len(columns) + sum(room))
    wrapped = [_wrapped_method(c) for c in columns]
    widths = [_widest_line(label, METHOD_LABEL_PT) for label in wrapped]
    if all((a + b) / 2 + LABEL_GAP <= column for a, b in itertools.pairwise(widths)):
        fixed_ticks(ax, "x", xs, wrapped, size=METHOD_LABEL_PT)
    else:
        fig.set_figheight(print_height(axis, outside=1.5))
        x_labels(ax, columns, n=10)
    ax.set_ylim(m_all + 0.5, 0.5)
    ranks = range(1, m_all + 1, 1 if m_all <= 20 else 5)
    fixed_ticks(ax, "y", list(ranks), [str(r) for r in ranks], grid_alpha=0.3)
    ax.set_ylabel("Rank")
    fig.suptitle(title or "Ranks across ranking methods", fontsize=10)
    return fit_to_text(fig)
