"""A figure as PDF, fitted around its text in one drawing pass.

:func:`._style.fit_to_text` measures every text with a renderer and resizes
the figure; exporting then draws it a second time. Here the figure is drawn
once, as it was built: the PDF renderer records the extent of every text it
draws, and the page (MediaBox) is set afterwards to the union of those extents
and the axes frames, plus the same padding. Because ``fit_to_text`` keeps the
axes' size in inches and only moves the margins, the cropped page shows the
same picture as the fitted figure; text outside the figure's own canvas is
still in the content stream (the PDF backend clips nothing there), so the crop
can also widen the page.

Written for matplotlib 3.11 (pinned): ``print_pdf`` without ``PdfPages`` is
mirrored below, and the text extents reuse the metrics matplotlib cached while
laying the text out.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable, Iterator

import matplotlib
import numpy as np
from matplotlib import _text_helpers
from matplotlib import text as mpl_text
from matplotlib.backends import backend_pdf
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_mixed import MixedModeRenderer
from matplotlib.backends.backend_pdf import (
    FigureCanvasPdf,
    Name,
    Op,
    PdfFile,
    RendererPdf,
    Stream,
    Verbatim,
    pdfRepr,
)
from matplotlib.figure import Figure
from matplotlib.font_manager import fontManager, get_font

from ._style import _FLOAT_LIMITS, FIT_PAD, PDF_METADATA, PLAIN_TEXT, fitting_deferred

__all__ = ["fitted_pdf"]

_POINTS = 72.0  # PDF units per inch


class _Memo(dict):
    """A cache of drawing work that starts afresh once it holds ``limit``
    entries: figure workers can live as long as the server, and the names
    drawn differ from run to run, so nothing may grow without bound."""

    def __init__(self, limit: int = 20_000) -> None:
        super().__init__()
        self.limit = limit

    def get_or_compute(self, key, compute):
        try:
            return self[key]
        except KeyError:
            if len(self) >= self.limit:
                self.clear()
            value = self[key] = compute()
            return value


def _marker_shape(path, trans, renderer) -> tuple:
    (operators,) = renderer.pathOperations(path, trans, simplify=False)
    return operators.pdfRepr(), path.get_extents(trans)


# marker shape (path, transform) → its PDF path operators and extent
_MARKER_SHAPES = _Memo()


class _WholeStream(Stream):
    """A PDF stream that compresses its content in one go when it ends, not
    write by write (a figure makes tens of thousands of small writes); the
    compressed bytes are the same."""

    __slots__ = ("pending",)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pending: list[bytes] = []

    def write(self, data) -> None:
        if self.compressobj is None:
            super().write(data)
        else:
            self.pending.append(data)

    def _flush(self) -> None:
        if self.pending:
            self.file.write(self.compressobj.compress(b"".join(self.pending)))
            self.pending = []
        super()._flush()


def _number(value: float) -> bytes:
    """A number as ``pdfRepr`` writes a float."""
    if not math.isfinite(value):
        raise ValueError("Can only output finite numbers in PDF")
    return (b"%.10f" % value).rstrip(b"0").rstrip(b".")


def _integer(value: int) -> bytes:
    return b"%d" % value


# the types of nearly every operand a figure writes → what pdfRepr makes of it
_OPERANDS: dict[type, Callable[[object], bytes]] = {
    float: _number,
    np.float64: _number,
    int: _integer,
    Op: lambda op: op.value,
    Name: lambda name: name.pdfRepr(),
}
_LINE = 75  # the line length backend_pdf._fill breaks at


class _CroppedPdfFile(PdfFile):
    """A one-page PDF whose MediaBox is set after drawing (``media_box``)."""

    media_box: list[float] | None = None

    def output(self, *data) -> None:
        """``PdfFile.output`` of matplotlib 3.11 writing the same bytes: the
        usual operands (numbers, operators, names) formatted by their type
        rather than through ``pdfRepr``'s chain of checks, and a line under
        75 characters joined at once (``_fill`` breaks only longer ones). A
        figure writes tens of thousands of these lines."""
        parts = [_OPERANDS.get(type(x), pdfRepr)(x) for x in data]
        line = b" ".join(parts)
        self.write(line if len(line) < _LINE else backend_pdf._fill(parts))
        self.write(b"\n")

    def markerObject(  # noqa: N802 (matplotlib's name)
        self, path, trans, fill, stroke, lw, joinstyle, capstyle
    ):
        """``PdfFile.markerObject`` of matplotlib 3.11 writing the same bytes,
        with the operators and extent of a marker shape taken from a cache:
        the same few markers (dots, tick marks) recur in every figure, and the
        extent of a curved one is computed in Python from its Bézier segments.
        (As there, each call's operators are a new ``Verbatim``, which equals
        only itself: calls do not share a marker object.)"""
        shape = (
            path.vertices.tobytes(),
            None if path.codes is None else path.codes.tobytes(),
            trans.get_matrix().tobytes(),
        )
        operators, bbox = _MARKER_SHAPES.get_or_compute(
            shape, lambda: _marker_shape(path, trans, self)
        )
        key = (
            (Verbatim(operators),),
            bool(fill),
            bool(stroke),
            joinstyle,
            capstyle,
        )
        name = Name(f"M{len(self.markers)}")
        ob = self.reserveObject(f"marker {len(self.markers)}")
        self.markers[key] = [name, ob, bbox, lw]
        return name

    def beginStream(self, id, len, extra=None, png=None):  # noqa: N802 (matplotlib's name)
        assert self.currentstream is None
        self.currentstream = _WholeStream(id, len, self, extra, png)

    def writeObject(self, obj, contents):  # noqa: N802 (matplotlib's name)
        if isinstance(contents, dict) and contents.get("Type") == Name("Page"):
            # written later, once the drawn text tells the page's extent
            self._page = (obj, contents)
            return
        super().writeObject(obj, contents)

    def finalize(self) -> None:
        self.endStream()
        obj, contents = self._page
        if self.media_box is not None:
            contents = {**contents, "MediaBox": self.media_box}
        super().writeObject(obj, contents)
        super().finalize()


_HEIGHT_METRICS = _Memo()
_TEXT_METRICS = _Memo()


def _table_height_metrics(prop) -> tuple[float | None, float | None, float | None]:
    """What ``Text._get_layout`` reads from the OS/2 or hhea table, at 72 dpi."""
    font = get_font(fontManager._find_fonts_by_props(prop))
    for table_name, gap, ascent, descent in (
        ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
        ("hhea", "lineGap", "ascent", "descent"),
    ):
        table = font.get_sfnt_table(table_name)
        if table is None:
            continue
        scale = prop.get_size_in_points() / font.get_sfnt_table("head")["unitsPerEm"]
        return table[ascent] * scale, -table[descent] * scale, table[gap] * scale
    return None, None, None


class _TextBoundsRenderer(RendererPdf):
    """The PDF renderer, recording the box (x0, y0, x1, y1 in points) of
    every line of text it draws."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.outer = self
        self.text_size = 0.0
        self.boxes: list[tuple[float, float, float, float]] = []

    def get_text_width_height_descent(self, s, prop, ismath):
        """Width, height and descent of a line of text (points), cached
        across figures: names and tick labels recur, and laying a line out
        with the font costs as much as drawing it."""
        if ismath:
            return super().get_text_width_height_descent(s, prop, ismath)
        measure = super().get_text_width_height_descent
        return _TEXT_METRICS.get_or_compute(
            (s, prop.copy()), lambda: measure(s, prop, ismath)
        )

    def _get_font_height_metrics(self, prop):
        """Ascent, descent and line gap of the font (points), as Text
        computes them from the font tables for every layout; cached, since
        reading a table costs as much as laying out a short label."""

        def read() -> tuple:
            metrics = super(_TextBoundsRenderer, self)._get_font_height_metrics(prop)
            return _table_height_metrics(prop) if None in metrics else metrics

        return _HEIGHT_METRICS.get_or_compute(prop.copy(), read)

    def draw_markers(self, gc, marker_path, marker_trans, path, trans, rgbFace=None):
        """``RendererPdf.draw_markers`` writing the same bytes: one
        ``1 0 0 1 dx dy cm /M Do`` line per marker, formatted here at once
        instead of through ``pdfRepr`` item by item (a third of the time of a
        figure with a thousand dots)."""
        if len(marker_path) * len(path) < len(marker_path) + len(path) + 5:
            super().draw_markers(gc, marker_path, marker_trans, path, trans, rgbFace)
            return
        self.check_gc(gc, rgbFace)
        marker = pdfRepr(
            self.file.markerObject(
                marker_path,
                marker_trans,
                gc.fill(rgbFace),
                gc.stroke(),
                self.gc._linewidth,
                gc.get_joinstyle(),
                gc.get_capstyle(),
            )
        )
        width, height = self.file.width * 72, self.file.height * 72
        lines = []
        lastx, lasty = 0, 0
        for vertices, _ in path.iter_segments(
            trans, clip=(0, 0, width, height), simplify=False
        ):
            if len(vertices):
                x, y = vertices[-2:]
                if not (0 <= x <= width and 0 <= y <= height):
                    continue
                lines.append(
                    b"1 0 0 1 %s %s cm %s Do\n"
                    % (_number(x - lastx), _number(y - lasty), marker)
                )
                lastx, lasty = x, y
        self.file.output(Op.gsave)
        self.file.write(b"".join(lines))
        self.file.output(Op.grestore)

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        self.text_size = prop.get_size_in_points()
        super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        # Text._get_layout measured this line with the outer renderer at 72
        # dpi just before: the same call is a cache hit.
        w, h, d = mpl_text._get_text_metrics_with_cache(
            self.outer, s, prop, ismath, _POINTS
        )
        corners = np.array([[0.0, -d], [w, -d], [w, h - d], [0.0, h - d]])
        a = math.radians(angle)
        rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        xy = corners @ rotation.T + (x, y)
        self.boxes.append((*xy.min(axis=0), *xy.max(axis=0)))


