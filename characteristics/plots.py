"""Forest plots of a case-characteristics run, from its output JSON alone.

Binomial models show odds ratios of failure on a log axis (1 = no effect);
linear models show the estimated change of the metric (0 = no effect). A model
that could not be estimated is drawn as an empty panel naming the reason.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from typing import Any

from matplotlib.ticker import FuncFormatter

from analysis.plots import OKABE_ITO
from analysis.plots._style import new_figure

__all__ = ["forest_global", "forest_per_algorithm"]

RAISES = OKABE_ITO[5]  # vermillion: interval entirely above no-effect
LOWERS = OKABE_ITO[0]  # blue: entirely below
UNCLEAR = "#777777"
_LOG_TICKS = [
    m * 10.0**e for e in range(-3, 4) for m in (1, 2, 5)
]  # labelled odds ratios: 0.001 … 5000
EXPLORATORY_NOTE = "EXPLORATORY — not announced in the registered design"


def _plain(text: str) -> str:
    """User text shown as typed: a '$' would otherwise start matplotlib maths."""
    return str(text).replace("$", r"\$")


def _effects(model: Mapping[str, Any]) -> list[tuple[str, float, float, float]]:
    """(term, point, low, high) of every fixed effect but the intercept."""
    binomial = model["family"] == "binomial"
    rows = []
    for entry in model["fixed"][1:]:
        if binomial:
            keys = ("odds_ratio", "or_ci_low", "or_ci_high")
        else:
            keys = ("estimate", "ci_low", "ci_high")
        values = [entry.get(k) for k in keys]
        if all(v is not None for v in values):
            rows.append((entry["term"], *values))
    return rows


def _draw(ax, model: Mapping[str, Any], terms: list[str], limits, *, labels: bool):
    binomial = model["family"] == "binomial"
    null = 1.0 if binomial else 0.0
    ax.axvline(null, color="#333333", linewidth=0.8, linestyle="--")
    if binomial:
        ax.set_xscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_ylim(len(terms) - 0.5, -0.5)
    ax.set_yticks(range(len(terms)))
    ax.set_yticklabels(
        [_plain(t) for t in terms] if labels else [""] * len(terms), fontsize=8
    )
    ax.tick_params(axis="x", labelsize=7)
    if limits:
        ax.set_xlim(*limits)
        if binomial:
            ticks = [t for t in _LOG_TICKS if limits[0] <= t <= limits[1]]
            ax.set_xticks(ticks)
    if not model["converged"]:
        reason = (model.get("warnings") or ["not estimable"])[0]
        ax.text(
            0.5,
            0.5,
            _plain("Not estimable:\n" + "\n".join(textwrap.wrap(reason, 34)[:5])),
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=7,
            color="#444444",
        )
        return
    position = {t: i for i, t in enumerate(terms)}
    for term, point, low, high in _effects(model):
        color = RAISES if low > null else LOWERS if high < null else UNCLEAR
        y = position[term]
        ax.plot([low, high], [y, y], color=color, linewidth=2)
        ax.plot([point], [y], marker="s", color=color, markersize=5)


def _limits(models: list[Mapping[str, Any]]) -> tuple[float, float] | None:
    values = [v for m in models for row in _effects(m) for v in row[1:]]
    if not values:
        return None
    binomial = models[0]["family"] == "binomial"
    if binomial:
        low = min(min(values), 1.0) / 1.3
        high = max(max(values), 1.0) * 1.3
        return max(low, 1e-4), min(high, 1e4)
    span = max(max(values), 0.0) - min(min(values), 0.0)
    pad = 0.08 * span if span > 0 else 1.0
    return min(min(values), 0.0) - pad, max(max(values), 0.0) + pad


def _xlabel(model: Mapping[str, Any], metric: str) -> str:
    if model["family"] == "binomial":
        return "Odds ratio of failure (log scale; > 1 raises the odds)"
    return f"Change in {metric}"


def forest_global(output: Mapping[str, Any]):
    """One forest plot of the global model (all modelled algorithms)."""
    model = output["models"][0]
    terms = list(output["terms"][1:])
    fig = new_figure(7.0, 1.2 + 0.38 * len(terms))
    ax = fig.add_subplot(1, 1, 1)
    _draw(ax, model, terms, _limits([model]), labels=True)
    ax.set_xlabel(_plain(_xlabel(model, output["spec"]["metric"])), fontsize=8)
    title = (
        f"Global model · {output['spec']['task']} · {output['spec']['metric']}\n"
        f"{len(output['spec']['algorithms_modelled'])} algorithms, "
        f"{model['n_obs']} observations"
    )
    if output.get("exploratory"):
        title += f"\n{EXPLORATORY_NOTE}"
    ax.set_title(_plain(title), fontsize=9)
    fig.tight_layout()
    return fig


def forest_per_algorithm(output: Mapping[str, Any], *, columns: int = 3):
    """Small multiples: one forest plot per algorithm, shared axes."""
    models = [m for m in output["models"] if m["scope"] == "algorithm"]
    if not models:
        raise ValueError("the run has no per-algorithm models")
    terms = list(output["terms"][1:])
    columns = min(columns, len(models))
    rows = math.ceil(len(models) / columns)
    height = 0.7 + rows * (0.5 + 0.3 * len(terms))
    fig = new_figure(2.6 * columns + 1.4, height)
    limits = _limits(models)
    for i, model in enumerate(models):
        ax = fig.add_subplot(rows, columns, i + 1)
        _draw(ax, model, terms, limits, labels=i % columns == 0)
        ax.set_title(_plain(model["algorithm"]), fontsize=8)
    title = (
        "Per-algorithm models (" + _xlabel(models[0], output["spec"]["metric"]) + ")"
    )
    if output.get("exploratory"):
        title += f"\n{EXPLORATORY_NOTE}"
    fig.suptitle(_plain(title), fontsize=9)
    fig.tight_layout()
    return fig
