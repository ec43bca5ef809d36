"""Plots of the uncertainty of one task's ranking (seed 000, Figs. 4-7):
blob plots of bootstrap ranks, violin plots of Kendall's τ, significance maps
and line plots of the ranks under alternative ranking schemes.

They read one task block of the analysis output (contract §3). Only the
violin plot needs more than the output keeps (the output summarises τ by its
median and 2.5/97.5 percentiles): :func:`bootstrap_kendall_taus` recomputes the
τ samples with the engine's own functions, the executed scheme and the seed of
the output, i.e. exactly the bootstrap samples the output summarises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ranking import kendall_tau_b, parse_scheme, validate_results
from ranking._core import build_tasks, key_task_ranking
from ranking.output import scheme_groups
from ranking.plan import bootstrap_block_ranks, prepare_analysis

from ._style import (
    NOT_SIGNIFICANT,
    SIGNIFICANT,
    algorithm_colors,
    axis_width,
    label_size,
    new_figure,
    ordered,
    palette,
    rotate_labels,
)

__all__ = [
    "blob_plot",
    "bootstrap_kendall_taus",
    "draw_blobs",
    "kendall_tau_violins",
    "ranking_methods_plot",
    "significance_map",
]


def bootstrap_kendall_taus(
    results: pd.DataFrame, output: Mapping[str, Any], *, key: str
) -> dict[str, np.ndarray]:
    """Kendall's τ-b of every bootstrap ranking to the full ranking, per task.

    Re-draws the bootstrap samples of :func:`ranking.run_analysis`
    from the executed scheme(s) of the output (same seed, same number
    of samples, same replicate blocks), so the median and percentiles of the
    returned samples are the output's ``kendall_tau`` summary.
    """
    frame = results if results.attrs.get("validated") else validate_results(results)
    out: dict[str, np.ndarray] = {}
    ranked = set(output["rankings"].get(key, {}).get("tasks", {}))
    for tasks, scheme_data in scheme_groups(output):
        tasks = [t for t in tasks if t in ranked]  # this key's tasks only
        if not tasks:
            continue
        scheme = parse_scheme(scheme_data)
        subset = frame[frame["task"].isin(tasks)]
        subset.attrs["validated"] = True
        n_boot, seed = scheme.uncertainty.bootstrap, scheme.uncertainty.seed
        if not n_boot or seed is None:
            out.update({t.name: np.empty(0) for t in build_tasks(subset, scheme)})
            continue
        prepared = prepare_analysis(subset, scheme)
        for task in prepared.tasks:
            full = key_task_ranking(task, prepared.scheme, key, None)[0]
            boot = bootstrap_block_ranks(prepared, key=key, task=task.name)
            out[task.name] = np.asarray(kendall_tau_b(full, boot), dtype=np.float64)
    return out


def draw_blobs(
    ax,
    columns: list[str],
    freqs: list[Mapping[str, float]],
    *,
    colors: list[str],
    summaries: list[Mapping[str, Any] | None] | None = None,
    max_rank: int,
) -> None:
    """Blobs at (column, rank) with area ∝ share; median cross and 95 % line."""
    scale = 260.0 if len(columns) <= 10 else 120.0
    for j, freq in enumerate(freqs):
        ranks = np.array([float(r) for r in freq], dtype=np.float64)
        shares = np.array(list(freq.values()), dtype=np.float64)
        ax.scatter(
            np.full(ranks.size, j),
            ranks,
            s=scale * shares,
            color=colors[j],
            alpha=0.8,
            linewidths=0,
            zorder=2,
        )
        summary = summaries[j] if summaries else None
        if summary and summary.get("median") is not None:
            ax.plot(
                [j, j],
                [summary["lower"], summary["upper"]],
                color="black",
                linewidth=1,
                zorder=3,
            )
            ax.scatter(
                [j], [summary["median"]], marker="x", color="black", s=20, zorder=4
            )
    ax.set_xticks(np.arange(len(columns)), columns)
    ax.set_ylim(max_rank + 0.5, 0.5)
    step = 1 if max_rank <= 20 else 5
    ax.set_yticks(
        [1, *range(step, max_rank + 1, step)] if step > 1 else range(1, max_rank + 1)
    )
    ax.grid(axis="y", alpha=0.3)
    ax.set_ylabel("Rank")


def blob_plot(
    task_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Blob plot of bootstrap ranks (seed 000 Fig. 5): area ∝ share of samples
    in which the algorithm reached the rank; cross = median, line = 2.5–97.5 %.
    The task rank is printed above each algorithm's name."""
    boot = task_block.get("bootstrap")
    if not boot:
        raise ValueError("the task has no bootstrap results (bootstrap = 0)")
    ranks = task_block["ranks"]
    algs = ordered(ranks, top_k=top_k)
    m_all = len(ranks)
    colors = algorithm_colors(algs)
    fig = new_figure(axis_width(len(algs)), max(3.5, 1.5 + 0.12 * m_all))
    ax = fig.add_subplot()
    draw_blobs(
        ax,
        [f"{ranks[a]}\n{a}" if len(algs) <= 20 else a for a in algs],
        [boot[a]["freq"] for a in algs],
        colors=[colors[a] for a in algs],
        summaries=[boot[a] for a in algs],
        max_rank=m_all,
    )
    rotate_labels(ax, len(algs))
    ax.set_xlabel(
        "Algorithm (task rank above the name)" if len(algs) <= 20 else "Algorithm"
    )
    fig.suptitle(title or "Bootstrap rank distribution", fontsize=10)
    fig.tight_layout()
    return fig


