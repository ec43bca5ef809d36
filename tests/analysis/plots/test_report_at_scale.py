"""The whole report of a run with 40 algorithms and 20 tasks: every figure is
a vector page with real text and nothing cut by its edge, and the PDF builds."""

import io

import pytest
from pypdf import PdfReader

from analysis.reports import TitleInfo, build_report_data, render_report_pdf
from tests.analysis.plots.test_plots import _ink_at_page_edge

pytestmark = pytest.mark.slow


def _images(pdf: bytes) -> list[tuple[int, int]]:
    """(width, height) in pixels of every raster image on the page."""
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    found = []
    for obj in (page.get("/Resources") or {}).get("/XObject", {}).values():
        obj = obj.get_object()
        if obj.get("/Subtype") == "/Image":
            found.append((int(obj["/Width"]), int(obj["/Height"])))
    return found


def test_every_figure_of_a_forty_by_twenty_report_is_whole_and_vector(
    forty_by_twenty,
):
    results, output = forty_by_twenty
    title = TitleInfo("40 x 20", "-", "-", "-", "-", "-", "-", "-", 1)
    data = build_report_data(results, output, title=title)
    figures = data.figures
    tasks = output["rankings"]["DSC"]["tasks"]
    assert {f.task for f in figures if f.task} == set(tasks)  # every task drawn
    for figure in figures:
        assert not _ink_at_page_edge(figure.pdf), figure.title  # nothing clipped
        assert b"/Type3" in figure.pdf or b"/Font" in figure.pdf, figure.title
        # a heatmap may embed its cells as pixels (one per cell), nothing larger
        for width, height in _images(figure.pdf):
            assert max(width, height) <= 40, (figure.title, width, height)
    pdf = render_report_pdf(data)
    assert len(PdfReader(io.BytesIO(pdf)).pages) > len(tasks)
