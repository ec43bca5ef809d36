"""From a results table and an analysis output to :class:`ReportData`.

Figures are drawn from the stored output (and, for the per-case figures, the
results table): nothing re-runs a bootstrap. Every figure is a vector PDF.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import faulthandler
import gc
import logging
import math
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pandas as pd

from analysis import plots
from analysis.output import AnalysisOutput

from .data import (
    FIGURE_TOP_K,
    Deviation,
    ReportData,
    ReportFigure,
    TitleInfo,
    bias_coverage,
    descriptive_statistics,
    design_of,
)
from .vector import figure_size

__all__ = [
    "CAPTIONS",
    "build_report_data",
    "build_report_figures",
    "draw_case_figures",
]

logger = logging.getLogger(__name__)

# Podiums are cut to the best k; panel grids are split into figures of as
# many panels as fit a printed page (plots.tasks_per_figure and
# plots.algorithms_per_figure), so their text keeps its size.
PODIUM_TOP_K = 10
# Inches: the height of a task's blob plot beyond FIGURE_TOP_K algorithms, as
# a panel of the grids across tasks (its text at 6.5 pt as there)
COMPACT_BLOB_HEIGHT = 3.0


def shown_top_k(m: int, top_k: int | None) -> int | None:
    """The top k a case-level or per-algorithm figure draws of ``m``
    algorithms: ``top_k`` when given, else FIGURE_TOP_K beyond it, else all."""
    if top_k is not None:
        return top_k
    return FIGURE_TOP_K if m > FIGURE_TOP_K else None


def best_of(k: int | None, m: int, by: str = "") -> str:
    """A title's note that a figure shows the best k of m algorithms."""
    return f" (best {k} of {m} algorithms{by})" if k is not None and k < m else ""


_BOX = (
    "Each dot is one case (jittered sideways); the box spans the quartiles with"
    " the median as a line, whiskers reach the furthest value within 1.5 × IQR."
    " “(k missing)” under a name counts the cases of this {space} without a value"
    " for that algorithm, as in the descriptive statistics."
)
CAPTIONS: dict[str, str] = {
    "dot_box": _BOX,
    "podium": "Top: each case's values placed on the podium of the algorithm's"
    " place in that case (1 = best; ties broken by rank order, missing results"
    " last), the values of one case joined by a grey line. Bottom: the share of"
    " cases in which each algorithm took each place.",
    "heatmap": "Cell (algorithm, r) counts the cases in which the algorithm had"
    " per-case rank r (ties: minimum rank; missing results ranked last); darker"
    " = more cases.",
    "heatmap_targets": "Cell (algorithm, r): the share of the target's cases in"
    " which the algorithm had per-case rank r (ties: minimum rank; missing"
    " results ranked last); one colour scale for every panel, darker = a larger"
    " share.",
    "significance": "Cell (A, B) is yellow when algorithm A (x axis) is"
    " significantly better than B (y axis): one-sided Wilcoxon signed-rank"
    " test as the scheme says (its own decisions under test-then-rank, otherwise"
    " Holm-adjusted at α); blue otherwise. Both axes in rank order.",
    "blob": "Blob area ∝ share of bootstrap samples in which the algorithm"
    " reached that rank; × = median bootstrap rank, vertical line = 2.5–97.5 %"
    " percentiles of the bootstrap ranks (challengeR's summary).",
    "violin": "Distribution of Kendall's τ between the full-data ranking and the"
    " ranking of each bootstrap sample (1 = identical order); the line in a"
    " violin is the median, a bar means τ was the same in every sample.",
    "methods": "Each line follows one algorithm's rank under the registered"
    " scheme (left) and under each alternative scheme of the robustness audit;"
    " parallel lines mean the ranking does not depend on the method. “="
    " registered” marks the alternative that repeats the registered scheme;"
    " tied algorithms are named together at a line end (“+k more” counts the"
    " rest). Beyond 15 algorithms the best 10 and the 5 whose rank changes most"
    " are drawn in colour and named, the others as thin grey lines.",
    "across": "Blob area ∝ share of tasks in which the algorithm reached that"
    " rank; × = median rank over tasks, line = 2.5–97.5 % percentiles.",
    "per_algorithm": "One panel per algorithm: its bootstrap rank blobs in each"
    " task (area ∝ share of samples, × = median, line = 2.5–97.5 %).",
    "stacked": "One panel per algorithm: the share of bootstrap samples at each"
    " rank, stacked by task (each task contributes 1 / number of tasks).",
    "tau_tasks": "Kendall's τ between each task's full-data ranking and its"
    " bootstrap rankings, one violin per task, ordered by median τ.",
    "dendrogram": "Tasks clustered by Spearman's footrule between their"
    " rankings (complete linkage): tasks joined low rank the algorithms alike.",
    "network": "Tasks placed so that similar rankings lie close together"
    " (multidimensional scaling of Spearman's footrule); edges are thicker and"
    " darker the more similar two rankings are; a node's colour is its winner"
    " (white: several algorithms tied first).",
}


