"""The PDF report, rendered from hand-built data and read back with pypdf."""

from __future__ import annotations

import copy
import dataclasses
import logging
import multiprocessing
import os
import signal

import pytest
from matplotlib.figure import Figure

from analysis.reports import (
    BIAS_ITEMS,
    EXPLORATORY_BANNER,
    NO_DEVIATIONS,
    Deviation,
    ReportData,
    TitleInfo,
    build_report_data,
    descriptive_statistics,
    render_report_pdf,
)
from analysis.reports.data import design_in_brief
from ranking import run_analysis, vocabulary
from tests.analysis.plots.conftest import SCHEME

from .conftest import pdf_pages

TITLE = TitleInfo(
    challenge_name="Liver <b>& Lesion</b> Challenge",
    registration_identifier="REG-2027-0042",
    registration_version="3",
    registration_hash="9f2c4e1d0b7a",
    results_version="2",
    results_hash="55aa77cc99ee",
    engine_version="0.1.0",
    date="2027-09-30",
    seed=7,
    exploratory=False,
)

DEVIATIONS = (
    Deviation("case_count_mismatch", "warning", "Task Liver has 20 cases", 25, 20),
    Deviation(
        "scheme_changed", "critical", "Executed scheme <b>& differs", "mean", "median"
    ),
    Deviation("post_hoc_amendment", "info", "Amended after results", None, "v3"),
)


def _data(ideal_run, **changes) -> ReportData:
    results, output = ideal_run
    data = ReportData(
        title=TITLE,
        design=design_in_brief(output["scheme"]),
        output=output,
        deviations=DEVIATIONS,
        statistics=descriptive_statistics(results),
    )
    return dataclasses.replace(data, **changes)


@pytest.fixture(scope="module")
def rendered(ideal_run):
    return pdf_pages(render_report_pdf(_data(ideal_run)))


def test_pdf_title_page_shows_every_title_field(rendered):
    first = rendered[0]
    for value in (
        "REG-2027-0042",
        "9f2c4e1d0b7a",
        "55aa77cc99ee",
        "0.1.0",
        "2027-09-30",
        "Registration version 3",
        "Results version 2",
        "Random seed 7",
    ):
        assert value in first


def test_pdf_user_text_renders_literally(rendered):
    text = " ".join(rendered)
    assert "Liver <b>& Lesion</b> Challenge" in rendered[0]
    assert "Executed scheme <b>& differs" in text


def test_pdf_summary_lists_every_deviation_critical_first(rendered):
    summary = rendered[1]
    kinds = [vocabulary.label(d.code) for d in DEVIATIONS]
    for d, kind in zip(DEVIATIONS, kinds, strict=True):
        assert d.code not in summary  # the kind in words, not its code
        assert kind in summary
        assert d.message in summary
    assert summary.index("Ranking scheme changed") < summary.index(
        "Number of test cases differs"
    )
    assert summary.index("Number of test cases differs") < summary.index(
        "Amended after the results"
    )
    assert NO_DEVIATIONS not in summary


def test_pdf_says_no_deviations_when_none(ideal_run):
    pages = pdf_pages(render_report_pdf(_data(ideal_run, deviations=())))
    assert NO_DEVIATIONS in pages[1]


def test_pdf_names_every_task_algorithm_and_rank_ci(ideal_run, rendered):
    text = " ".join(rendered)
    tasks = ideal_run[1]["rankings"]["DSC"]["tasks"]
    for task, block in tasks.items():
        assert f"Task {task} — ranking DSC" in text
        for algorithm in block["ranks"]:
            assert algorithm in text
        for bounds in block["rank_ci"].values():
            for lo, hi in bounds.values():
                assert f"[{lo}, {hi}]" in text


