"""The figure of a test-set plan: each output against n, the chosen n marked.

Built without pyplot (thread-safe in a web process); PNG bytes without
metadata, so the same plan gives the same bytes. Drawing takes 0.1–0.2 s, so
pages take the figure from the cache (`cached_plan_figure_data_uri`), keyed by
the SHA-256 of the plan and the chosen n: a key never goes stale, because the
same plan always gives the same figure.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import cache
from matplotlib.figure import Figure

from config.health import cache_failed

from .canonical import canonical_sha256

PANELS = (
    ("p_winner", "P(true best ranks first)", (-0.02, 1.02)),
    ("kendall_tau", "Kendall's τ to the true ranking", (None, 1.02)),
    ("p_adjacent_swap", "P(an adjacent pair swaps)", (-0.02, 1.02)),
    ("rank_interval_width", "Median rank-interval width", (1, None)),
)


def plan_figure_png(plan: Mapping[str, Any], chosen: int | None) -> bytes:
    """One panel per output against n (two per row); ±2 Monte-Carlo standard
    errors shaded; the chosen n as a dashed line."""
    records = plan["n"]
    panels = [p for p in PANELS if records[0].get(p[0]) is not None]
    rows = (len(panels) + 1) // 2
    fig = Figure(figsize=(6.4, 2.5 * rows), layout="constrained")
    grid = fig.subplots(rows, 2, squeeze=False).ravel()
    for unused in grid[len(panels) :]:
        unused.set_visible(False)
    axes = grid[: len(panels)]
    n = [r["n"] for r in records]
    for ax, (key, title, (low, high)) in zip(axes, panels, strict=True):
        y = [r[key] for r in records]
        se = [r.get(f"{key}_se") or 0.0 for r in records]
        ax.fill_between(
            n,
            [v - 2 * s for v, s in zip(y, se, strict=True)],
            [v + 2 * s for v, s in zip(y, se, strict=True)],
            color="#56B4E9",
            alpha=0.3,
            linewidth=0,
        )
        ax.plot(n, y, marker="o", markersize=3, color="#0072B2")
        if chosen is not None:
            ax.axvline(chosen, color="#D55E00", linestyle="--", linewidth=1.2)
            ax.annotate(
                f"n = {chosen}",
                (chosen, 0.02),
                xycoords=("data", "axes fraction"),
                color="#D55E00",
                fontsize=8,
                xytext=(3, 0),
                textcoords="offset points",
            )
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("test cases (n)", fontsize=8)
        ax.set_ylim(low, high)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return buffer.getvalue()


def plan_figure_data_uri(plan: Mapping[str, Any], chosen: int | None) -> str:
    """The figure as a ``data:`` URI for an ``<img>`` (the CSP allows them)."""
    png = plan_figure_png(plan, chosen)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def cached_plan_figure_data_uri(plan: Mapping[str, Any], chosen: int | None) -> str:
    """`plan_figure_data_uri`, drawn once per plan and chosen n
    (``PLAN_FIGURE_CACHE_SECONDS``); a failing cache only costs the drawing."""
    key = "plan-figure:" + canonical_sha256({"plan": plan, "chosen": chosen})
    try:
        uri = cache.get(key)
    except Exception as exc:  # any backend error: draw it
        cache_failed(exc, "plan figure read")
        uri = None
    if uri is None:
        uri = plan_figure_data_uri(plan, chosen)
        try:
            cache.set(key, uri, settings.PLAN_FIGURE_CACHE_SECONDS)
        except Exception as exc:
            cache_failed(exc, "plan figure write")
    return uri
