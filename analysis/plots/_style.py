"""Figure creation, colours, sizes and byte-stable export for every plot.

Figures are built with :class:`matplotlib.figure.Figure` and an Agg canvas, never
through ``pyplot``, so no global figure state is created or leaked. Export
helpers strip every time stamp and version string from the files and fix the
SVG id salt, so the same input gives the same bytes.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
from collections.abc import Callable, Iterator, Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ._ticks import fix_automatic_ticks, fixed_ticks, place_axis_labels

__all__ = [
    "MIN_PRINT_PT",
    "OKABE_ITO",
    "PLAIN_TEXT",
    "PRINT_HEIGHT",
    "PRINT_WIDTH",
    "algorithm_colors",
    "figure_pdf",
    "figure_png",
    "figure_svg",
    "fit_to_text",
    "label_size",
    "new_figure",
    "ordered",
    "plain_text",
    "short_label",
    "x_labels",
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

# Values near the float limits (±1e308) overflow inside matplotlib's
# transforms; the result is drawn off-canvas, which is no reason to fail.
_FLOAT_LIMITS = {"over": "ignore", "under": "ignore", "invalid": "ignore"}

# Names are data, never markup: "$x_1$" is drawn as typed, not as mathtext.
PLAIN_TEXT = {"text.parse_math": False, "text.usetex": False}
# Axes titles sit right above the axes (no tick labels are ever on top): a
# fixed position spares matplotlib measuring every axis again to place them.
_BUILD = {**PLAIN_TEXT, "axes.titley": 1.0}
LABEL_CHARS = 32  # longer names are shortened in figures (tables show them whole)
FIT_PAD = 0.06  # inches of white space around the outermost text
PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None}

# The report prints a figure in the text frame of an A4 page (18 mm margins:
# 6.85 in wide; a figure at most 3/4 of the frame's 10.2 in height) and
# scales a larger one down to it, its text with it. Figures are laid out to
# fit that slot as drawn (less some room for the margins fit_to_text adds),
# so their text prints at the size it is set in, never below MIN_PRINT_PT:
# more items mean narrower columns, more figures or fewer drawn, not a
# figure shrunk on the page.
PRINT_WIDTH = 6.4  # inches
PRINT_HEIGHT = 7.2
MIN_PRINT_PT = 6.0

# Set while a figure is built for :func:`._fitted.fitted_pdf`, which fits the
# page around the text as it draws (fit_to_text would cost a second drawing).
_FIT_DEFERRED = contextvars.ContextVar("fit_deferred", default=False)


@contextlib.contextmanager
def fitting_deferred() -> Iterator[None]:
    """Within, :func:`fit_to_text` leaves the figure's size to the export."""
    token = _FIT_DEFERRED.set(True)
    try:
        yield
    finally:
        _FIT_DEFERRED.reset(token)


# Headless rendering. Naming the backend also keeps matplotlib from importing
# pyplot to resolve an "auto" backend when it reads rcParams (box plots do).
matplotlib.use("Agg")


def plain_text(build: Callable[..., Figure]) -> Callable[..., Figure]:
    """Build the figure with names read as plain text (see PLAIN_TEXT); the
    finished figure's automatic ticks are then drawn as fixed ones (the same
    ticks, a fraction of the cost: see ``_ticks``)."""

    @functools.wraps(build)
    def wrapper(*args, **kwargs) -> Figure:
        with matplotlib.rc_context(_BUILD), np.errstate(**_FLOAT_LIMITS):
            fig = build(*args, **kwargs)
            fix_automatic_ticks(fig)
            return fig

    return wrapper


def short_label(name: str, limit: int = LABEL_CHARS) -> str:
    """A name as a figure label: shortened in the middle beyond ``limit``."""
    text = str(name)
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[len(text) - (limit - 1 - half) :]}"