def test_pdf_shows_hand_set_rank_ci_numbers(ideal_run):
    _results, output = ideal_run

    changed = copy.deepcopy(output)
    changed["rankings"]["DSC"]["tasks"]["Lung"]["rank_ci"]["id_wilcoxon_one_sided"][
        "A3"
    ] = [2, 4]
    pages = pdf_pages(render_report_pdf(_data(ideal_run, output=changed)))
    assert "[2, 4]" in " ".join(pages)


def test_pdf_has_every_section_and_bias_item(rendered):
    text = " ".join(rendered)
    for heading in (
        "Registered design in brief",
        "Consensus across tasks",
        "Robustness and manipulation audit",
        "BIAS reporting checklist",
        "Appendix: descriptive statistics",
    ):
        assert heading in text
    assert "to be reported by the organizers" in text
    assert "Title page (page 1)" in text
    checklist = text[
        text.index("Items 1–42 of the BIAS") : text.rindex("Appendix: descriptive")
    ]
    for item in BIAS_ITEMS:
        assert f" {item.id} " in f" {checklist} "


def test_pdf_pages_are_numbered(rendered):
    for number, page in enumerate(rendered, start=1):
        assert f"Page {number}" in page


def test_pdf_banner_on_every_page_when_exploratory(ideal_run, rendered):
    title = dataclasses.replace(TITLE, exploratory=True)
    pages = pdf_pages(render_report_pdf(_data(ideal_run, title=title)))
    assert all(EXPLORATORY_BANNER in page for page in pages)
    assert not any(EXPLORATORY_BANNER in page for page in rendered)


def test_pdf_bytes_are_identical_for_identical_data(ideal_run):
    data = _data(ideal_run)
    assert render_report_pdf(data) == render_report_pdf(data)


@pytest.mark.slow
def test_build_report_data_embeds_figures(ideal_run):
    results, output = ideal_run
    data = build_report_data(results, output, title=TITLE, deviations=DEVIATIONS)
    pdf = render_report_pdf(data)
    titles = {f.title for f in data.figures}
    assert {"Dot-and-box plot", "Blob plot of bootstrap ranks", "Task dendrogram"} <= (
        titles
    )
    assert {f.task for f in data.figures} == {"Brain", "Liver", "Lung", None}
    forms, images = _xobjects(pdf)
    assert len(forms) >= len(data.figures)
    # vector figures: the only images are heatmap cells (one pixel per cell of
    # the 5 x 5 matrices) and colour-bar strips, never a figure-sized raster
    assert (5, 5) in images
    assert all((w, h) == (5, 5) or min(w, h) <= 16 for w, h in images)
    # figure text is real text: a figure's own title is searchable
    assert "Network of tasks (position and edge width" in " ".join(pdf_pages(pdf))


def _xobjects(pdf: bytes) -> tuple[list[object], list[tuple[int, int]]]:
    """Form XObjects and (width, height) of every image, on any page."""
    import io

    from pypdf import PdfReader

    forms, images, seen = [], [], set()

    def visit(resources) -> None:
        for ref in (resources or {}).get("/XObject", {}).values():
            if id(ref.get_object()) in seen:
                continue
            obj = ref.get_object()
            seen.add(id(obj))
            if obj["/Subtype"] == "/Form":
                forms.append(obj)
                visit(obj.get("/Resources"))
            elif obj["/Subtype"] == "/Image":
                images.append((int(obj["/Width"]), int(obj["/Height"])))

    for page in PdfReader(io.BytesIO(pdf)).pages:
        visit(page.get("/Resources"))
    return forms, images


def test_pdf_module_is_the_only_reportlab_importer():
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "analysis"
    importers = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if "import reportlab" in p.read_text() or "from reportlab" in p.read_text()
    )
    assert importers == ["reports/pdf.py"]