def metric_higher_is_better(scheme: Mapping[str, Any], metric: str) -> bool:
    """The scheme's `higher_is_better` for `metric` (one value, or per metric)."""
    value = scheme["higher_is_better"]
    return bool(value[metric] if isinstance(value, Mapping) else value)


# What a case-level figure is drawn from besides the results table: kind,
# ranking key, task, targets, higher_is_better, top k and the ranks it orders
# the algorithms by. Equal keys (and the same results) give the same figure.
ReuseKey = tuple[Any, ...]


def _ranks_key(ranks: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(ranks.items()))


class _Figures:
    """Collects the figures of the report in report order; :meth:`render`
    draws them (in parallel worker processes when allowed) as vector PDFs,
    taking the ones in ``drawn`` (by reuse key) as they are."""

    def __init__(self, drawn: Mapping[ReuseKey, bytes] | None = None) -> None:
        self.specs: list[tuple[Callable[[], Any], dict[str, Any]]] = []
        self.reuse: list[ReuseKey | None] = []
        self.drawn = drawn or {}

    def add(
        self, draw: Callable[[], Any], *, reuse: ReuseKey | None = None, **meta: Any
    ) -> None:
        self.specs.append((draw, meta))
        self.reuse.append(reuse)

    def order(self) -> list[int]:
        """Panel grids (per target, across tasks) cost several times a single
        figure: handed out first, they do not leave one worker alone at the end."""
        return sorted(
            range(len(self.specs)),
            key=lambda i: (
                not (
                    self.specs[i][1].get("targets") or self.specs[i][1]["task"] is None
                )
            ),
        )

    def render(self, workers: int) -> tuple[ReportFigure, ...]:
        todo = [i for i in self.order() if self.reuse[i] not in self.drawn]
        drawn = _render_all([self.specs[i][0] for i in todo], workers)
        pdfs = dict(zip(todo, drawn, strict=True))
        figures = []
        for i, (_, meta) in enumerate(self.specs):
            pdf = pdfs[i] if i in pdfs else self.drawn[self.reuse[i]]
            width, height = figure_size(pdf)
            figures.append(ReportFigure(pdf=pdf, width=width, height=height, **meta))
        return tuple(figures)


# A figure is thousands of objects in reference cycles. With the garbage
# collector's default thresholds a collection runs every 700 of them and scans
# everything alive (the results table, the analysis output, the figure being
# built): a fifth of the drawing time. While figures are drawn, what exists
# before is frozen out of collections, they run far less often, and each
# figure's garbage is collected once it is drawn (peak memory stays as low).
_DRAWING_THRESHOLDS = (20_000, 50, 1_000)


def _collect_rarely() -> None:
    gc.freeze()
    gc.set_threshold(*_DRAWING_THRESHOLDS)


@contextlib.contextmanager
def _drawing_figures() -> Iterator[None]:
    """Within, collections as :func:`_collect_rarely` sets them, and the
    per-target figures share their case matrices."""
    thresholds = gc.get_threshold()
    _collect_rarely()
    try:
        with plots.shared_case_matrices():
            yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _fitted_pdf(draw: Callable[[], Any]) -> bytes:
    """The figure's PDF (see ``plots.fitted_pdf``), its garbage collected."""
    pdf = plots.fitted_pdf(draw)
    gc.collect()
    return pdf


