"""Every plot of seed 000 from engine output: built, readable, byte-stable."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from pypdf import PdfReader

from analysis import plots
from analysis.plots import assessment


def _assessment(fn, **extra):
    def make(results, output, top_k=None):
        block = output["rankings"]["DSC"]["tasks"]
        task = next(iter(block))
        return fn(
            results,
            task=task,
            metric="DSC",
            ranks=block[task]["ranks"],
            top_k=top_k,
            **extra,
        )

    return make


def _task(fn):
    def make(results, output, top_k=None):
        block = next(iter(output["rankings"]["DSC"]["tasks"].values()))
        return fn(block, top_k=top_k)

    return make


def _across(fn, top=True):
    def make(results, output, top_k=None):
        entry = output["rankings"]["DSC"]
        return fn(entry, top_k=top_k) if top else fn(entry)

    return make


def _violins(results, output, top_k=None):
    tasks = output["rankings"]["DSC"]["tasks"]
    return plots.kendall_tau_violins(
        {t: b["kendall_tau_quantiles"] for t, b in tasks.items()}
    )


def _target_grid(kind):
    def make(results, output, top_k=None):
        task = next(iter(output["rankings"]["DSC"]["tasks"]))
        block = output["rankings"]["DSC"]["tasks"][task]
        targets = {"one": block, "two": block}
        doubled = pd.concat(
            [results[results["task"] == task].assign(target=name) for name in targets],
            ignore_index=True,
        )
        return plots.target_grid(
            kind, doubled, task=task, metric="DSC", targets=targets, top_k=top_k
        )

    return make


PLOTS = {
    "dot_box": _assessment(plots.dot_box_plot),
    "podium": _assessment(plots.podium_plot, higher_is_better=True),
    "heatmap": _assessment(plots.ranking_heatmap, higher_is_better=True),
    "blob": _task(plots.blob_plot),
    "significance": _task(plots.significance_map),
    "methods": _task(plots.ranking_methods_plot),
    "violins": _violins,
    "across_tasks": _across(plots.rank_blobs_across_tasks),
    "per_task": _across(plots.bootstrap_blobs_per_task),
    "per_algorithm": _across(plots.bootstrap_blobs_per_algorithm),
    "stacked": _across(plots.stacked_frequency_plot),
    "dendrogram": _across(plots.task_dendrogram, top=False),
    "network": _across(plots.task_network, top=False),
    "target_dot_box": _target_grid("dot_box"),
    "target_podium": _target_grid("podium"),
    "target_heatmap": _target_grid("heatmap"),
    "target_significance": _target_grid("significance"),
}


@pytest.mark.parametrize("name", PLOTS)
def test_plot_draws_for_ideal_three_tasks(name, ideal):
    fig = PLOTS[name](*ideal)
    png = plots.figure_png(fig, dpi=40)
    assert isinstance(fig, Figure)
    assert fig.axes
    assert png.startswith(b"\x89PNG")


@pytest.mark.parametrize("name", PLOTS)
def test_plot_builds_for_forty_algorithms(name, forty):
    fig = PLOTS[name](*forty)
    assert isinstance(fig, Figure)
    assert fig.axes


def _drawn_texts(fig: Figure) -> list[Text]:
    """Every text the figure draws: tick labels of the ticks in view, axis
    labels, titles, annotations, legends and figure texts."""
    texts: list[Text] = [*fig.texts]
    for legend in fig.legends:
        texts += legend.get_texts()
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [ax.title, ax._left_title, ax._right_title, *ax.texts]
        if ax.get_legend():
            texts += ax.get_legend().get_texts()
        for axis in (ax.xaxis, ax.yaxis) if ax.axison else ():
            texts.append(axis.label)
            for tick in axis._update_ticks():
                texts += [tick.label1, tick.label2]
    return [t for t in texts if t.get_visible() and t.get_text()]


def _clipped_texts(fig: Figure) -> list[str]:
    """Drawn texts whose bounding box leaves the figure (1 px tolerance)."""
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    width, height = fig.bbox.width, fig.bbox.height
    out = []
    for text in _drawn_texts(fig):
        box = text.get_window_extent(renderer)
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            out.append(text.get_text())
    return out


@pytest.mark.parametrize("name", PLOTS)
def test_plot_for_forty_algorithms_draws_no_text_outside_the_figure(name, forty):
    fig = PLOTS[name](*forty)
    assert _clipped_texts(fig) == []


def test_plot_with_long_names_draws_no_text_outside_the_figure(ideal):
    results, output = ideal
    long = {f"A{i}": f"A{i} " + "very-long-team-name-" * 4 for i in range(1, 6)}
    renamed = results.assign(algorithm=results["algorithm"].map(long))
    block = output["rankings"]["DSC"]["tasks"]["Brain"]
    ranks = {long[a]: r for a, r in block["ranks"].items()}
    fig = plots.podium_plot(
        renamed, task="Brain", metric="DSC", ranks=ranks, higher_is_better=True
    )
    assert _clipped_texts(fig) == []


def test_names_are_drawn_as_plain_text_not_mathtext(ideal):
    results, output = ideal
    block = output["rankings"]["DSC"]["tasks"]["Brain"]
    names = {"A1": "$x_1$", "A2": "$\\frac{a}{b}$"}
    renamed = results.assign(algorithm=results["algorithm"].replace(names))
    ranks = {names.get(a, a): r for a, r in block["ranks"].items()}
    fig = plots.dot_box_plot(renamed, task="Brain", metric="DSC", ranks=ranks)
    pdf = plots.figure_pdf(fig)
    labels = [t.get_text() for t in plots.axis_labels(fig.axes[0], "x")]
    assert "$x_1$" in labels
    assert pdf.startswith(b"%PDF")
    assert not any(t._parse_math for t in plots.axis_labels(fig.axes[0], "x"))


def test_extreme_values_do_not_break_a_figure():
    values = np.array([[1e308, -1e308], [1e308, 0.5], [-1e308, 1e308]])
    results = plots_results(values)
    ranks = {"A1": 1, "A2": 2}
    for draw in (plots.dot_box_plot, plots.podium_plot, plots.ranking_heatmap):
        extra = {} if draw is plots.dot_box_plot else {"higher_is_better": True}
        fig = draw(results, task="T1", metric="DSC", ranks=ranks, **extra)
        assert plots.figure_pdf(fig).startswith(b"%PDF")


def plots_results(values):
    from ranking import simulate

    return simulate.matrix_to_results(values)


def test_each_target_keeps_its_own_cases():
    frame = pd.DataFrame(
        {
            "task": "T",
            "target": ["a", "a", "b", "b", "b", "b"],
            "case": ["a1", "a1", "b1", "b1", "b2", "b2"],
            "algorithm": ["A", "B"] * 3,
            "metric": "DSC",
            "value": [0.9, 0.8, 0.7, np.nan, 0.6, 0.5],
        }
    )
    a = plots.task_matrix(
        frame, task="T", metric="DSC", algorithms=["A", "B"], target="a"
    )
    b = plots.task_matrix(
        frame, task="T", metric="DSC", algorithms=["A", "B"], target="b"
    )
    assert a.shape == (1, 2)
    assert np.isnan(b).sum() == 1
    fig = plots.dot_box_plot(
        frame, task="T", metric="DSC", ranks={"A": 1, "B": 2}, target="a"
    )
    assert [t.get_text() for t in plots.axis_labels(fig.axes[0], "x")] == ["A", "B"]
    with pytest.raises(ValueError, match="has targets"):
        plots.task_matrix(frame, task="T", metric="DSC", algorithms=["A", "B"])


def test_network_places_similar_tasks_closer():
    entry = {
        "tasks": {
            "T1": {"ranks": {"A": 1, "B": 2, "C": 3, "D": 4}},
            "T2": {"ranks": {"A": 1, "B": 2, "C": 4, "D": 3}},
            "T3": {"ranks": {"A": 4, "B": 3, "C": 2, "D": 1}},
        }
    }
    _, d = plots.task_distances(entry)
    xy = plots.similarity_layout(d)
    close = np.linalg.norm(xy[0] - xy[1])
    far = np.linalg.norm(xy[0] - xy[2])
    assert close < far


def test_dendrogram_and_network_need_three_tasks(ideal):
    entry = ideal[1]["rankings"]["DSC"]
    two = {"tasks": dict(list(entry["tasks"].items())[:2])}
    for draw in (plots.task_dendrogram, plots.task_network):
        with pytest.raises(ValueError, match="at least 3 tasks"):
            draw(two)


def test_blob_plot_with_forty_algorithms_labels_all_within_the_printed_width(forty):
    # 14 inches wide, it was printed at half size: 3-4 pt labels
    block = forty[1]["rankings"]["DSC"]["tasks"]["T01"]
    fig = plots.blob_plot(block)
    labels = plots.axis_labels(fig.axes[0], "x")
    assert len(labels) == 40
    assert fig.get_figwidth() <= plots.PRINT_WIDTH + 0.45  # what fitting adds
    assert min(t.get_fontsize() for t in labels) >= plots.MIN_PRINT_PT
    assert labels[0].get_rotation() == 60
    assert _overlapping_texts(fig) == []


def test_blob_plot_top_k_keeps_best_algorithms(forty):
    block = forty[1]["rankings"]["DSC"]["tasks"]["T01"]
    fig = plots.blob_plot(block, top_k=5)
    shown = [t.get_text() for t in plots.axis_labels(fig.axes[0], "x")]
    assert shown == [
        f"{block['ranks'][a]}\n{a}" for a in plots.ordered(block["ranks"])[:5]
    ]


def test_ordered_rejects_top_k_zero():
    with pytest.raises(ValueError, match="top_k"):
        plots.ordered({"A": 1}, top_k=0)


def test_png_bytes_are_identical_for_identical_input(ideal):
    results, output = ideal
    block = output["rankings"]["DSC"]["tasks"]["Brain"]

    def render():
        return (
            plots.figure_png(
                plots.dot_box_plot(
                    results, task="Brain", metric="DSC", ranks=block["ranks"]
                ),
                dpi=50,
            ),
            plots.figure_png(plots.blob_plot(block), dpi=50),
        )

    assert render() == render()


def test_svg_and_pdf_bytes_are_identical_for_identical_input(ideal):
    entry = ideal[1]["rankings"]["DSC"]
    first = plots.task_network(entry)
    second = plots.task_network(entry)
    assert plots.figure_svg(first) == plots.figure_svg(second)
    assert plots.figure_pdf(first) == plots.figure_pdf(second)
    assert b"CreationDate" not in plots.figure_pdf(first)


def test_stored_tau_quantiles_match_the_tau_summary(forty):
    for block in forty[1]["rankings"]["DSC"]["tasks"].values():
        quantiles = block["kendall_tau_quantiles"]
        assert len(quantiles) == 21
        assert quantiles[10] == pytest.approx(block["kendall_tau"]["median"])
        assert quantiles == sorted(quantiles)


def test_task_distances_are_spearman_footrule():
    entry = {
        "tasks": {
            "T1": {"ranks": {"A": 1, "B": 2, "C": 3}},
            "T2": {"ranks": {"A": 3, "B": 2, "C": 1}},
            "T3": {"ranks": {"A": 1, "B": 3, "C": 2}},
        }
    }
    names, d = plots.task_distances(entry)
    assert names == ["T1", "T2", "T3"]
    assert d.tolist() == [[0, 4, 2], [4, 0, 4], [2, 4, 0]]


def test_violins_fall_back_to_summaries_without_samples():
    fig = plots.kendall_tau_violins(
        {}, summaries={"T1": {"median": 0.8, "lower": 0.6, "upper": 0.9}}
    )
    assert [t.get_text() for t in plots.axis_labels(fig.axes[0], "x")] == ["T1"]
    assert fig.axes[0].lines


def _printed_by_fresh_interpreter(code: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def test_plots_do_not_import_pyplot():
    code = (
        "import sys; from analysis import plots; from ranking import simulate;"
        "r = simulate.c_ideal(n_cases=5);"
        "plots.dot_box_plot(r, task='T1', metric='DSC', ranks={'A1': 1, 'A2': 2});"
        "print('matplotlib.pyplot' in sys.modules)"
    )
    assert _printed_by_fresh_interpreter(code) == ["False"]


def test_figure_pdfs_leave_font_subsetting_unloaded_until_a_type_42_font():
    code = (
        "import io, sys; from analysis import plots; from ranking import simulate;"
        "from matplotlib.figure import Figure;"
        "r = simulate.c_ideal(n_cases=5);"
        "plots.fitted_pdf(lambda: plots.dot_box_plot("
        "r, task='T1', metric='DSC', ranks={'A1': 1, 'A2': 2}));"
        "print('fontTools.ttLib.tables.otTables' in sys.modules);"
        "fig = Figure(); fig.text(0.5, 0.5, 'Type 42');"
        "out = io.BytesIO(); fig.savefig(out, format='pdf');"
        "import matplotlib; matplotlib.rcParams['pdf.fonttype'] = 42;"
        "out42 = io.BytesIO(); fig.savefig(out42, format='pdf');"
        "print(b'/FontFile2' in out42.getvalue(), b'/FontFile2' in out.getvalue())"
    )
    assert _printed_by_fresh_interpreter(code) == ["False", "True", "False"]


def test_report_figures_across_twenty_tasks_and_forty_algorithms_are_unclipped(
    forty_by_twenty,
):
    from analysis.reports.build import _chunks

    entry = forty_by_twenty[1]["rankings"]["DSC"]
    algorithms = plots.consensus_order(entry)
    tasks = list(entry["tasks"])
    figures = [
        plots.rank_blobs_across_tasks(entry),
        plots.kendall_tau_violins(
            {t: b["kendall_tau_quantiles"] for t, b in entry["tasks"].items()}
        ),
        plots.task_dendrogram(entry),
        plots.task_network(entry),
        plots.bootstrap_blobs_per_task(
            entry, only=_chunks(tasks, plots.tasks_per_figure(len(algorithms)))[0]
        ),
        plots.bootstrap_blobs_per_algorithm(
            entry,
            only=_chunks(algorithms, plots.algorithms_per_figure(len(tasks)))[0],
        ),
        plots.stacked_frequency_plot(
            entry,
            only=_chunks(
                algorithms, plots.algorithms_per_figure(len(tasks), "stacked")
            )[0],
        ),
    ]
    for fig in figures:
        assert _clipped_texts(fig) == [], fig.texts[0].get_text()
        # printed unscaled on an A4 page (6.85 in text block; 3/4 of its height)
        width, height = fig.get_size_inches()
        assert width <= 6.85, fig.texts[0].get_text()
        assert height <= 7.6, fig.texts[0].get_text()


def _ink_at_page_edge(pdf: bytes) -> bool:
    """Whether anything is drawn in the outer 2 pt of the page: text cut by
    the page edge would be (the fitted page leaves 4 pt around the text)."""
    import shutil

    from PIL import Image

    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler) not installed")
    pgm = subprocess.run(
        ["pdftoppm", "-gray", "-r", "72", "-"],
        input=pdf,
        capture_output=True,
        check=True,
    ).stdout
    page = np.asarray(Image.open(io.BytesIO(pgm)))
    edge = np.concatenate(
        [page[:2].ravel(), page[-2:].ravel(), page[:, :2].ravel(), page[:, -2:].ravel()]
    )
    return bool((edge < 250).any())


@pytest.mark.parametrize("name", PLOTS)
def test_fitted_pdf_is_the_fitted_figure_drawn_once(name, forty):
    """The report's one-pass export: its page holds every word and has the size
    fit_to_text gives the figure (up to the few points between a glyph's ink
    and its line height)."""
    fitted = PLOTS[name](*forty)
    pdf = plots.fitted_pdf(lambda: PLOTS[name](*forty))
    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    width, height = fitted.get_size_inches() * 72
    assert abs(float(box.width) - width) < 8
    assert abs(float(box.height) - height) < 8
    assert not _ink_at_page_edge(pdf)
    assert b"/Subtype /Type3" in pdf  # text stays text


@pytest.mark.parametrize("name", ["target_podium", "target_heatmap"])
def test_fitted_pdf_writes_markers_and_text_as_matplotlib_does(
    name, ideal, monkeypatch
):
    """The faster marker output, the cached marker shapes, text metrics,
    text layouts and glyph procedures and the faster operator lines write the
    bytes matplotlib's own PDF renderer writes."""
    import contextlib

    from matplotlib.backends.backend_pdf import PdfFile, RendererPdf

    from analysis.plots import _fitted

    def build():
        return PLOTS[name](*ideal)

    plots.fitted_pdf(build)  # fills the layout cache
    fast = plots.fitted_pdf(build)
    monkeypatch.setattr(
        _fitted._TextBoundsRenderer, "draw_markers", RendererPdf.draw_markers
    )
    monkeypatch.setattr(_fitted, "_layouts_cached", lambda r: contextlib.nullcontext())
    monkeypatch.setattr(_fitted._CroppedPdfFile, "markerObject", PdfFile.markerObject)
    monkeypatch.setattr(_fitted._CroppedPdfFile, "output", PdfFile.output)
    monkeypatch.setattr(_fitted, "_charprocs_cached", contextlib.nullcontext)
    monkeypatch.setattr(
        _fitted._TextBoundsRenderer,
        "get_text_width_height_descent",
        RendererPdf.get_text_width_height_descent,
    )
    content = PdfReader(io.BytesIO(fast)).pages[0].get_contents().get_data()
    assert b" Tf" in content  # text as text
    if name == "target_podium":
        assert content.count(b" cm /M") > 30  # the case dots, as markers
    assert plots.fitted_pdf(build) == fast


