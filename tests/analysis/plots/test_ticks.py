"""Ticks drawn as plain artists look as matplotlib's own ticks would."""

from __future__ import annotations

import numpy as np
import pytest

from analysis import plots
from analysis.plots._style import new_figure
from analysis.plots._ticks import fix_automatic_ticks, fixed_ticks


def _figure(fixed: bool, *, which: str, names: bool):
    """A panel with six names on ``which`` axis (as fixed_ticks or as
    matplotlib's ticks draw them) and a numeric axis; ``fixed``: every tick
    drawn by _ticks, as the report's figures are."""
    fig = new_figure(4.0, 3.0)
    ax = fig.add_subplot()
    names_at, numbers_at = (ax.set_xlim, ax.set_ylim)[:: 1 if which == "x" else -1]
    names_at(-0.6, 5.6)  # the names' axis (set_ticks would widen it to them)
    numbers_at(0.13, 0.97)
    labels = [f"team-{i:02d} (3 missing)" for i in range(6)]
    if names and fixed:
        fixed_ticks(ax, which, np.arange(6), labels, size=7.5, rotate=which == "x")
    elif names:
        axis = ax.xaxis if which == "x" else ax.yaxis
        axis.set_ticks(np.arange(6), labels)
        for label in axis.get_ticklabels():
            label.set_fontsize(7.5)
            if which == "x":
                label.set(rotation=60, ha="right", rotation_mode="anchor")
    ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel("Algorithm")
    ax.set_ylabel("DSC")
    if fixed:
        fix_automatic_ticks(fig)
    return fig


def _drawn(fig):
    """(text, x, y) of every label drawn, and the axis labels' positions."""
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    ax = fig.axes[0]
    ticks = []
    for axis in (ax.xaxis, ax.yaxis):
        for tick in axis._update_ticks():
            box = tick.label1.get_window_extent(renderer)
            ticks.append((tick.label1.get_text(), *np.round(box.extents, 2)))
    for text in plots.axis_labels(ax, "x") + plots.axis_labels(ax, "y"):
        box = text.get_window_extent(renderer)
        ticks.append((text.get_text(), *np.round(box.extents, 2)))
    labels = [
        tuple(np.round(axis.label.get_window_extent(renderer).extents, 2))
        for axis in (ax.xaxis, ax.yaxis)
    ]
    return sorted(ticks), labels


@pytest.mark.parametrize("which", ["x", "y"])
def test_fixed_ticks_draw_labels_and_axis_labels_where_matplotlib_does(which):
    mine, mine_labels = _drawn(_figure(True, which=which, names=True))
    theirs, their_labels = _drawn(_figure(False, which=which, names=True))
    assert mine == theirs
    assert mine_labels == their_labels
    ax = _figure(True, which=which, names=True).axes[0]
    assert len(plots.axis_labels(ax, which)) == 6
    assert not (ax.xaxis if which == "x" else ax.yaxis).get_major_ticks(0)


def test_automatic_ticks_become_fixed_with_the_same_labels():
    theirs, their_labels = _drawn(_figure(False, which="x", names=False))
    fig = _figure(True, which="x", names=False)
    ax = fig.axes[0]
    assert plots.axis_labels(ax, "y")  # the numeric axes are fixed ones now
    mine, mine_labels = _drawn(fig)
    assert mine == theirs
    assert mine_labels == their_labels
    fix_automatic_ticks(fig)  # nothing left to fix
    assert _drawn(fig) == (mine, mine_labels)