# The drawing closures of the current render, inherited by forked workers
# (closures cannot be pickled; each worker draws the figures it is given).
_PENDING: list[Callable[[], Any]] = []


def _draw_pdf(index: int) -> bytes:
    return _fitted_pdf(_PENDING[index])


def _render_all(draws: list[Callable[[], Any]], workers: int) -> list[bytes]:
    """PDF bytes of every figure, in order. ``workers`` > 1 forks that many
    processes (where :func:`can_fork_workers`), which take the figures in that
    order; results do not depend on it. Figures lost with a worker that
    stopped abruptly (killed, out of memory) are drawn here, once."""
    workers = min(workers, len(draws))
    if workers <= 1 or not can_fork_workers():
        return _draw_here(draws)
    _PENDING[:] = draws
    try:
        with plots.shared_case_matrices():  # the forked workers' own
            pdfs = _draw_in_workers(len(draws), workers)
    finally:
        _PENDING.clear()
    lost = [i for i, pdf in enumerate(pdfs) if pdf is None]
    redrawn: dict[int, bytes] = {}
    if lost:
        logger.warning(
            "A figure worker process stopped abruptly (killed, or out of "
            "memory); drawing the %d of %d figures it took here.",
            len(lost),
            len(draws),
        )
        redrawn = dict(zip(lost, _draw_here([draws[i] for i in lost]), strict=True))
    return [redrawn[i] if pdf is None else pdf for i, pdf in enumerate(pdfs)]


