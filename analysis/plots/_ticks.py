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
from matplotlib.lines import TICKDOWN, TICKLEFT, TICKRIGHT, Line2D
from matplotlib.text import Text
from matplotlib.ticker import FixedLocator, NullLocator

from ._paths import add_lines

__all__ = [
    "axis_labels",
    "fix_automatic_ticks",
    "fixed_ticks",
    "place_axis_labels",
]

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
        beyond = {
            "bottom": [ax.bbox.y0 - b.y0 for b in boxes],
            "left": [ax.bbox.x0 - b.x0 for b in boxes],
            "right": [b.x1 - ax.bbox.x1 for b in boxes],
        }.get(self.axis.get_label_position(), [])
        depth = max(beyond or [0.0]) * points
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
    right: bool = False,
) -> list[Text]:
    """Tick marks at ``positions`` (data coordinates) of the bottom x or left
    y axis (``which``; the right one if ``right``), with ``labels`` (none:
    marks only) of font ``size``, rotated by 60° and anchored at their right
    end if ``rotate``, and grid lines of that ``grid_alpha`` if given; as
    matplotlib's ticks would draw them. Returns the label texts."""
    name = f"{which}tick"
    rc = mpl.rcParams
    length, width = rc[f"{name}.major.size"], rc[f"{name}.major.width"]
    pad = rc[f"{name}.major.pad"] + length  # ticks point outwards
    color = rc[f"{name}.color"]
    label_color = rc[f"{name}.labelcolor"]
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_ticks([])
    edge = "tick2" if right else "tick1"
    if which == "x":
        transform = ax.get_xaxis_transform(edge)
        grid_transform = ax.get_xaxis_transform("grid")
        text_transform, va, ha = ax.get_xaxis_text1_transform(pad)
        marks = (positions, np.zeros(len(positions)))
        lines = [[(p, 0.0), (p, 1.0)] for p in positions]
        marker = TICKDOWN
    else:
        transform = ax.get_yaxis_transform(edge)
        grid_transform = ax.get_yaxis_transform("grid")
        text_transform, va, ha = (
            ax.get_yaxis_text2_transform(pad)
            if right
            else ax.get_yaxis_text1_transform(pad)
        )
        marks = (np.full(len(positions), 1.0 if right else 0.0), positions)
        lines = [[(0.0, p), (1.0, p)] for p in positions]
        marker = TICKRIGHT if right else TICKLEFT
    zorder = axis.get_zorder()
    if grid_alpha is not None:
        add_lines(
            ax,
            lines,
            edgecolors=rc["grid.color"],
            linewidths=rc["grid.linewidth"],
            linestyles=rc["grid.linestyle"],
            alpha=grid_alpha,  # the lines do not cross
            transform=grid_transform,
            zorder=zorder,
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
        "color": color if label_color == "inherit" else label_color,
        "rotation": ROTATION if rotate else 0,
        "rotation_mode": "anchor" if rotate else "default",
        "verticalalignment": va,
        "horizontalalignment": ha,
        "transform": text_transform,
        "zorder": zorder,
    }
    for position, label in zip(positions, labels or (), strict=False):
        xy = (position, 0.0) if which == "x" else (1.0 if right else 0.0, position)
        texts.append(ax.text(*xy, label, **style))
    marks_out = length if len(positions) else 0.0
    ax.add_artist(_AxisLabelPad(axis, texts, marks=marks_out))
    return texts


def _is_default_tick(tick, name: str, *, right: bool) -> bool:
    """Whether a tick of matplotlib's looks as :func:`fixed_ticks` draws
    one: rc length, width, colour and pad, pointing outwards, marks and
    label on one side only (the right one if ``right``)."""
    rc = mpl.rcParams
    color = mpl.colors.to_rgba(rc[f"{name}.color"])
    near, far = (
        (tick.tick2line, tick.tick1line) if right else (tick.tick1line, tick.tick2line)
    )
    other_label = tick.label1 if right else tick.label2
    return (
        tick.get_tickdir() == "out"
        and tick.get_pad() == rc[f"{name}.major.pad"]
        and near.get_markersize() == rc[f"{name}.major.size"]
        and near.get_markeredgewidth() == rc[f"{name}.major.width"]
        and mpl.colors.to_rgba(near.get_markeredgecolor()) == color
        and near.get_visible()
        and not far.get_visible()
        and not other_label.get_visible()
    )


def _automatic_ticks(axis) -> dict | None:
    """What matplotlib's ticks of ``axis`` would draw, as arguments of
    :func:`fixed_ticks`; None where they do not fit it (already fixed,
    minor ticks, an offset or a scale factor, another look, an axis whose
    length is only set when it is drawn)."""
    ax = axis.axes
    locator = axis.get_major_locator()
    if isinstance(locator, FixedLocator) and not len(locator.locs):
        return None  # no ticks, or fixed_ticks draws them
    if (
        isinstance(locator, NullLocator)
        or not isinstance(axis.get_minor_locator(), NullLocator)
        or axis.get_scale() != "linear"
        or ax.get_axes_locator() is not None
        or ax.get_aspect() != "auto"
        or ax.get_box_aspect() is not None
    ):
        return None
    tick = axis.majorTicks[0]  # the style every tick is copied from
    name = f"{axis.axis_name}tick"
    right = tick.tick2line.get_visible()
    if (right and axis.axis_name == "x") or not _is_default_tick(
        tick, name, right=right
    ):
        return None
    locs = axis.get_majorticklocs()
    labels = axis.major.formatter.format_ticks(locs)
    if axis.major.formatter.get_offset():
        return None
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-10  # matplotlib's tolerance for ticks in view
    shown = [
        (loc, label)
        for loc, label in zip(locs, labels, strict=True)
        if low - slack <= loc <= high + slack
    ]
    label = tick.label2 if right else tick.label1
    grid = tick.gridline
    return {
        "positions": [loc for loc, _ in shown],
        "labels": [text for _, text in shown] if label.get_visible() else None,
        "size": label.get_fontsize(),
        "grid_alpha": (grid.get_alpha() or 1.0) if grid.get_visible() else None,
        "right": right,
    }


def fix_automatic_ticks(fig) -> None:
    """Draw the automatic ticks of a finished figure (numeric axes) as
    :func:`fixed_ticks` does: the same positions and labels, without
    matplotlib's per-tick artists. Axes sharing an axis are read first."""
    found = []
    for ax in fig.axes:
        if ax.get_visible() and ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_visible() and (spec := _automatic_ticks(axis)):
                    found.append((ax, axis.axis_name, spec))
    for ax, which, spec in found:
        fixed_ticks(ax, which, spec.pop("positions"), **spec)


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
