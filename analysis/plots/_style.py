"""Figure creation, colours, sizes and byte-stable export for every plot.

Figures are built with :class:`matplotlib.figure.Figure` and an Agg canvas, never
through ``pyplot``, so no global figure state is created or leaked. Export
helpers strip every time stamp and version string from the files and fix the
SVG id salt, so the same input gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "OKABE_ITO",
    "algorithm_colors",
    "figure_pdf",
    "figure_png",
    "figure_svg",
    "label_size",
    "new_figure",
    "ordered",
]

# Okabe & Ito (2008): distinguishable under the common colour-vision deficiencies.
OKABE_ITO: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
    "#000000",  # black
)

SIGNIFICANT = "#F0E442"  # Okabe-Ito yellow (seed 000 Fig. 7: yellow = superior)
NOT_SIGNIFICANT = "#0072B2"  # Okabe-Ito blue

_SVG_SALT = "challenge-registry"

# Headless rendering. Naming the backend also keeps matplotlib from importing
# pyplot to resolve an "auto" backend when it reads rcParams (box plots do).
matplotlib.use("Agg")


def new_figure(width: float, height: float) -> Figure:
    """A figure (inches) with its own Agg canvas and fixed layout engine."""
    fig = Figure(figsize=(max(width, 2.0), max(height, 1.5)), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def palette(n: int) -> list[str]:
    """n colour-blind-safe colours: Okabe–Ito up to 8, viridis beyond."""
    if n <= len(OKABE_ITO):
        return list(OKABE_ITO[:n])
    cmap = colormaps["viridis"]
    return [matplotlib.colors.to_hex(cmap(x)) for x in np.linspace(0.0, 0.95, n)]


def algorithm_colors(algorithms: Sequence[str]) -> dict[str, str]:
    """One colour per algorithm, in the given order."""
    return dict(zip(algorithms, palette(len(algorithms)), strict=True))


def label_size(n: int) -> float:
    """Tick-label font size for ``n`` labels on one axis (readable at 40)."""
    if n <= 10:
        return 9.0
    if n <= 25:
        return 7.5
    return 6.5


def ordered(
    ranks: Mapping[str, float | None], *, top_k: int | None = None
) -> list[str]:
    """Algorithms by rank (best first, missing ranks last, then by name)."""
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be ≥ 1")
    names = sorted(
        ranks,
        key=lambda a: (ranks[a] is None, ranks[a] if ranks[a] is not None else 0, a),
    )
    return names if top_k is None else names[:top_k]


def axis_width(n: int, *, per_item: float = 0.32, minimum: float = 5.0) -> float:
    """Figure width (inches) for ``n`` categories on the x axis."""
    return max(minimum, 1.2 + per_item * n)


def rotate_labels(ax, n: int) -> None:
    """Rotate x tick labels when there are many of them."""
    size = label_size(n)
    for label in ax.get_xticklabels():
        label.set_fontsize(size)
        if n > 6:
            label.set_rotation(60)
            label.set_horizontalalignment("right")
            label.set_rotation_mode("anchor")


def figure_png(fig: Figure, *, dpi: int = 150) -> bytes:
    """PNG bytes; no software or date metadata, so equal figures give equal bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def figure_pdf(fig: Figure) -> bytes:
    """Vector PDF bytes without creation date or producer."""
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="pdf",
        metadata={"Creator": None, "Producer": None, "CreationDate": None},
    )
    return buf.getvalue()


def figure_svg(fig: Figure) -> bytes:
    """Vector SVG bytes with a fixed id salt and no date."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": _SVG_SALT}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return buf.getvalue()