def test_operator_lines_are_written_as_pdf_file_output_writes_them():
    """Numbers, operators, names and the rest, on short lines and on lines
    that backend_pdf._fill breaks at 75 characters."""
    from matplotlib.backends.backend_pdf import Name, Op, PdfFile

    from analysis.plots._fitted import _CroppedPdfFile

    lines = [
        (0.5, 1, Op.moveto),
        (np.float64(1 / 3), -2.0, 1e-12, 123456.789, Op.lineto),
        (Name("M0"), Op.use_xobject),
        ([1.0, 2], 0, Op.setdash),
        (*np.linspace(0, 1000, 30), Op.curveto),
        (True, np.int64(7), np.float32(0.25), "ab(c)", Op.concat_matrix),
    ]

    def written(file_class: type) -> bytes:
        buf = io.BytesIO()
        file = file_class(buf)
        start = buf.tell()
        for line in lines:
            file.output(*line)
        return buf.getvalue()[start:]

    assert written(_CroppedPdfFile) == written(PdfFile)
    with pytest.raises(ValueError, match="finite"):
        _CroppedPdfFile(io.BytesIO()).output(float("nan"), Op.moveto)


def test_drawing_caches_are_bounded():
    """Figure workers live as long as the server: a cache of text metrics or
    marker shapes starts afresh at its limit instead of growing."""
    from analysis.plots._fitted import _Memo

    memo = _Memo(limit=3)
    computed = []

    def double(key: int) -> int:
        computed.append(key)
        return key * 2

    for key in range(10):
        assert memo.get_or_compute(key, lambda k=key: double(k)) == key * 2
        assert len(memo) <= 3
    assert memo.get_or_compute(9, lambda: -1) == 18  # still remembered
    assert computed == list(range(10))


