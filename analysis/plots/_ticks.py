"""Ticks known when a figure is built, drawn as a few plain artists.

Matplotlib makes every tick of an axis out of five artists (two tick marks,
two labels and a grid line), copies the first tick's style into each new one
(a deep copy of its marker) and updates every tick again whenever it draws or
measures the axis: with 40 algorithms on an axis, that is most of a figure's
time. :func:`fixed_ticks` turns matplotlib's ticks of one axis off and draws
the same picture with one marker line for the tick marks, one line collection
for the grid lines and one :class:`~matplotlib.text.Text` per label (in the
axes' ``texts``, so every check of a figure's text sees them), placed where
matplotlib places tick labels: the same pad, alignment and rotation. The
axis label is kept beyond the labels, as matplotlib does (see
:class:`_AxisLabelPad`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.collections import LineCollection
from matplotlib.lines import TICKDOWN, TICKLEFT, Line2D
from matplotlib.text import Text

__all__ = ["axis_labels", "fixed_ticks", "place_axis_labels"]

ROTATION = 60  # degrees, for many labels on an x axis


class _AxisLabelPad(Artist):
    """Moves an axis label beyond the labels of :func:`fixed_ticks`.

    Matplotlib places the axis label ``labelpad`` points beyond its own tick
    labels; with those turned off it would sit on the drawn labels. This
    artist draws nothing: drawn before the axis, it measures the labels (their
    layout is cached for drawing them) and widens ``labelpad`` by their
    depth beyond the axes, which puts the label where matplotlib would."""

    def __init__(self, axis, labels: list[Text], *, marks: float) -> None:
        super().__init__()
        self.axis = axis
        self.labels = labels
        self.marks = marks  # tick length outside the axes, points
        self.base = axis.labelpad
        self.set_zorder(-np.inf)  # before the axis draws its label
        self.set_in_layout(False)

    def place(self, renderer) -> None:
        if not self.axis.label.get_text():
            return
        ax = self.axis.axes
        points = 72.0 / ax.get_figure(root=True).dpi
        boxes = [t.get_window_extent(renderer) for t in self.labels if t.get_text()]
        if self.axis.axis_name == "x":
            edge = ax.bbox.y0
            depth = max([edge - b.y0 for b in boxes] or [0.0]) * points
        else:
            edge = ax.bbox.x0
            depth = max([edge - b.x0 for b in boxes] or [0.0]) * points
        self.axis.labelpad = self.base + max(depth, self.marks, 0.0)

    def draw(self, renderer) -> None:
        if self.get_visible():
            self.place(renderer)
        self.stale = False


def fixed_ticks(
    ax,
    which: str,
    positions: Sequence[float],
    labels: Sequence[str] | None = None,
    *,
    size: float | None = None,
    rotate: bool = False,
    grid_alpha: float | None = None,
) -> list[Text]:
    """Tick marks at ``positions`` (data coordinates) of the bottom x or left
    y axis (``which``), with ``labels`` (none: marks only) of font ``size``,
    rotated by 60° and anchored at their right end if ``rotate``, and grid
    lines of that ``grid_alpha`` if given; as matplotlib's ticks would draw
    them. Returns the label texts."""
    name = f"{which}tick"
    rc = mpl.rcParams
    length, width = rc[f"{name}.major.size"], rc[f"{name}.major.width"]
    pad = rc[f"{name}.major.pad"] + length  # ticks point outwards
    color = rc[f"{name}.color"]
    axis = ax.xaxis if which == "x" else ax.yaxis
    if which == "x":
        ax.set_xticks([])
        transform, grid_transform = (
            ax.get_xaxis_transform("tick1"),
            ax.get_xaxis_transform("grid"),
        )
        text_transform, va, ha = ax.get_xaxis_text1_transform(pad)
        marks = (positions, np.zeros(len(positions)))
        lines = [[(p, 0.0), (p, 1.0)] for p in positions]
        marker = TICKDOWN
    else:
        ax.set_yticks([])
        transform, grid_transform = (
            ax.get_yaxis_transform("tick1"),
            ax.get_yaxis_transform("grid"),
        )
        text_transform, va, ha = ax.get_yaxis_text1_transform(pad)
        marks = (np.zeros(len(positions)), positions)
        lines = [[(0.0, p), (1.0, p)] for p in positions]
        marker = TICKLEFT
    zorder = axis.get_zorder()
    if grid_alpha is not None and len(positions):
        ax.add_collection(
            LineCollection(
                lines,
                colors=rc["grid.color"],
                linewidths=rc["grid.linewidth"],
                linestyles=rc["grid.linestyle"],
                alpha=grid_alpha,
                transform=grid_transform,
                zorder=zorder,
            ),
            autolim=False,
        )
    if len(positions):
        ax.add_artist(
            Line2D(
                *marks,
                linestyle="none",
                marker=marker,
                markersize=length,
                markeredgewidth=width,
                color=color,
                markeredgecolor=color,
                transform=transform,
                clip_on=False,
                zorder=zorder,
            )
        )
    texts = []
    if rotate:
        ha = "right"
    style = {
        "fontsize": rc[f"{name}.labelsize"] if size is None else size,
        "color": color
        if rc[f"{name}.labelcolor"] == "inherit"
        else rc[f"{name}.labelcolor"],
        "rotation": ROTATION if rotate else 0,
        "rotation_mode": "anchor" if rotate else "default",
        "verticalalignment": va,
        "horizontalalignment": ha,
        "transform": text_transform,
        "zorder": zorder,
    }
    for position, label in zip(positions, labels or (), strict=False):
        xy = (position, 0.0) if which == "x" else (0.0, position)
        texts.append(ax.text(*xy, label, **style))
    ax.add_artist(_AxisLabelPad(axis, texts, marks=length if len(positions) else 0.0))
    return texts


def _pads(ax) -> list[_AxisLabelPad]:
    return [a for a in ax.get_children() if isinstance(a, _AxisLabelPad)]


def place_axis_labels(ax, renderer) -> None:
    """Place the axis labels of ``ax`` beyond its fixed tick labels (what
    drawing it does) before measuring the axes without drawing them."""
    for pad in _pads(ax):
        pad.place(renderer)


def axis_labels(ax, which: str) -> list[Text]:
    """The tick labels :func:`fixed_ticks` drew on the ``which`` axis of
    ``ax``, in tick order."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    return [t for pad in _pads(ax) if pad.axis is axis for t in pad.labels]
