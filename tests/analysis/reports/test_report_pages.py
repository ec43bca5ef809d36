"""How many pages a large report takes (issue 28: the 40 algorithms x 20
tasks report had 162 pages, at most 120 wanted) and what it leaves out to get
there, each time saying so; algorithm names of any length (issue 30)."""

from __future__ import annotations

import copy
import dataclasses
import io
import re

import pytest
from pypdf import PdfReader

from analysis.bench_report import GRID_SCHEME
from analysis.reports import (
    ReportData,
    TitleInfo,
    build_report_data,
    descriptive_statistics,
    render_report_pdf,
)
from analysis.reports.build import _collect
from analysis.reports.data import APPENDIX_MAX_ROWS, design_in_brief
from ranking import run_analysis, simulate
from tests.analysis.plots.conftest import SCHEME, forty_algorithms

from .conftest import pdf_pages

TITLE = TitleInfo("pages", "-", "-", "-", "-", "-", "-", "-", 1, registered=False)


@pytest.fixture(scope="module")
def forty():
    return forty_algorithms(n_tasks=3, n_cases=12, seed=3, bootstrap=10)


def _text(data: ReportData) -> str:
    return " ".join(pdf_pages(render_report_pdf(data)))


def _tables_only(results, output, **changes) -> ReportData:
    data = ReportData(
        title=TITLE,
        design=design_in_brief(output["scheme"]),
        output=output,
        statistics=descriptive_statistics(results),
    )
    return dataclasses.replace(data, **changes)


@pytest.mark.slow
def test_forty_algorithms_by_twenty_tasks_report_has_at_most_120_pages():
    # the benchmark's scenario (analysis.bench_report, b = 1000)
    results = simulate.msd_like(n_tasks=20, n_algorithms=40, n_cases=60, seed=0)
    output = run_analysis(results, GRID_SCHEME).to_json_dict()
    pdf = render_report_pdf(build_report_data(results, output, title=TITLE))
    assert len(PdfReader(io.BytesIO(pdf)).pages) <= 120


def test_figures_beyond_twenty_algorithms_say_they_show_the_best_twenty(forty):
    results, output = forty
    titles = [meta["title"] for _, meta in _collect(results, output, None).specs]
    assert titles.count("Dot-and-box plot (best 20 of 40 algorithms)") == 3
    across = [t for t in titles if t.startswith("Bootstrap ranks per algorithm")]
    assert across
    assert all("(best 20 of 40 algorithms by consensus)" in t for t in across)
    # every task's blob plot is in its section: no grid of them across tasks
    assert not [t for t in titles if t.startswith("Bootstrap ranks per task")]
    # the figure across tasks shows each task's τ violin: not one per task
    assert "Violin plot of Kendall's τ" not in titles
    assert titles.count("Kendall's τ per task") == 1


def test_a_single_task_keeps_its_own_kendall_tau_violin(ideal_run):
    results, output = ideal_run
    one = copy.deepcopy(output)
    tasks = one["rankings"]["DSC"]["tasks"]
    for name in list(tasks)[1:]:
        del tasks[name]
    results = results[results.task == "Brain"]
    titles = [meta["title"] for _, meta in _collect(results, one, None).specs]
    assert "Violin plot of Kendall's τ" in titles
    assert "Dot-and-box plot" in titles  # 5 algorithms: all of them


def test_selective_submission_beyond_twenty_algorithms_lists_the_top_ten(forty):
    results, output = forty
    changed = copy.deepcopy(output)
    block = next(iter(changed["rankings"]["DSC"]["tasks"].values()))
    ranks = block["ranks"]
    by_rank = sorted(ranks, key=lambda a: ranks[a])
    table = block["audit"]["selective_submission"]["registered_policy"]
    for name in table:  # nobody gains ...
        table[name] = dict.fromkeys(table[name], ranks[name])
    climber, riser = by_rank[34], by_rank[29]
    table[climber]["20"] = 4  # ... but one reaches the top ten
    table[riser]["20"] = ranks[riser] - 5  # and one gains below it
    for policy in ("ignore",):
        block["audit"]["selective_submission"][policy] = copy.deepcopy(table)
    text = _text(_tables_only(results, changed))
    assert f"{climber} {ranks[climber]} " in text
    for rule in ("under the registered rule", "when missing results are ignored"):
        assert (
            f"Not listed: 1 of the algorithms ranked below 10 improves by withholding"
            f" cases {rule}; the largest gain: {riser} from rank {ranks[riser]}"
            f" to {ranks[riser] - 5}." in text
        )
    assert f"{riser} {ranks[riser]} " not in text


def test_a_long_statistics_appendix_is_summarised_with_where_the_table_is(forty):
    results, output = forty
    stats = descriptive_statistics(results)
    many = stats * (APPENDIX_MAX_ROWS // len(stats) + 1)
    data = _tables_only(
        results, output, statistics=many, statistics_download="See stats.csv."
    )
    text = _text(data)
    assert f"({len(many)} rows" in text
    assert "See stats.csv." in text
    assert "Task Metric Algorithms Values Missing Missing by" in text
    assert "Mean SD Median IQR" not in text  # the full table is not printed


def test_a_short_statistics_appendix_is_printed_in_full(ideal_run):
    results, output = ideal_run
    text = _text(_tables_only(results, output))
    assert "Mean SD Median IQR" in text
    assert "Missing by" not in text


@pytest.mark.slow
def test_a_3000_character_algorithm_name_renders_shortened_and_in_full():
    # issue 30: such a name made a table row taller than a page (LayoutError)
    results = simulate.msd_like(n_tasks=2, n_algorithms=4, n_cases=12, seed=1)
    spaced = "Very long algorithm name " * 119 + "Very long algorithm names"
    unbroken = "X" * 3000
    assert len(spaced) == 3000
    first, second = sorted(results.algorithm.unique())[:2]
    results = results.replace({"algorithm": {first: spaced, second: unbroken}})
    output = run_analysis(results, SCHEME).to_json_dict()
    data = build_report_data(results, output, title=TITLE, workers=1)
    pages = pdf_pages(render_report_pdf(data))
    text = " ".join(pages)
    assert "Very long algorithm name Very… (1)" in text
    assert "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX… (2)" in text
    full = text[text.index("Algorithm names in full") :].replace(" ", "")
    full = re.sub(r"Page\d+", "", full)  # a name may run over a page's foot
    assert spaced.replace(" ", "") in full
    assert unbroken in full


def test_report_command_writes_a_summarised_appendix_beside_the_pdf(
    tmp_path, monkeypatch
):
    import json

    import pandas as pd
    from django.core.management import call_command

    from tests.analysis.reports.test_commands import SCHEME as COMMAND_SCHEME

    # a long appendix at 40 x 20; here any appendix of more than 2 rows
    monkeypatch.setattr("analysis.reports.data.APPENDIX_MAX_ROWS", 2)
    csv, scheme = tmp_path / "results.csv", tmp_path / "scheme.json"
    simulate.c_ideal(n_cases=8).to_csv(csv, index=False)
    scheme.write_text(json.dumps(COMMAND_SCHEME))
    out = tmp_path / "report.pdf"
    call_command("report", str(csv), "--scheme", str(scheme), "--output", str(out))
    text = " ".join(pdf_pages(out.read_bytes()))
    assert "The full table is the file report.statistics.csv" in text
    table = pd.read_csv(tmp_path / "report.statistics.csv")
    assert list(table.columns[:4]) == ["task", "target", "metric", "algorithm"]
    assert len(table) == 5  # c_ideal: 5 algorithms, one task