def _page_box(fig: Figure, renderer, boxes, pad: float) -> list[float]:
    """Union of the drawn text, the visible axes frames and the legends, in
    points, widened by ``pad`` inches (what fit_to_text keeps in the figure)."""
    extents = list(boxes)
    for ax in fig.axes:
        if ax.get_visible():
            extents.append(tuple(ax.bbox.extents))
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            extents.append(tuple(legend.get_window_extent(renderer).extents))
    for legend in fig.legends:
        if legend.get_visible():
            extents.append(tuple(legend.get_window_extent(renderer).extents))
    if not extents:
        width, height = fig.get_size_inches() * _POINTS
        return [0.0, 0.0, float(width), float(height)]
    box = np.array(extents)
    p = pad * _POINTS
    x0, y0 = box[:, 0].min() - p, box[:, 1].min() - p
    x1, y1 = box[:, 2].max() + p, box[:, 3].max() + p
    return [round(float(v), 3) for v in (x0, y0, x1, y1)]


_LAYOUTS = _Memo()


@contextlib.contextmanager
def _layouts_cached(renderer: _TextBoundsRenderer) -> Iterator[None]:
    """While drawing, ``RendererPdf.draw_text`` gets the glyph layout of a
    string it laid out before (same font, size and features) from a cache:
    tick labels and names repeat across panels and figures, and shaping them
    again is a third of the cost of drawing text. The PDF backend reads only
    the glyphs and positions of the layout, so the bytes are the same."""
    shape = _text_helpers.layout

    def layout(string, font, *, features=None, language=None):
        key = (
            string,
            id(font),  # get_font caches: one object per font and its fallbacks
            font.fname,
            renderer.text_size,
            features and tuple(features),
            language if isinstance(language, str | None) else tuple(language),
        )
        return iter(
            _LAYOUTS.get_or_compute(
                key,
                lambda: list(shape(string, font, features=features, language=language)),
            )
        )

    _text_helpers.layout = layout
    try:
        yield
    finally:
        _text_helpers.layout = shape