def test_ranking_methods_names_stay_clear_of_the_rank_axis(ideal):
    """The names at both ends of the lines lie inside the axes, so they cover
    neither the rank tick labels nor the axis label nor the frame."""
    fig = PLOTS["methods"](*ideal)
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    (ax,) = fig.axes
    frame = ax.get_window_extent(renderer)
    names = [t for t in ax.texts if t.get_transform() is ax.transData]
    ranks = [t for t in ax.texts if t.get_text().isdigit()]
    assert names
    assert ranks
    for name in names:
        box = name.get_window_extent(renderer)
        assert frame.x0 < box.x0, name.get_text()
        assert box.x1 < frame.x1, name.get_text()
        for other in [*ranks, ax.yaxis.label]:
            assert not box.overlaps(other.get_window_extent(renderer)), (
                name.get_text(),
                other.get_text(),
            )


def test_ranking_methods_tied_names_share_one_label():
    """Tied algorithms are named together at a line end, not printed over
    each other; beyond three names the label counts the rest."""
    from analysis.plots.uncertainty import _names_by_rank

    ranking = {"A": 1, "B": 2, "C": 2, "D": 4, "E": 4, "F": 4, "G": 4, "H": 4}
    labels = _names_by_rank(ranking, list(ranking))
    assert labels == {1.0: "A", 2.0: "B, C", 4.0: "D, E, F +2 more"}


