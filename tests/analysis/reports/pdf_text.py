"""Every piece of text of a PDF as it is printed: its size in points and its
outline on the page, with the figures' Form XObjects followed (their text is
scaled by the matrix the report places them with).

pypdf's own text extraction reports font sizes as set inside a form, not as
printed, so this walks the content streams itself: the graphics state's CTM
(``q``/``Q``/``cm``, form matrices), the text matrix (``Tm``, ``Td``, ``TD``,
``T*``, ``TL``) and ``Tf``; glyph advances from the font's ``/Widths`` and
``/FontMatrix`` (Type 3, as matplotlib writes them) or 0.5 em a glyph.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.generic import ContentStream

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
CAP = 0.7  # height of a text's outline in em (cap height; descenders left out)


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m × n in PDF's row-vector convention (m is applied first)."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (
        a * p + b * r,
        a * q + b * s,
        c * p + d * r,
        c * q + d * s,
        e * p + f * r + t,
        e * q + f * s + u,
    )


@dataclass(frozen=True)
class PlacedText:
    """A string as printed: page (1-based), size in points, and its outline
    (four corners: baseline start, baseline end, top end, top start)."""

    page: int
    text: str
    size: float
    corners: tuple[tuple[float, float], ...]
    in_figure: bool


@dataclass
class _Font:
    widths: dict[int, float]  # code -> advance in text space per unit size

    @classmethod
    def of(cls, font) -> _Font:
        font = font.get_object()
        if "/Widths" not in font:
            return cls({})
        scale = float(font["/FontMatrix"][0]) if "/FontMatrix" in font else 0.001
        first = int(font.get("/FirstChar", 0))
        widths = font["/Widths"].get_object()
        return cls({first + i: float(w) * scale for i, w in enumerate(widths)})

    def advance(self, raw: bytes) -> float:
        return sum(self.widths.get(code, 0.5) for code in raw)


def _dict(resources, key: str) -> dict:
    value = resources.get(key)
    return value.get_object() if value is not None else {}


def _raw(value) -> bytes:
    if isinstance(value, bytes):
        return value
    if hasattr(value, "original_bytes"):
        return value.original_bytes
    return str(value).encode("latin-1", "replace")


class _Walker:
    def __init__(self, reader: PdfReader, page_number: int) -> None:
        self.reader = reader
        self.page = page_number
        self.found: list[PlacedText] = []
        self.lows: list[float] = []  # the foot of each text and figure drawn

    def run(self, stream, resources, ctm: Matrix, in_figure: bool) -> None:
        fonts = {k: _Font.of(v) for k, v in _dict(resources, "/Font").items()}
        xobjects = _dict(resources, "/XObject")
        stack: list[Matrix] = []
        font, size, leading = _Font({}), 0.0, 0.0
        tm = tlm = IDENTITY
        for operands, op in ContentStream(stream, self.reader).operations:
            if op == b"q":
                stack.append(ctm)
            elif op == b"Q":
                ctm = stack.pop()
            elif op == b"cm":
                ctm = multiply(tuple(float(v) for v in operands), ctm)
            elif op == b"BT":
                tm = tlm = IDENTITY
            elif op == b"Tf":
                font, size = fonts.get(operands[0], _Font({})), float(operands[1])
            elif op == b"TL":
                leading = float(operands[0])
            elif op == b"Tm":
                tm = tlm = tuple(float(v) for v in operands)
            elif op in (b"Td", b"TD"):
                if op == b"TD":
                    leading = -float(operands[1])
                move = (1.0, 0.0, 0.0, 1.0, float(operands[0]), float(operands[1]))
                tm = tlm = multiply(move, tlm)
            elif op == b"T*":
                tm = tlm = multiply((1.0, 0.0, 0.0, 1.0, 0.0, -leading), tlm)
            elif op in (b"Tj", b"TJ", b"'", b'"'):
                if op in (b"'", b'"'):
                    tm = tlm = multiply((1.0, 0.0, 0.0, 1.0, 0.0, -leading), tlm)
                parts = operands[0] if op == b"TJ" else [operands[-1]]
                tm = self._show(parts, font, size, tm, ctm, in_figure)
            elif op == b"Do":
                xobject = xobjects[operands[0]].get_object()
                if xobject.get("/Subtype") == "/Form":
                    matrix = tuple(float(v) for v in xobject.get("/Matrix", IDENTITY))
                    x0, y0, x1, y1 = (float(v) for v in xobject["/BBox"])
                    placed = multiply(matrix, ctm)
                    for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
                        _, low = multiply((1, 0, 0, 1, x, y), placed)[4:]
                        self.lows.append(low)
                    own = xobject.get("/Resources")
                    self.run(
                        xobject,
                        own.get_object() if own is not None else resources,
                        multiply(matrix, ctm),
                        True,
                    )

    def _show(self, parts, font: _Font, size: float, tm, ctm, in_figure) -> Matrix:
        text, advance = [], 0.0
        for part in parts:
            if isinstance(part, (int, float)) or type(part).__name__ in (
                "NumberObject",
                "FloatObject",
            ):
                advance -= float(part) / 1000.0 * size
                continue
            raw = _raw(part)
            text.append(raw.decode("latin-1"))
            advance += font.advance(raw) * size
        full = multiply(tm, ctm)
        a, b, c, d, e, f = full
        printed = size * math.hypot(c, d)
        if "".join(text).strip() and printed > 0 and not in_figure:
            self.lows.append(f)
        if "".join(text).strip() and printed > 0:
            corners = tuple(
                (x * a + y * c + e, x * b + y * d + f)
                for x, y in (
                    (0, 0),
                    (advance, 0),
                    (advance, CAP * size),
                    (0, CAP * size),
                )
            )
            self.found.append(
                PlacedText(self.page, "".join(text), printed, corners, in_figure)
            )
        return multiply((1.0, 0.0, 0.0, 1.0, advance, 0.0), tm)


def _walk(pdf: bytes) -> Iterator[_Walker]:
    reader = PdfReader(io.BytesIO(pdf))
    for number, page in enumerate(reader.pages, 1):
        walker = _Walker(reader, number)
        contents = page.get_contents()
        if contents is not None:
            resources = page.get("/Resources")
            walker.run(
                contents, resources.get_object() if resources else {}, IDENTITY, False
            )
        yield walker


def placed_text(pdf: bytes) -> Iterator[PlacedText]:
    """Every non-blank string of every page, as printed."""
    for walker in _walk(pdf):
        yield from walker.found


def page_fill(pdf: bytes, *, top: float, bottom: float) -> list[float]:
    """The share of each page's frame (``top`` to ``bottom``, points from the
    page's foot) above its lowest text or figure; what is drawn below the
    frame (the page number) does not count."""
    fills = []
    for walker in _walk(pdf):
        low = min((y for y in walker.lows if y >= bottom - 2), default=top)
        fills.append(max(0.0, min(1.0, (top - low) / (top - bottom))))
    return fills


def _axes(corners) -> list[tuple[float, float]]:
    (x0, y0), (x1, y1), _, (x3, y3) = corners
    return [(x1 - x0, y1 - y0), (x3 - x0, y3 - y0)]


def overlap(p: PlacedText, q: PlacedText, *, slack: float = 0.3) -> bool:
    """Whether the outlines of two texts overlap by more than ``slack`` points
    (separating-axis test on the two parallelograms)."""
    for ax, ay in _axes(p.corners) + _axes(q.corners):
        length = math.hypot(ax, ay)
        if length == 0:
            continue
        ux, uy = -ay / length, ax / length
        ps = [x * ux + y * uy for x, y in p.corners]
        qs = [x * ux + y * uy for x, y in q.corners]
        if min(max(ps), max(qs)) - max(min(ps), min(qs)) <= slack:
            return False
    return True


def _extent(text: PlacedText) -> tuple[float, float, float, float]:
    xs = [x for x, _ in text.corners]
    ys = [y for _, y in text.corners]
    return min(xs), min(ys), max(xs), max(ys)


def overlapping(texts: Iterable[PlacedText]) -> list[tuple[PlacedText, PlacedText]]:
    """Pairs of texts on the same page whose outlines overlap (a sweep over
    their extents along x, then the exact test)."""
    by_page: dict[int, list[PlacedText]] = {}
    for text in texts:
        by_page.setdefault(text.page, []).append(text)
    found = []
    for page in by_page.values():
        page.sort(key=lambda t: _extent(t)[0])
        active: list[tuple[float, PlacedText]] = []
        for text in page:
            x0, y0, x1, y1 = _extent(text)
            active = [(end, other) for end, other in active if end > x0]
            for _, other in active:
                _, oy0, _, oy1 = _extent(other)
                if oy0 < y1 and y0 < oy1 and overlap(text, other):
                    found.append((other, text))
            active.append((x1, text))
    return found