# (font file, glyph index) → (glyph name, its Type 3 character procedure)
_CHARPROCS = _Memo()


@contextlib.contextmanager
def _charprocs_cached() -> Iterator[None]:
    """While a figure's fonts are embedded, the PDF drawing procedure of a
    glyph (its outline as path operators) is taken from a cache: every figure
    embeds the same few dozen glyphs of DejaVu Sans, and each is loaded and
    converted again per figure otherwise (``_get_pdf_charprocs`` of
    matplotlib 3.11, which this mirrors glyph by glyph: the same bytes)."""
    procs = backend_pdf._get_pdf_charprocs

    def charprocs(font_path, glyph_indices):
        out = {}
        for index in glyph_indices:
            name, stream = _CHARPROCS.get_or_compute(
                (font_path, index),
                lambda index=index: next(iter(procs(font_path, [index]).items())),
            )
            out[name] = stream
        return out

    backend_pdf._get_pdf_charprocs = charprocs
    try:
        yield
    finally:
        backend_pdf._get_pdf_charprocs = procs


class _FittedCanvasPdf(FigureCanvasPdf):
    """``print_pdf`` of matplotlib 3.11 (one figure, one file), with the page
    fitted to the drawn text."""

    pad = FIT_PAD

    def print_pdf(self, filename, *, metadata=None, **_):
        fig = self.figure
        dpi = fig.dpi
        fig.dpi = _POINTS
        width, height = fig.get_size_inches()
        file = _CroppedPdfFile(filename, metadata=metadata)
        try:
            file.newPage(width, height)
            inner = _TextBoundsRenderer(file, dpi, height, width)
            renderer = MixedModeRenderer(fig, width, height, dpi, inner)
            inner.outer = renderer
            with _layouts_cached(inner):
                fig.draw(renderer)
            renderer.finalize()
            file.media_box = _page_box(fig, renderer, inner.boxes, self.pad)
            with _charprocs_cached():
                file.finalize()
        finally:
            file.close()
            fig.dpi = dpi


def fitted_pdf(build: Callable[[], Figure], *, pad: float = FIT_PAD) -> bytes:
    """PDF bytes of the figure ``build()`` returns, its page fitted around
    every text (as :func:`fit_to_text` would) while drawing it only once."""
    with fitting_deferred():
        fig = build()
    buf = io.BytesIO()
    canvas = _FittedCanvasPdf(fig)
    canvas.pad = pad
    try:
        with matplotlib.rc_context(PLAIN_TEXT), np.errstate(**_FLOAT_LIMITS):
            fig.savefig(buf, format="pdf", metadata=PDF_METADATA)
    finally:
        FigureCanvasAgg(fig)
    return buf.getvalue()