def test_ranking_methods_tied_long_names_stop_at_a_label_length():
    # RobustMIS: "mis-team-02, mis-team-03, mis-team-04 +2 more" at the right
    # end squeezed the method columns until their labels touched
    from analysis.plots.uncertainty import END_LABEL_CHARS, _names_by_rank

    names = [f"mis-team-{i:02d}" for i in range(2, 7)]
    labels = _names_by_rank(dict.fromkeys(names, 2), names)
    assert labels == {2.0: "mis-team-02, mis-team-03 +3 more"}
    assert len("mis-team-02, mis-team-03") <= END_LABEL_CHARS
    long = "a-very-long-algorithm-name-x"
    assert _names_by_rank({long: 1, "B": 1}, [long, "B"]) == {1.0: f"{long} +1 more"}


def test_ranks_across_tasks_name_the_order_they_use(ideal):
    _, output = ideal
    entry = output["rankings"]["DSC"]
    with_consensus = plots.rank_blobs_across_tasks(entry)
    assert with_consensus.axes[0].get_xlabel() == "Algorithm (ordered by consensus)"
    # a scheme without consensus: the report says there is none, and the
    # figure's order is the mean task rank (it said "ordered by consensus")
    without = plots.rank_blobs_across_tasks({**entry, "consensus": None})
    assert without.axes[0].get_xlabel() == "Algorithm (ordered by mean task rank)"


