"""The figure of a test-set plan: each output against n, the chosen n marked.

Built without pyplot (thread-safe in a web process); PNG bytes without
metadata, so the same plan gives the same bytes. Drawing takes 0.5–0.8 s of
CPU, more than a page's whole budget (issue 28: first loads <= 500 ms), so
pages never draw it when it exists: `cached_plan_figure_data_uri` reads the
cache, then the stored file ``plan-figures/<key>.png`` in the default storage
(media; kept across restarts and shared by every process), and only then
draws and stores it. The key is the SHA-256 of the plan and the chosen n, so it
never goes stale: the same plan always gives the same figure. Attaching a plan
stores its figure for the chosen n of that moment (`store_plan_figure`), so
the pages that show a new plan find it drawn.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from matplotlib.figure import Figure

from config.health import cache_failed

from .canonical import canonical_sha256

# key, title, y-axis limits, the range the quantity can take (its ±2 SE band
# is clipped to it: a probability's band never leaves [0, 1], τ's [-1, 1])
PANELS = (
    ("p_winner", "P(true best ranks first)", (-0.02, 1.02), (0.0, 1.0)),
    ("kendall_tau", "Kendall's τ to the true ranking", (None, 1.02), (-1.0, 1.0)),
    ("p_adjacent_swap", "P(an adjacent pair swaps)", (-0.02, 1.02), (0.0, 1.0)),
    ("rank_interval_width", "Median rank-interval width", (1, None), (0.0, None)),
)
# Part of the stored figures' names: a change of the drawing draws them again.
DRAWING_VERSION = 2


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
    for ax, (key, title, (low, high), bounds) in zip(axes, panels, strict=True):
        y = [r[key] for r in records]
        se = [r.get(f"{key}_se") or 0.0 for r in records]
        ax.fill_between(
            n,
            *band(y, se, bounds),
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


def band(
    values: list[float], errors: list[float], bounds: tuple[float, float | None]
) -> tuple[list[float], list[float]]:
    """The ±2 Monte-Carlo standard errors around ``values``, clipped to the
    range the quantity can take (``bounds``; None: unbounded above)."""
    low, high = bounds

    def clipped(value: float) -> float:
        value = max(value, low)
        return value if high is None else min(value, high)

    pairs = list(zip(values, errors, strict=True))
    return [clipped(v - 2 * e) for v, e in pairs], [
        clipped(v + 2 * e) for v, e in pairs
    ]


def plan_figure_data_uri(plan: Mapping[str, Any], chosen: int | None) -> str:
    """The figure as a ``data:`` URI for an ``<img>`` (the CSP allows them)."""
    png = plan_figure_png(plan, chosen)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _key(plan: Mapping[str, Any], chosen: int | None) -> str:
    return canonical_sha256(
        {"plan": plan, "chosen": chosen, "drawing": DRAWING_VERSION}
    )


def stored_plan_figure_png(plan: Mapping[str, Any], chosen: int | None) -> bytes:
    """The figure's PNG from the storage, drawn and stored first if missing.
    Files are named by their content's key, so two processes storing the same
    one write the same bytes; a storage failure only costs the drawing."""
    name = f"plan-figures/{_key(plan, chosen)}.png"
    try:
        if default_storage.exists(name):
            with default_storage.open(name, "rb") as file:
                return file.read()
    except OSError as exc:
        cache_failed(exc, "plan figure file read")
    png = plan_figure_png(plan, chosen)
    try:
        saved = default_storage.save(name, ContentFile(png))
        if saved != name:  # another process stored it meanwhile
            default_storage.delete(saved)
    except OSError as exc:
        cache_failed(exc, "plan figure file write")
    return png


def store_plan_figure(plan: Mapping[str, Any], chosen: int | None) -> None:
    """Draw and store the figure now (a plan was attached), not on a page."""
    stored_plan_figure_png(plan, chosen)


def cached_plan_figure_data_uri(plan: Mapping[str, Any], chosen: int | None) -> str:
    """The figure as a data URI from the cache, else from the stored file (drawn
    and stored if missing; ``PLAN_FIGURE_CACHE_SECONDS``); a failing cache only
    costs reading the file."""
    key = "plan-figure:" + _key(plan, chosen)
    try:
        uri = cache.get(key)
    except Exception as exc:  # any backend error: read the file
        cache_failed(exc, "plan figure read")
        uri = None
    if uri is None:
        png = stored_plan_figure_png(plan, chosen)
        uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        try:
            cache.set(key, uri, settings.PLAN_FIGURE_CACHE_SECONDS)
        except Exception as exc:
            cache_failed(exc, "plan figure write")
    return uri