def test_exploratory_report_shows_registered_and_executed_scheme(ideal_run):
    results, output = ideal_run
    executed = output["scheme"]
    registered = {
        **executed,
        "method": "rank_then_aggregate",
        "uncertainty": {**executed["uncertainty"], "bootstrap": 7},
    }
    data = build_report_data(
        results,
        output,
        title=dataclasses.replace(TITLE, exploratory=True),
        figures=False,
        registered_schemes=dict.fromkeys(["Brain", "Liver", "Lung"], registered),
    )
    text = " ".join(pdf_pages(render_report_pdf(data)))
    assert "The registered ranking scheme, in words" in text
    assert "rank algorithms within each case" in text.lower() or "rank-then" in text
    assert "The executed scheme differs from the registered one" in text
    assert "Brain method rank_then_aggregate aggregate_then_rank" in text
    # a nested field is named by its path, the fields around it left out
    bootstrap = executed["uncertainty"]["bootstrap"]
    assert f"Brain uncertainty.bootstrap 7 {bootstrap}" in text
    assert "uncertainty.seed" not in text


def test_checklist_names_design_parameters_and_report_pages(ideal_run):
    results, output = ideal_run
    data = build_report_data(
        results,
        output,
        title=TITLE,
        figures=False,
        design_answers={"5a": "parameter 1 (Challenge name)"},
    )
    text = " ".join(pdf_pages(render_report_pdf(data)))
    assert (
        "Registered design: parameter 1 (Challenge name); Title page (page 1)" in text
    )


def test_rank_outside_its_interval_is_marked_and_explained(ideal_run):
    results, output = ideal_run
    output = copy.deepcopy(output)
    block = output["rankings"]["DSC"]["tasks"]["Brain"]
    block["rank_ci"]["bootstrap"]["A1"] = [2, 3]  # rank 1 lies outside
    text = " ".join(pdf_pages(render_report_pdf(_data((results, output)))))
    assert "[2, 3] †" in text
    assert "The rank lies outside this interval" in text
    assert "not a simultaneous one for all algorithms" in text


def _fmt(x) -> str:
    from analysis.reports.pdf import _fmt as fmt

    return fmt(x)


def test_each_interval_of_a_task_is_in_one_table_with_its_kind_named(ideal_run):
    # p. 3 of the 40 x 20 report: "A40 [1, 2]" in the ranking table and
    # "1 – 3" in a second, bootstrap table, with nothing saying which is which
    from analysis.reports.pdf import BOOTSTRAP_RANKS_HEAD

    results, output = ideal_run
    block = output["rankings"]["DSC"]["tasks"]["Brain"]
    pages = pdf_pages(render_report_pdf(_data((results, output))))
    text = " ".join(pages)
    assert "Median bootstrap rank" not in text  # no second table
    assert text.count(BOOTSTRAP_RANKS_HEAD[:40]) == len(
        output["rankings"]["DSC"]["tasks"]
    )
    from analysis.plots import rank_percentiles

    boot = block["bootstrap"]["A1"]
    lower, upper = rank_percentiles(boot["freq"])
    lo, hi = block["rank_ci"]["bootstrap"]["A1"]
    row = f"1 A1 {_fmt(block['scores']['A1'])} [{_fmt(lo)}, {_fmt(hi)}]"
    assert f"{row} [" in text  # the next interval follows in the same row
    assert f"{_fmt(boot['median'])} [{_fmt(lower)}, {_fmt(upper)}]" in text
    assert "describes stability, not a confidence interval" in text


def test_figure_pdf_is_cut_into_the_objects_its_page_uses():
    import io

    from pypdf import PdfReader

    from analysis import plots
    from analysis.plots._style import new_figure
    from analysis.reports.vector import figure_page, figure_size

    def build():
        fig = new_figure(3, 2)
        ax = fig.add_subplot()
        ax.imshow([[0, 1], [2, 3]], interpolation="none")
        ax.set_title("Heatmap")
        return fig

    pdf = plots.fitted_pdf(build)
    page = figure_page(pdf)
    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    assert page.box == pytest.approx(
        (float(box.left), float(box.bottom), float(box.right), float(box.top))
    )
    assert figure_size(pdf) == pytest.approx((float(box.width), float(box.height)))
    heads = b" ".join(head for head, _ in page.objects.values())
    assert b"/Subtype /Type3" in heads  # the font of the text
    assert b"/Subtype /Image" in heads  # the 2 x 2 cells
    assert b"/Type /Catalog" not in heads  # only what the page uses
    assert page.objects[page.contents][1].startswith(b"\nstream\n")
    with pytest.raises(ValueError, match="cross-reference"):
        figure_page(b"%PDF-1.4 no table")


