"""Many shapes of one style drawn as one path.

A collection of n lines or polygons is written to a PDF as n paths, each
with its own graphics state; when the shapes of one style do not overlap
(or their ink is opaque), one path of n subpaths draws the same picture at a
fraction of the cost: box plots, interval lines and grid lines at 40
algorithms, and the m x m bars of a podium.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.path import Path

__all__ = ["add_bars", "add_lines"]

Points = Sequence[tuple[float, float]]


def add_lines(ax, lines: Sequence[Points], **style) -> None:
    """Polylines of one style (``PathCollection`` keywords: edgecolors,
    linewidths, capstyle, zorder, ...) as one path, each line a subpath with
    its own caps: what a ``LineCollection`` of them draws where they cross
    only in opaque ink (or not at all)."""
    if not len(lines):
        return
    path = Path.make_compound_path(*(Path(np.asarray(s, float)) for s in lines))
    ax.add_collection(PathCollection([path], facecolors="none", **style), autolim=False)


def add_bars(ax, groups: Sequence[tuple[str, Sequence[Points]]]) -> None:
    """Filled quadrilaterals without edges, given as (colour, its shapes): one
    path per colour, which draws what a ``PolyCollection`` of them draws
    where shapes of one colour do not overlap."""
    paths, faces = [], []
    for color, shapes in groups:
        if len(shapes):
            polygons = np.asarray(shapes, dtype=np.float64)
            paths.append(Path.make_compound_path_from_polys(polygons))
            faces.append(color)
    ax.add_collection(
        PathCollection(paths, facecolors=faces, edgecolors="none", linewidths=0),
        autolim=False,
    )