def test_heatmap_colours_count_from_zero():
    # Each of A and B is first in 2 of 4 cases: every cell counts 2. The scale
    # started at the smallest count, so in a panel without an empty cell the
    # lightest colour meant "5 cases" where the panel beside it meant "none".
    results = pd.DataFrame(
        {
            "task": "T",
            "case": ["c1", "c1", "c2", "c2", "c3", "c3", "c4", "c4"],
            "algorithm": ["A", "B"] * 4,
            "metric": "DSC",
            "value": [0.9, 0.8, 0.7, 0.8, 0.9, 0.6, 0.5, 0.6],
        }
    )
    fig = plots.ranking_heatmap(
        results, task="T", metric="DSC", ranks={"A": 1, "B": 2}, higher_is_better=True
    )
    image = fig.axes[0].images[0]
    assert image.get_array().tolist() == [[2, 2], [2, 2]]
    assert (image.norm.vmin, image.norm.vmax) == (0, 2)


def test_target_heatmaps_share_one_scale_of_case_shares_and_one_colour_bar():
    # one colour bar per panel cost half the grid's drawing time and gave each
    # panel its own scale of case counts (12 cases in one, 8 in the other)
    results, targets = _three_algorithms_two_targets()
    fig = plots.target_grid("heatmap", results, task="T", metric="DSC", targets=targets)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "share of cases"]

    assert len(images) == 2
    assert len(bars) == 1
    assert {(i.norm.vmin, i.norm.vmax) for i in images} == {(0, 1.0)}
    # brain: every case ranks alpha, beta, gamma in that order but for the
    # 3 cases gamma misses (ranked last anyway): shares of 12 cases
    brain = images[0].get_array()
    assert brain[0].tolist() == [1.0, 0.0, 0.0]
    assert float(brain.sum()) == 3.0  # each algorithm's shares sum to 1