@pytest.mark.slow
def test_figures_do_not_depend_on_the_worker_processes(ideal_run):
    from analysis.reports.build import build_report_figures

    results, output = ideal_run
    alone = build_report_figures(results, output, workers=1)
    shared = build_report_figures(results, output, workers=2)
    assert [f.title for f in shared] == [f.title for f in alone]
    assert [f.pdf for f in shared] == [f.pdf for f in alone]


def _line_figure(height: float, *, die_in_a_worker: bool = False):
    """A figure builder; with ``die_in_a_worker`` it kills the process drawing
    it unless that is this one (as the kernel's out-of-memory killer would)."""
    here = os.getpid()

    def build():
        if die_in_a_worker and os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)
        figure = Figure(figsize=(2, height))
        figure.add_subplot().plot([0, 1], [1, 0])
        return figure

    return build


def test_figures_lost_with_a_killed_worker_are_drawn_here(caplog):
    from analysis.reports.build import _render_all

    heights = [1.0, 1.5, 2.0, 2.5, 3.0]
    expected = _render_all([_line_figure(h) for h in heights], workers=1)
    draws = [_line_figure(h, die_in_a_worker=h == 2.0) for h in heights]
    with caplog.at_level(logging.WARNING, logger="analysis.reports.build"):
        assert _render_all(draws, workers=2) == expected
    assert "A figure worker process stopped abruptly" in caplog.text
    assert len(set(expected)) == len(heights)  # five different figures


def test_a_daemonic_process_draws_the_figures_itself_with_the_same_bytes():
    """A Celery prefork pool process is daemonic and may not have children:
    asked for 2 workers there, the figures are drawn in that process, byte
    for byte as elsewhere (forking would raise AssertionError)."""
    from analysis.reports.build import _render_all

    draws = [_line_figure(h) for h in (1.0, 1.5, 2.0)]
    expected = _render_all(draws, workers=1)
    context = multiprocessing.get_context("fork")  # inherits the closures
    receive, send = context.Pipe(duplex=False)

    def render_in_daemon():
        try:
            send.send(_render_all(draws, workers=2))
        except BaseException as error:  # reported to the test
            send.send(repr(error))

    daemon = context.Process(target=render_in_daemon, daemon=True)
    daemon.start()
    got = receive.recv() if receive.poll(60) else "no answer within 60 s"
    daemon.join(10)
    assert got == expected
    assert daemon.exitcode == 0


def test_a_figure_that_fails_in_a_worker_raises_its_error():
    from analysis.reports.build import _render_all

    def broken():
        raise ValueError("no such panel")

    with pytest.raises(ValueError, match="no such panel"):
        _render_all([_line_figure(1.0), broken, _line_figure(2.0)], workers=2)


