"""Every plot of seed 000 from engine output: built, readable, byte-stable."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from matplotlib.figure import Figure

from analysis import plots


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
    taus = plots.bootstrap_kendall_taus(results, output, key="DSC")
    return plots.kendall_tau_violins(taus)


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


def test_blob_plot_with_forty_algorithms_labels_all_and_scales_width(forty):
    block = forty[1]["rankings"]["DSC"]["tasks"]["T01"]
    fig = plots.blob_plot(block)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert len(labels) == 40
    assert fig.get_figwidth() > 12
    assert fig.axes[0].get_xticklabels()[0].get_rotation() == 60


def test_blob_plot_top_k_keeps_best_algorithms(forty):
    block = forty[1]["rankings"]["DSC"]["tasks"]["T01"]
    fig = plots.blob_plot(block, top_k=5)
    shown = [t.get_text() for t in fig.axes[0].get_xticklabels()]
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


def test_bootstrap_kendall_taus_reproduce_the_output_summary(forty):
    results, output = forty
    taus = plots.bootstrap_kendall_taus(results, output, key="DSC")
    for task, block in output["rankings"]["DSC"]["tasks"].items():
        assert taus[task].shape == (10,)
        assert float(np.median(taus[task])) == pytest.approx(
            block["kendall_tau"]["median"], abs=1e-12
        )
        assert float(np.percentile(taus[task], 2.5)) == pytest.approx(
            block["kendall_tau"]["lower"], abs=1e-12
        )


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
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["T1"]
    assert fig.axes[0].lines


def test_plots_do_not_import_pyplot():
    code = (
        "import sys; from analysis import plots; from ranking import simulate;"
        "r = simulate.c_ideal(n_cases=5);"
        "plots.dot_box_plot(r, task='T1', metric='DSC', ranks={'A1': 1, 'A2': 2});"
        "print('matplotlib.pyplot' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