def finite_limits(values: np.ndarray) -> tuple[float, float] | None:
    """Axis limits for values that may be huge (±1e308): a 5 % margin that
    never overflows; None when there is nothing finite to show."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    quarter = np.finfo(np.float64).max / 4
    # the tick locator needs a finite span: beyond ±max/4 values leave the axes
    lo, hi = max(float(v.min()), -quarter), min(float(v.max()), quarter)
    span = hi - lo
    if span == 0:
        pad = max(abs(lo) * 0.05, 0.5)
        return lo - pad, hi + pad
    return lo - 0.05 * span, hi + 0.05 * span


def _text_bbox(fig: Figure, renderer):
    """Union of the axes frames and every text and legend (not the data
    artists: measuring thousands of markers is slow and they stay inside)."""
    from matplotlib.transforms import Bbox

    boxes = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        extra = [*ax.texts, *([ax.get_legend()] if ax.get_legend() else [])]
        place_axis_labels(ax, renderer)
        boxes.append(ax.get_tightbbox(renderer, bbox_extra_artists=extra))
    for artist in [*fig.texts, *fig.legends]:
        if artist.get_visible():
            boxes.append(artist.get_window_extent(renderer))
    boxes = [b for b in boxes if b is not None and b.width >= 0]
    return Bbox.union(boxes).transformed(fig.dpi_scale_trans.inverted())


def fit_to_text(fig: Figure, *, pad: float = FIT_PAD) -> Figure:
    """Resize the figure so every text (tick labels, titles, legends) lies
    inside it.

    Axes keep their size in inches and move with the new margins; this is what
    ``savefig(bbox_inches="tight")`` does on export, made permanent so the
    figure itself (and any check of it) has no clipped text.
    """
    fig.set_layout_engine(None)
    if _FIT_DEFERRED.get():
        return fig
    # One pass: axes keep their size, so their text keeps its extent around
    # them; figure texts are moved with the margins below.
    for _ in range(1):
        renderer = fig.canvas.get_renderer()
        box = _text_bbox(fig, renderer)
        width, height = fig.get_size_inches()
        left, bottom = pad - box.x0, pad - box.y0
        right, top = box.x1 + pad - width, box.y1 + pad - height
        if max(abs(left), abs(bottom), abs(right), abs(top)) < 0.02:
            break
        new_w, new_h = width + left + right, height + bottom + top
        moves = []
        for ax in fig.axes:
            p = ax.get_position()
            moves.append(
                (
                    ax,
                    [
                        (p.x0 * width + left) / new_w,
                        (p.y0 * height + bottom) / new_h,
                        p.width * width / new_w,
                        p.height * height / new_h,
                    ],
                )
            )
        texts = [
            (t, t.get_position())
            for t in fig.texts
            if t.get_transform() == fig.transFigure
        ]
        fig.set_size_inches(new_w, new_h)
        for ax, pos in moves:
            ax.set_position(pos)
        for t, (x, y) in texts:
            t.set_position(((x * width + left) / new_w, (y * height + bottom) / new_h))
    return fig


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
    """Tick-label font size for ``n`` labels on one axis of at most
    PRINT_WIDTH (readable at 60: rotated labels 7.5 pt apart)."""
    if n <= 10:
        return 9.0
    if n <= 25:
        return 7.5
    return 6.5 if n <= 45 else MIN_PRINT_PT


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
    """Figure width (inches) for ``n`` categories on the x axis: ``per_item``
    each, up to the PRINT_WIDTH the report prints unscaled."""
    return min(PRINT_WIDTH, max(minimum, 1.2 + per_item * n))


def square_side(m: int, *, most: float) -> float:
    """Side (inches) of a square of m × m cells: 0.14 in a cell, at most
    ``most`` (the printed width), and from 30 rows down to 7 pt a row
    (6.5 pt labels) so that two such squares share a page."""
    return min(most, max(3.2, 1.0 + 0.14 * m), max(3.9, 0.1 * m))


def print_height(height: float, *, outside: float = 0.0) -> float:
    """A figure height (inches) capped at the PRINT_HEIGHT of the report, less
    ``outside``: what its text adds below or above the figure (long rotated
    tick labels)."""
    return min(PRINT_HEIGHT - outside, height)


def panels_per_figure(cols: int, panel_height: float, *, extra: float = 0.8) -> int:
    """How many panels of ``panel_height`` inches in ``cols`` columns fit one
    figure of at most PRINT_HEIGHT (``extra``: its title and legend)."""
    return cols * max(1, int((PRINT_HEIGHT - extra) // panel_height))


def x_labels(ax, labels: Sequence[str], *, n: int | None = None) -> list:
    """Labels at x = 0, 1, ...: sized for ``n`` labels (default: as many as
    given) and rotated when there are more than six, or fewer too wide to
    stand side by side ("gamma (3 missing)" ran into its neighbours)."""
    n = len(labels) if n is None else n
    size = label_size(n)
    rotate = n > 6 or not _side_by_side(ax, labels, size)
    return fixed_ticks(
        ax, "x", np.arange(len(labels)), labels, size=size, rotate=rotate
    )


def _side_by_side(ax, labels: Sequence[str], size: float) -> bool:
    """Whether the labels fit unrotated into their share of the axes' width
    (estimated: 0.6 em a character, the longest line of each label)."""
    fig = ax.get_figure(root=True)
    slot = ax.get_position().width * fig.get_figwidth() / max(len(labels), 1)
    chars = max((len(line) for t in labels for line in str(t).split("\n")), default=0)
    return chars * 0.6 * size / 72 <= 0.9 * slot


def figure_png(fig: Figure, *, dpi: int = 150) -> bytes:
    """PNG bytes; no software or date metadata, so equal figures give equal bytes."""
    buf = io.BytesIO()
    with matplotlib.rc_context(PLAIN_TEXT), np.errstate(**_FLOAT_LIMITS):
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def figure_pdf(fig: Figure) -> bytes:
    """Vector PDF bytes without creation date or producer; text stays text
    (matplotlib's default Type 3 fonts), so it can be searched and read."""
    buf = io.BytesIO()
    with matplotlib.rc_context(PLAIN_TEXT), np.errstate(**_FLOAT_LIMITS):
        fig.savefig(buf, format="pdf", metadata=PDF_METADATA)
    return buf.getvalue()


def figure_svg(fig: Figure) -> bytes:
    """Vector SVG bytes with a fixed id salt and no date."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": _SVG_SALT, **PLAIN_TEXT}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return buf.getvalue()