def kendall_tau_violins(
    samples: Mapping[str, np.ndarray | None],
    *,
    summaries: Mapping[str, Mapping[str, Any]] | None = None,
    title: str | None = None,
) -> Figure:
    """Violin plots of Kendall's τ between the full ranking and each bootstrap
    ranking (seed 000 Figs. 6 and 18), one violin per label, ordered by median τ.

    Labels without samples are drawn from their summary (median dot and
    2.5–97.5 % line) when ``summaries`` has one; constant samples (e.g. τ = 1
    throughout) are drawn as a bar.
    """
    summaries = summaries or {}
    labels = list(dict.fromkeys([*samples, *summaries]))

    def median(label: str) -> float:
        s = samples.get(label)
        if s is not None and np.asarray(s).size and not np.all(np.isnan(s)):
            return float(np.nanmedian(s))
        value = (summaries.get(label) or {}).get("median")
        return -2.0 if value is None else float(value)

    labels.sort(key=lambda label: (-median(label), label))
    fig = new_figure(axis_width(len(labels), per_item=0.5, minimum=4.0), 4.0)
    ax = fig.add_subplot()
    colors = palette(len(labels))
    for j, label in enumerate(labels):
        raw = samples.get(label)
        s = np.asarray([] if raw is None else raw, dtype=np.float64)
        s = s[~np.isnan(s)]
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
                ax.plot([j, j], [summary["lower"], summary["upper"]], color=colors[j])
                ax.scatter([j], [summary["median"]], color=colors[j], zorder=3)
    ax.set_xticks(np.arange(len(labels)), labels)
    rotate_labels(ax, len(labels))
    ax.set_ylim(-1.05, 1.05)
    ax.set_ylabel("Kendall's τ (full data vs bootstrap)")
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title or "Ranking stability: Kendall's τ", fontsize=10)
    fig.tight_layout()
    return fig


def significance_map(
    task_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Significance map (seed 000 Fig. 7): yellow where the algorithm on the
    x axis is significantly better than the one on the y axis, blue elsewhere;
    both axes ordered by task rank."""
    sig = task_block.get("significance")
    if not sig:
        raise ValueError("the task has no significance map (targets or combined)")
    algs = ordered(task_block["ranks"], top_k=top_k)
    m = len(algs)
    grid = np.zeros((m, m))
    for xj, a in enumerate(algs):
        for yi, b in enumerate(algs):
            if a != b and sig.get(a, {}).get(b):
                grid[yi, xj] = 1.0
    size = max(4.0, 1.5 + 0.2 * m)
    fig = new_figure(size, size)
    ax = fig.add_subplot()
    from matplotlib.colors import ListedColormap

    ax.imshow(
        grid,
        cmap=ListedColormap([NOT_SIGNIFICANT, SIGNIFICANT]),
        vmin=0,
        vmax=1,
        aspect="equal",
    )
    ax.set_xticks(np.arange(m), algs)
    ax.set_yticks(np.arange(m), algs)
    rotate_labels(ax, m)
    for label in ax.get_yticklabels():
        label.set_fontsize(label_size(m))
    ax.set_xlabel("Algorithm (significantly better: yellow)")
    ax.set_ylabel("Algorithm")
    fig.suptitle(title or "Significance map", fontsize=10)
    fig.tight_layout()
    return fig


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
    return label + (" *" if alt.get("registered") else "")


def ranking_methods_plot(
    task_block: Mapping[str, Any],
    *,
    top_k: int | None = None,
    title: str | None = None,
) -> Figure:
    """Line plot of each algorithm's rank under the registered ranking and
    every alternative scheme of the robustness audit (seed 000 Fig. 4);
    parallel lines mean the ranking does not depend on the method.
    The registered scheme is marked with *."""
    audit = task_block.get("audit")
    if not audit or not audit.get("alternatives"):
        raise ValueError("the task has no robustness audit")
    alts = audit["alternatives"]
    several = len({a["metric"] for a in alts}) > 1
    columns = ["registered", *[_alternative_label(a, several) for a in alts]]
    rankings = [task_block["ranks"], *[a["ranks"] for a in alts]]
    algs = ordered(task_block["ranks"], top_k=top_k)
    colors = algorithm_colors(algs)
    m_all = len(task_block["ranks"])
    fig = new_figure(max(6.0, 1.6 + 0.9 * len(columns)), max(4.0, 1.5 + 0.12 * m_all))
    ax = fig.add_subplot()
    xs = np.arange(len(columns))
    styles = ["-", "--", ":", "-."]
    for j, a in enumerate(algs):
        ys = [np.nan if r.get(a) is None else float(r[a]) for r in rankings]
        ax.plot(
            xs,
            ys,
            marker="o",
            markersize=3,
            color=colors[a],
            linestyle=styles[(j // 8) % len(styles)],
            label=a,
        )
    ax.set_xticks(xs, columns)
    rotate_labels(ax, 10)
    ax.set_ylim(m_all + 0.5, 0.5)
    ax.set_ylabel("Rank")
    ax.legend(
        fontsize=label_size(len(algs)),
        ncol=max(1, len(algs) // 15 + 1),
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        frameon=False,
    )
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title or "Ranks across ranking methods", fontsize=10)
    fig.tight_layout()
    return fig