@pytest.mark.slow
def test_case_figures_drawn_from_the_ranks_alone_are_taken_only_for_equal_ranks(
    ideal_run,
):
    """The command-line report draws the case-level figures from a ranking
    without bootstrap or audit while the analysis runs: the report takes them
    where the full output has the same ranks, and draws the rest itself."""
    from analysis.reports.build import build_report_figures, draw_case_figures

    results, output = ideal_run
    quick = run_analysis(
        results, SCHEME, bootstrap=0, seed=0, leave_one_out=False, audit=False
    ).to_json_dict()
    drawn = draw_case_figures(results, quick)
    assert sorted(key[0] for key in drawn) == sorted(
        ["dot_box", "heatmap", "podium"] * 3
    )
    stop_after_two = iter([False, False, True]).__next__
    assert len(draw_case_figures(results, quick, stop=stop_after_two)) == 2

    alone = build_report_figures(results, output, workers=1)
    reused = build_report_figures(results, output, workers=1, drawn=drawn)
    assert [f.pdf for f in reused] == [f.pdf for f in alone]

    # one task ranked otherwise in the quick ranking: its figures are redrawn
    tasks = quick["rankings"]["DSC"]["tasks"]
    first = next(iter(tasks))
    ranks = tasks[first]["ranks"]
    tasks[first]["ranks"] = dict(zip(ranks, reversed(ranks.values()), strict=True))
    marked = alone[-1].pdf  # the last figure, drawn across tasks
    stale = dict.fromkeys(draw_case_figures(results, quick), marked)
    mixed = build_report_figures(results, output, workers=1, drawn=stale)
    taken = [f.task for f in mixed if f.pdf == marked and f.task is not None]
    assert sorted(taken) == sorted(t for t in tasks if t != first for _ in range(3))


def test_table_headers_never_break_inside_a_word(ideal_run):
    # With a target column the appendix' "Missing" column was narrower than
    # the word, printed "Missin" over "g".
    results, _ = ideal_run
    with_targets = results.assign(target="left kidney")
    data = _data(ideal_run, statistics=descriptive_statistics(with_targets))
    appendix = pdf_pages(render_report_pdf(data))[-1]
    assert "Target Metric Algorithm n Missing Mean SD Median IQR" in appendix


def test_no_page_ends_with_a_heading(ideal_run):
    """A heading stays with what it introduces: "Target liver" (MSD demo) and
    "Selective submission: …" ended pages whose next page held their tables."""
    _, output = ideal_run
    for count in range(1, 9):
        changed = copy.deepcopy(output)
        for block in changed["rankings"]["DSC"]["tasks"].values():
            block["targets"] = {
                f"organ {i}": {"ranks": block["ranks"], "scores": block["scores"]}
                for i in range(count)
            }
        pages = pdf_pages(render_report_pdf(_data(ideal_run, output=changed)))
        for number, text in enumerate(pages, start=1):
            last = text.split(f"Page {number}")[-1].strip() or text
            assert not last.endswith(tuple(f"Target organ {i}" for i in range(count)))
            assert not last.endswith(
                "Selective submission: rank after withholding the worst cases"
            )
            # nor a task's heading and its "20 test cases, …" line
            assert not last.endswith(("5 algorithms.", "into the task ranking."))


def test_selective_submission_lists_only_who_gains_and_names_the_rest(ideal_run):
    # 40 rows a task filled 23 pages of the 40 x 20 report's audit
    _, output = ideal_run
    changed = copy.deepcopy(output)
    for block in changed["rankings"]["DSC"]["tasks"].values():
        selective = block["audit"]["selective_submission"]
        selective["registered_policy"]["A3"]["20"] = 1  # A3 would gain
    text = " ".join(pdf_pages(render_report_pdf(_data(ideal_run, output=changed))))
    assert text.count("withheld 20 % (ignored) A3 3 3 3 1 3 3 3") == 3
    listed = "4 of 5 algorithms improve their rank by none of these withholdings"
    assert text.count(f"{listed} (not listed above): A1, A2, A4, A5.") == 3
    assert "A1 1 1 1 2" not in text  # the row of an algorithm that cannot gain


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of "#RRGGBB"."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [
        c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    ]
    red, green, blue = linear
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_deviation_severity_cells_keep_their_black_text_readable():
    from analysis.reports.pdf import _SEVERITY_COLOURS

    for severity, colour in _SEVERITY_COLOURS.items():
        contrast = (_luminance(colour) + 0.05) / 0.05  # against black text
        assert contrast >= 7, severity  # WCAG AAA for small text
    assert len(set(_SEVERITY_COLOURS.values())) == 3
