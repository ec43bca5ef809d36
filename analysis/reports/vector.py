"""Vector figures in the report: each matplotlib PDF page becomes a Form
XObject of the reportlab document, drawn into the slot the layout leaves.

reportlab cannot import PDF pages, but it writes any object that formats
itself (:mod:`.pdf` does the writing; this module only reads). A figure PDF
(written by matplotlib: a classic cross-reference table, one page) is cut
into its objects once; the objects its page uses are copied as they are,
their references renumbered as reportlab numbers them, and the page's content
stream becomes the form. Nothing is parsed beyond the object boundaries and
references, so text stays text (matplotlib's Type 3 fonts: searchable) and a
heatmap keeps its one-pixel-per-cell image; no second PDF library reads and
rewrites the whole report afterwards.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from dataclasses import dataclass

__all__ = [
    "REFERENCE",
    "FigurePage",
    "figure_page",
    "figure_size",
    "form_head",
    "smallest_text",
]

REFERENCE = re.compile(rb"\b(\d+) 0 R\b")  # an indirect reference
_STREAM = re.compile(rb">>\s*stream\r?\n")
_XREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_FONT_SIZE = re.compile(rb"/F\d+ ([\d.]+) Tf")  # matplotlib's text: size, no scaling


@dataclass(frozen=True)
class FigurePage:
    """A one-page figure PDF cut into objects: number -> (dictionary or
    value, stream part or b""), with the page's box, resources and contents."""

    box: tuple[float, float, float, float]
    objects: dict[int, tuple[bytes, bytes]]
    resources: int
    contents: int

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


def _objects(pdf: bytes) -> dict[int, bytes]:
    """Object number -> its text between ``n 0 obj`` and ``endobj``, from the
    cross-reference table (each object ends where the next one starts)."""
    match = _XREF.search(pdf)
    if match is None:
        raise ValueError("not a figure PDF: no cross-reference table")
    start = int(match[1])
    lines = pdf[start:].split(b"trailer", 1)[0].split(b"\n")
    first, count = (int(v) for v in lines[1].split())
    offsets = {}
    for number, line in enumerate(lines[2 : 2 + count], start=first):
        if line.strip().endswith(b"n"):
            offsets[number] = int(line[:10])
    ends = sorted([*offsets.values(), start])
    following = dict(itertools.pairwise(ends))
    out = {}
    for number, offset in offsets.items():
        text = pdf[offset : following[offset]]
        head = b"%d 0 obj" % number
        if not text.startswith(head):
            raise ValueError(f"figure PDF: object {number} not at its offset")
        out[number] = text[len(head) : text.rindex(b"endobj")].strip()
    return out


def _split(body: bytes) -> tuple[bytes, bytes]:
    """(dictionary, b"\\nstream\\n...endstream") of a stream; (body, b"")."""
    match = _STREAM.search(body)
    if match is None or not body.startswith(b"<<"):
        return body, b""
    return body[: match.start() + 2], b"\n" + body[match.start() + 2 :].lstrip()


def figure_page(pdf: bytes) -> FigurePage:
    """The page of a one-page figure PDF and the objects it uses."""
    raw = {n: _split(body) for n, body in _objects(pdf).items()}
    pages = [
        n for n, (head, _) in raw.items() if re.search(rb"/Type /Page[\s/>]", head)
    ]
    if len(pages) != 1:
        raise ValueError(f"figure PDF: {len(pages)} pages, expected one")
    page = raw[pages[0]][0]
    box = re.search(rb"/MediaBox \[([^\]]*)\]", page)
    resources = re.search(rb"/Resources (\d+) 0 R", page)
    contents = re.search(rb"/Contents (\d+) 0 R", page)
    if not (box and resources and contents):
        raise ValueError("figure PDF: page without box, resources or contents")
    used, todo = set(), [int(resources[1]), int(contents[1])]
    while todo:
        number = todo.pop()
        if number not in used:
            used.add(number)
            todo += [int(m[1]) for m in REFERENCE.finditer(raw[number][0])]
    x0, y0, x1, y1 = (float(v) for v in box[1].split())
    return FigurePage(
        box=(x0, y0, x1, y1),
        objects={n: raw[n] for n in sorted(used)},
        resources=int(resources[1]),
        contents=int(contents[1]),
    )


def figure_size(pdf: bytes) -> tuple[float, float]:
    """(width, height) in points of a one-page figure PDF."""
    page = figure_page(pdf)
    return page.width, page.height


def form_head(page: FigurePage) -> bytes:
    """The dictionary of the page's content stream as a Form XObject with the
    page's box and resources (the stream part stays as it is)."""
    head = page.objects[page.contents][0]
    box = b" ".join(b"%g" % v for v in page.box)
    return (
        b"<< /Type /XObject /Subtype /Form /BBox [%s] /Resources %d 0 R "
        % (box, page.resources)
        + head[2:].lstrip()
    )


def smallest_text(page: FigurePage) -> float:
    """The smallest font size (points) the figure's page sets; inf without
    text. Matplotlib sets each text's size with ``Tf`` and turns it with
    ``cm`` (no scaling), so the size set is the size drawn."""
    head, tail = page.objects[page.contents]
    stream = tail.split(b"stream", 1)[1].lstrip(b"\r\n").rsplit(b"endstream", 1)[0]
    if b"/FlateDecode" in head:
        stream = zlib.decompressobj().decompress(stream)
    sizes = [float(m[1]) for m in _FONT_SIZE.finditer(stream)]
    return min(sizes, default=math.inf)
