"""Every text of a report, as printed: at least 6 pt (the figures' font sizes
times the scale the report places them at), and no two texts of a figure
printed over each other; for one task of 5 algorithms, the MSD and RobustMIS
demos and 40 algorithms x 20 tasks."""

from __future__ import annotations

import pytest

from analysis.plots import MIN_PRINT_PT
from analysis.reports import TitleInfo, build_report_data, render_report_pdf
from ranking import run_analysis, simulate
from tests.analysis.plots.conftest import SCHEME, forty_algorithms
from tests.analysis.reports.pdf_text import overlapping, page_fill, placed_text

pytestmark = pytest.mark.slow


def _report(results, output) -> bytes:
    title = TitleInfo("sizes", "-", "-", "-", "-", "-", "-", "-", 1)
    return render_report_pdf(build_report_data(results, output, title=title))


def _five_by_one():
    results = simulate.msd_like(n_tasks=1, n_algorithms=5, n_cases=30, seed=1)
    return results, run_analysis(results, SCHEME).to_json_dict()


def _msd():
    from demo.story import MSD_SCHEME, simulated_msd_results

    results = simulated_msd_results()
    scheme = {
        **MSD_SCHEME,
        "uncertainty": {**MSD_SCHEME["uncertainty"], "bootstrap": 20},
    }
    return results, run_analysis(results, scheme).to_json_dict()


def _robustmis():
    from demo import robustmis_cases

    results, _ = robustmis_cases.simulate()
    return results, run_analysis(results, robustmis_cases.SCHEME).to_json_dict()


def _forty_by_twenty():
    return forty_algorithms(n_tasks=20, n_cases=6, seed=4, bootstrap=5)


REPORTS = {
    "5 x 1": _five_by_one,
    "MSD demo": _msd,
    "RobustMIS demo": _robustmis,
    "40 x 20": _forty_by_twenty,
}


@pytest.fixture(scope="module", params=list(REPORTS))
def printed(request):
    make = REPORTS
    return list(placed_text(_report(*make[request.param]())))


def test_every_text_prints_at_six_points_or_more(printed):
    assert any(t.in_figure for t in printed)  # the figures' text is read
    small = [(t.page, t.text, round(t.size, 2)) for t in printed]
    small = [s for s in small if s[2] < MIN_PRINT_PT - 0.01]
    assert small == []


# the report's text frame on A4 (points from the page's foot): 20 mm top
# margin, 18 mm bottom margin
FRAME = {"top": 841.89 - 56.69, "bottom": 51.02}
SECTION_HEADING_PT = 14  # h1 and the title


def test_msd_report_leaves_no_page_half_empty_but_at_a_section_end():
    pdf = _report(*_msd())
    fills = page_fill(pdf, **FRAME)
    texts = list(placed_text(pdf))
    opens_section = {
        t.page for t in texts if not t.in_figure and t.size >= SECTION_HEADING_PT
    }
    ends = {page - 1 for page in opens_section} | {len(fills)}
    half_empty = [p for p, fill in enumerate(fills, 1) if fill < 0.5 and p not in ends]
    assert half_empty == []


def test_no_two_texts_of_a_figure_print_over_each_other(printed):
    clashes = overlapping(t for t in printed if t.in_figure)
    assert [(a.page, a.text, b.text) for a, b in clashes] == []


def _figure_at(scale: float) -> bytes:
    """A report-like PDF: one figure with a 10 pt label, placed at ``scale``."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate

    from analysis.plots import fitted_pdf
    from analysis.plots._style import new_figure
    from analysis.reports.pdf import FigureSlot
    from analysis.reports.vector import figure_page

    def draw():
        fig = new_figure(3, 2)
        fig.text(0.5, 0.5, "label", fontsize=10)
        return fig

    page = figure_page(fitted_pdf(draw))
    buf = io.BytesIO()
    slot = FigureSlot(0, page, page.width * scale, page.height * scale)
    SimpleDocTemplate(buf, pagesize=A4).build([slot])
    return buf.getvalue()


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_the_measure_reads_a_figure_text_as_printed(scale):
    (text,) = [t for t in placed_text(_figure_at(scale)) if t.in_figure]
    assert text.text == "label"
    assert text.size == pytest.approx(10 * scale, abs=0.01)


def test_the_measure_sees_overlapping_outlines_only():
    from tests.analysis.reports.pdf_text import PlacedText

    a = PlacedText(1, "A01", 6.0, ((0, 0), (10, 0), (10, 4), (0, 4)), True)
    b = PlacedText(1, "A02", 6.0, ((5, 1), (15, 1), (15, 5), (5, 5)), True)
    c = PlacedText(1, "A03", 6.0, ((20, 0), (30, 0), (30, 4), (20, 4)), True)
    # rotated 60°, clear of a's outline though their extents overlap
    d = PlacedText(1, "A04", 6.0, ((11, -3), (16, 5.7), (14, 6.9), (9, -1.8)), True)
    assert overlapping([a, b, c]) == [(a, b)]
    assert overlapping([a, c, d]) == []