def can_fork_workers() -> bool:
    """Whether this process may start figure worker processes: the platform
    can fork, and this process is not daemonic. A Celery prefork pool process
    (compose's worker) is daemonic, and a daemonic process may not have
    children (multiprocessing asserts it); it draws every figure itself, which
    gives the same bytes."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def _draw_here(draws: list[Callable[[], Any]]) -> list[bytes]:
    with _drawing_figures():
        return [_fitted_pdf(draw) for draw in draws]


def _draw_in_workers(count: int, workers: int) -> list[bytes | None]:
    """The PDFs of ``_PENDING``'s figures drawn by forked workers; None for a
    figure lost when a worker stopped abruptly (the pool is broken then). A
    figure that fails to draw raises its error here."""
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_start_worker
    ) as pool:
        futures = [pool.submit(_draw_pdf, i) for i in range(count)]
        concurrent.futures.wait(futures)
    return [
        None if isinstance(f.exception(), BrokenProcessPool) else f.result()
        for f in futures
    ]


def _start_worker() -> None:
    # A worker killed by a signal leaves no trace; faulthandler at least
    # prints the Python stack of a crash (segmentation fault, abort).
    faulthandler.enable()
    _collect_rarely()


def figure_workers() -> int:
    """Worker processes for figures: ``REPORT_FIGURE_WORKERS`` when set, else
    the CPUs this process may use (at most 4)."""
    value = os.environ.get("REPORT_FIGURE_WORKERS")
    if value:
        return max(1, int(value))
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


def _case_figures(
    out: _Figures,
    results: pd.DataFrame,
    *,
    key: str,
    task: str,
    block: Mapping[str, Any],
    hib: bool,
    top_k: int | None,
) -> None:
    """Dot-and-box, podium and heatmap of a task without targets."""
    m = len(block["ranks"])
    where = {"key": key, "task": task}
    common = {"task": task, "metric": key, "ranks": block["ranks"]}
    k = min(top_k or m, PODIUM_TOP_K)
    cases_k = shown_top_k(m, top_k)
    ranks = _ranks_key(block["ranks"])
    out.add(
        lambda: plots.dot_box_plot(results, **common, top_k=cases_k),
        reuse=("dot_box", key, task, None, hib, cases_k, ranks),
        title="Dot-and-box plot" + best_of(cases_k, m),
        caption=CAPTIONS["dot_box"].format(space="task"),
        **where,
    )
    out.add(
        lambda: plots.podium_plot(results, **common, higher_is_better=hib, top_k=k),
        reuse=("podium", key, task, None, hib, k, ranks),
        title="Podium plot" + (f" (best {k} algorithms)" if k < m else ""),
        caption=CAPTIONS["podium"],
        **where,
    )
    out.add(
        lambda: plots.ranking_heatmap(
            results, **common, higher_is_better=hib, top_k=top_k
        ),
        reuse=("heatmap", key, task, None, hib, top_k, ranks),
        title="Ranking heatmap",
        caption=CAPTIONS["heatmap"],
        **where,
    )


_TARGET_TITLES = {
    "dot_box": "Dot-and-box plots per target",
    "podium": "Podium plots per target",
    "heatmap": "Ranking heatmaps per target",
    "significance": "Significance maps per target",
}


def _target_figures(
    out: _Figures,
    results: pd.DataFrame,
    *,
    key: str,
    task: str,
    targets: Mapping[str, Any],
    hib: bool,
    top_k: int | None,
) -> None:
    """Per target, in its own case space: small multiples of each kind."""
    m = len(next(iter(targets.values()))["ranks"])
    kinds = ["dot_box", "podium", "heatmap"] if key != "combined" else []
    if all(t.get("significance") for t in targets.values()):
        kinds.append("significance")
    for kind in kinds:
        k = min(top_k or m, PODIUM_TOP_K) if kind == "podium" else top_k
        per_figure = plots.targets_per_figure(m)
        parts = _chunks(
            list(targets), min(2, per_figure) if kind == "podium" else per_figure
        )
        for i, part in enumerate(parts):
            suffix = f" ({i + 1} of {len(parts)})" if len(parts) > 1 else ""
            best = f", best {k} algorithms" if kind == "podium" and k < m else ""
            out.add(
                lambda kind=kind, part=part, k=k: plots.target_grid(
                    kind,
                    results,
                    task=task,
                    metric=key,
                    targets={t: targets[t] for t in part},
                    higher_is_better=hib,
                    top_k=k,
                ),
                # significance maps draw the test decisions, not only the ranks
                reuse=None
                if kind == "significance"
                else (
                    kind,
                    key,
                    task,
                    tuple(part),
                    hib,
                    k,
                    tuple((t, _ranks_key(targets[t]["ranks"])) for t in part),
                ),
                key=key,
                task=task,
                targets=tuple(part),
                title=_TARGET_TITLES[kind] + best + suffix,
                caption=CAPTIONS.get(f"{kind}_targets", CAPTIONS[kind]).format(
                    space="target"
                ),
            )


def _task_figures(
    out: _Figures,
    results: pd.DataFrame,
    scheme: Mapping[str, Any],
    key: str,
    task: str,
    block: Mapping[str, Any],
    top_k: int | None,
    *,
    violin: bool = True,
) -> None:
    """The figures of one task; ``violin``: its own Kendall's τ violin (not
    drawn where the figure across tasks shows every task's violin)."""
    per_metric = key != "combined"
    hib = metric_higher_is_better(scheme, key) if per_metric else True
    targets = block.get("targets") or {}
    where = {"key": key, "task": task}
    # the figure's own title names its task (and ranking key): a page torn
    # out of the report still says what it shows
    name = f"{plots.short_label(task, 40)} ({key})"
    # beyond FIGURE_TOP_K algorithms the blob plot is as compact as a panel
    # of a grid and follows the ranking table (whose last column summarises
    # it), with the ranks across methods on its page; then the case-level
    # figures (two to a page) and the significance map with the heatmap
    compact = len(block["ranks"]) > FIGURE_TOP_K and not targets
    if block.get("bootstrap") and compact:
        _blob_figure(
            out, block, name=name, where=where, top_k=top_k, height=COMPACT_BLOB_HEIGHT
        )
    if compact:  # and the ranks across methods share the blob plot's page
        _methods_figure(out, block, name=name, where=where, top_k=top_k)
    if targets:
        _target_figures(
            out, results, key=key, task=task, targets=targets, hib=hib, top_k=top_k
        )
    else:
        if per_metric:
            _case_figures(
                out, results, key=key, task=task, block=block, hib=hib, top_k=top_k
            )
        if block.get("significance"):
            out.add(
                lambda: plots.significance_map(
                    block, top_k=top_k, title=f"{name}: significance map"
                ),
                title="Significance map",
                caption=CAPTIONS["significance"],
                **where,
            )
    if block.get("bootstrap") and not compact:
        _blob_figure(
            out,
            block,
            name=name,
            where=where,
            title=" (task ranking)" if targets else "",
            top_k=top_k,
        )
    if block.get("bootstrap") and violin:
        out.add(
            lambda: plots.kendall_tau_violins(
                {task: block.get("kendall_tau_quantiles")},
                summaries={task: block.get("kendall_tau")},
                title=f"{name}: ranking stability (Kendall's τ)",
            ),
            title="Violin plot of Kendall's τ",
            caption=CAPTIONS["violin"],
            **where,
        )
    if not compact:
        _methods_figure(out, block, name=name, where=where, top_k=top_k)


