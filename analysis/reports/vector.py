"""Vector figures in the report: reportlab leaves a slot of the figure's size,
then each matplotlib PDF page is placed into its slot as a Form XObject.

reportlab cannot import PDF pages, so the report is written first with empty
slots (``pdf.FigureSlot`` records where each one landed), and
:func:`embed_figures` adds the figures with pypdf. The figure's content stream
is copied as it is (never parsed), so text stays text (matplotlib's Type 3
fonts: searchable) and a heatmap keeps its one-pixel-per-cell image.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
)

__all__ = ["Placement", "embed_figures", "figure_size"]


@dataclass(frozen=True)
class Placement:
    """Where figure ``index`` was drawn: page (1-based), lower-left corner and
    size in points."""

    page: int
    index: int
    x: float
    y: float
    width: float
    height: float


def figure_size(pdf: bytes) -> tuple[float, float]:
    """(width, height) in points of a one-page figure PDF."""
    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    return float(box.width), float(box.height)


def _form(writer: PdfWriter, figure: bytes):
    """The figure's page as a Form XObject of ``writer`` (and its MediaBox)."""
    page = PdfReader(io.BytesIO(figure)).pages[0]
    box = page.mediabox
    form = DecodedStreamObject()
    form.set_data(page.get_contents().get_data())
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): ArrayObject(
                [
                    FloatObject(float(v))
                    for v in (box.left, box.bottom, box.right, box.top)
                ]
            ),
            NameObject("/Resources"): page["/Resources"].get_object().clone(writer),
        }
    )
    return writer._add_object(form.flate_encode()), box


def embed_figures(
    report: bytes, placements: Sequence[Placement], figures: Sequence[bytes]
) -> bytes:
    """The report with every figure drawn into its slot."""
    if not placements:
        return report
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(report)))
    forms = {}
    by_page: dict[int, list[Placement]] = {}
    for placement in placements:
        by_page.setdefault(placement.page, []).append(placement)
    for page_number, slots in sorted(by_page.items()):
        page = writer.pages[page_number - 1]
        resources = DictionaryObject(page["/Resources"].get_object())
        xobjects = DictionaryObject(resources.get("/XObject", DictionaryObject()))
        ops = []
        for slot in slots:
            if slot.index not in forms:
                forms[slot.index] = _form(writer, figures[slot.index])
            ref, box = forms[slot.index]
            name = f"/Fig{slot.index}"
            xobjects[NameObject(name)] = ref
            sx = slot.width / float(box.width)
            sy = slot.height / float(box.height)
            # the page of a fitted figure may not start at (0, 0)
            x = slot.x - sx * float(box.left)
            y = slot.y - sy * float(box.bottom)
            ops.append(f"q {sx:.6f} 0 0 {sy:.6f} {x:.4f} {y:.4f} cm {name} Do Q")
        resources[NameObject("/XObject")] = xobjects
        page[NameObject("/Resources")] = resources
        stream = DecodedStreamObject()
        stream.set_data(("\n".join(ops) + "\n").encode("ascii"))
        contents = page.get("/Contents")
        parts = ArrayObject()
        if contents is not None:
            obj = contents.get_object()
            if isinstance(obj, ArrayObject):
                parts.extend(obj)
            else:
                parts.append(contents)
        parts.append(writer._add_object(stream))
        page[NameObject("/Contents")] = parts
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