def _overlapping_texts(fig: Figure) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose bounding boxes overlap (parallel rotated
    labels aside: their upright boxes overlap where the texts do not)."""
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    texts = _drawn_texts(fig)
    boxes = [t.get_window_extent(renderer) for t in texts]
    return [
        (texts[i].get_text(), texts[j].get_text())
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if boxes[i].overlaps(boxes[j])
        and not (texts[i].get_rotation() and texts[j].get_rotation())
    ]


def _three_algorithms_two_targets():
    """Three algorithms on two targets in one row of panels; gamma lacks 3
    brain cases, beta 2 heart cases (the "(k missing)" labels)."""
    rows = []
    for target, n in (("brain", 12), ("heart", 8)):
        for c in range(n):
            for k, algorithm in enumerate(("alpha", "beta", "gamma")):
                missing = (algorithm, target) in {("gamma", "brain"), ("beta", "heart")}
                value = np.nan if missing and c < 3 - (target == "heart") else 0.9
                rows.append((target, f"{target}{c}", algorithm, value - 0.1 * k))
    results = pd.DataFrame(rows, columns=["target", "case", "algorithm", "value"])
    results = results.assign(task="T", metric="DSC")
    ranks = {"ranks": {"alpha": 1, "beta": 2, "gamma": 3}}
    return results, {"brain": ranks, "heart": ranks}


@pytest.mark.parametrize("kind", ["dot_box", "podium", "heatmap"])
def test_target_panels_of_few_algorithms_draw_no_text_over_another(kind):
    # The dot-and-box labels "beta" and "gamma (3 missing)" ran into each
    # other, and the figure title into the panel titles of a single row.
    results, targets = _three_algorithms_two_targets()
    fig = plots.target_grid(kind, results, task="T", metric="DSC", targets=targets)
    assert _overlapping_texts(fig) == []


def test_target_grids_share_one_matrix_per_target_and_draw_the_same():
    # the report draws three kinds of grid per target: each target's
    # (cases x algorithms) matrix is computed once for all three
    results, targets = _three_algorithms_two_targets()

    def pdfs() -> list[bytes]:
        return [
            plots.fitted_pdf(
                lambda kind=kind: plots.target_grid(
                    kind, results, task="T", metric="DSC", targets=targets
                )
            )
            for kind in ("dot_box", "podium", "heatmap")
        ]

    alone = pdfs()
    with plots.shared_case_matrices():
        shared = pdfs()
        matrices = dict(assessment._SHARED)

    assert shared == alone
    assert sorted(key[3] for key in matrices) == ["brain", "heart"]
    assert not any(x.flags.writeable for x in matrices.values())
    assert assessment._SHARED is None  # nothing kept beyond the scope


@pytest.mark.parametrize("kind", ["dot_box", "heatmap", "significance"])
def test_target_panels_in_one_row_leave_room_under_the_figure_title(kind):
    results, targets = _three_algorithms_two_targets()
    if kind == "significance":
        targets = {
            name: {**block, "significance": {"significant": [[False] * 3] * 3}}
            for name, block in targets.items()
        }
    fig = plots.target_grid(kind, results, task="T", metric="DSC", targets=targets)
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    title = fig._suptitle.get_window_extent(renderer)
    for ax in fig.axes:
        if ax.get_title():
            gap = title.y0 - ax.title.get_window_extent(renderer).y1
            assert gap >= 4 * fig.dpi / 72, (ax.get_title(), gap)  # 4 points


def test_rank_percentiles_are_ranks_that_occur():
    # 40 samples: rank 1 once, rank 2 38 times, rank 3 once (as the bootstrap
    # rank intervals count them); interpolating gave 1.975 and 2.025
    freq = {"1": 1 / 40, "2": 38 / 40, "3": 1 / 40}
    assert plots.rank_percentiles(freq) == [1.0, 2.0]
    # the MSD report's "4.025": 2.5 % of the samples at rank 5 or worse
    assert plots.rank_percentiles({"3": 0.3, "4": 0.675, "5": 0.025}) == [3.0, 4.0]
    assert plots.rank_percentiles({}) == [None, None]