def _methods_figure(
    out: _Figures,
    block: Mapping[str, Any],
    *,
    name: str,
    where: Mapping[str, Any],
    top_k: int | None,
) -> None:
    if block.get("audit", {}).get("alternatives"):
        out.add(
            lambda: plots.ranking_methods_plot(
                block, top_k=top_k, title=f"{name}: ranks across ranking methods"
            ),
            title="Ranks across ranking methods",
            caption=CAPTIONS["methods"],
            **where,
        )


def _blob_figure(
    out: _Figures,
    block: Mapping[str, Any],
    *,
    name: str,
    where: Mapping[str, Any],
    title: str = "",
    top_k: int | None = None,
    height: float | None = None,
) -> None:
    out.add(
        lambda: plots.blob_plot(
            block,
            top_k=top_k,
            title=f"{name}: bootstrap rank distribution",
            height=height,
        ),
        title="Blob plot of bootstrap ranks" + title,
        caption=CAPTIONS["blob"],
        **where,
    )


def _chunks(names: list[str], size: int) -> list[list[str]]:
    parts = math.ceil(len(names) / size)
    per = math.ceil(len(names) / parts) if parts else size
    return [names[i : i + per] for i in range(0, len(names), per)]


def across_tasks_bootstrap(tasks: Mapping[str, Any]) -> bool:
    """Whether the report shows bootstrap figures across ``tasks`` (among them
    the violins of every task's Kendall's τ)."""
    return len(tasks) >= 2 and all(block.get("bootstrap") for block in tasks.values())


def _task_set_figures(
    out: _Figures, key: str, entry: Mapping[str, Any], top_k: int | None
) -> None:
    tasks = entry["tasks"]
    if len(tasks) < 2:
        return
    where = {"key": key, "task": None}
    out.add(
        lambda: plots.rank_blobs_across_tasks(entry, top_k=top_k),
        title="Ranks across tasks",
        caption=CAPTIONS["across"],
        **where,
    )
    if across_tasks_bootstrap(tasks):
        # each task's bootstrap blob plot is in its own section: a grid of
        # them here would repeat it (plots.bootstrap_blobs_per_task)
        m = len(next(iter(tasks.values()))["ranks"])
        k = shown_top_k(m, top_k)
        algorithms = plots.consensus_order(entry, top_k=k)
        for kind, draw, title in (
            (
                "per_algorithm",
                plots.bootstrap_blobs_per_algorithm,
                "Bootstrap ranks per algorithm",
            ),
            ("stacked", plots.stacked_frequency_plot, "Stacked rank frequencies"),
        ):
            per_figure = plots.algorithms_per_figure(len(tasks), kind)
            alg_parts = _chunks(algorithms, per_figure)
            for i, part in enumerate(alg_parts):
                suffix = f" ({i + 1} of {len(alg_parts)})" if len(alg_parts) > 1 else ""
                out.add(
                    lambda draw=draw, part=part: draw(entry, top_k=k, only=part),
                    title=title + best_of(k, m, " by consensus") + suffix,
                    caption=CAPTIONS[kind],
                    **where,
                )
        out.add(
            lambda: plots.kendall_tau_violins(
                {t: b.get("kendall_tau_quantiles") for t, b in tasks.items()},
                summaries={t: b.get("kendall_tau") for t, b in tasks.items()},
            ),
            title="Kendall's τ per task",
            caption=CAPTIONS["tau_tasks"],
            **where,
        )
    if len(tasks) >= plots.MIN_TASKS_FOR_SIMILARITY:
        out.add(
            lambda: plots.task_dendrogram(entry),
            title="Task dendrogram",
            caption=CAPTIONS["dendrogram"],
            **where,
        )
        out.add(
            lambda: plots.task_network(entry),
            title="Network of tasks",
            caption=CAPTIONS["network"],
            **where,
        )


def _collect(
    results: pd.DataFrame,
    output: Mapping[str, Any],
    top_k: int | None,
    drawn: Mapping[ReuseKey, bytes] | None = None,
) -> _Figures:
    out = _Figures(drawn)
    reader = AnalysisOutput.of(output)
    for key in reader.keys:
        tasks = reader.tasks(key)
        violin = not across_tasks_bootstrap(tasks)
        for task, block in tasks.items():
            scheme = reader.scheme_of(task)
            _task_figures(out, results, scheme, key, task, block, top_k, violin=violin)
        _task_set_figures(out, key, reader.ranking(key), top_k)
    return out


def build_report_figures(
    results: pd.DataFrame,
    output: Mapping[str, Any],
    *,
    top_k: int | None = None,
    workers: int | None = None,
    drawn: Mapping[ReuseKey, bytes] | None = None,
) -> tuple[ReportFigure, ...]:
    """Every figure of the report, in report order (per ranking key: each task
    and its targets, then the figures across tasks), drawn from the stored
    output by ``workers`` processes (default :func:`figure_workers`); those
    in ``drawn`` (see :func:`draw_case_figures`) are taken as they are."""
    out = _collect(results, output, top_k, drawn)
    return out.render(figure_workers() if workers is None else workers)


def draw_case_figures(
    results: pd.DataFrame,
    ranking: Mapping[str, Any],
    *,
    top_k: int | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> dict[ReuseKey, bytes]:
    """The case-level figures (dot-and-box, podium, heatmap; per task or
    target), drawn here one by one until ``stop()`` is true, by reuse key.

    They depend on the analysis only through its ranks, so ``ranking`` may
    be an output without bootstrap or audit: the command-line report draws
    them while the full analysis runs. :func:`build_report_figures` takes a
    figure only where the full output gives the same key (the same ranks).
    """
    out = _collect(results, ranking, top_k)
    drawn: dict[ReuseKey, bytes] = {}
    with _drawing_figures():
        for i in out.order():
            reuse = out.reuse[i]
            if reuse is None or reuse in drawn:
                continue
            if stop():
                break
            drawn[reuse] = _fitted_pdf(out.specs[i][0])
    return drawn


def build_report_data(
    results: pd.DataFrame,
    output: Mapping[str, Any],
    *,
    title: TitleInfo,
    deviations: Iterable[Deviation] = (),
    figures: bool = True,
    top_k: int | None = None,
    workers: int | None = None,
    registered_schemes: Mapping[str, Any] | None = None,
    design_answers: Mapping[str, str] | None = None,
    drawn: Mapping[ReuseKey, bytes] | None = None,
) -> ReportData:
    """Assemble the report of one analysis run (no database involved).

    ``registered_schemes`` (task → registered scheme) lets the report show
    what was registered next to what was executed; ``design_answers`` (BIAS
    item → where the registered design answers it) fills the checklist;
    ``drawn``: figures drawn beforehand (:func:`draw_case_figures`).
    """
    return ReportData(
        title=title,
        design=design_of(output, registered_schemes),
        output=output,
        deviations=tuple(deviations),
        statistics=descriptive_statistics(results),
        bias=bias_coverage(design_answers or {}),
        figures=(
            build_report_figures(
                results, output, top_k=top_k, workers=workers, drawn=drawn
            )
            if figures
            else ()
        ),
        registered_schemes=dict(registered_schemes or {}),
    )
