"""The analysis page: progress, deviations, rankings, figures and downloads."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from .. import plots, services
from ..access import visible_run
from ..models import AnalysisStatus
from ..output import AnalysisOutput
from ..present import (
    ranking_sections,
    run_figure,
    sorted_deviations,
    table_csv_for_people,
)

FINISHED = (AnalysisStatus.DONE, AnalysisStatus.FAILED)
TABLES = ("rankings", "target_rankings", "consensus", "descriptive_statistics")
PLOT_DPI = 110


def _body_context(run, user) -> dict:
    has_output = run.output is not None
    return {
        "run": run,
        "can_retry": run.status == AnalysisStatus.FAILED
        and services.can_retry_analysis(user, run),
        "deviations": sorted_deviations(run.deviations or []),
        "sections": ranking_sections(run.pk, run.output) if has_output else [],
        "tables": [
            (name, reverse("analysis:table", args=[run.pk, name]))
            for name in _offered_tables(run.output)
        ]
        if has_output
        else [],
    }


def _offered_tables(output) -> list[str]:
    """The downloads with rows: no consensus table when the scheme has none,
    no target rankings when no task has targets."""
    reader = AnalysisOutput.of(output)
    has = {
        "consensus": any(reader.consensus(key) for key in reader.keys),
        "target_rankings": any(
            block.get("targets")
            for key in reader.keys
            for block in reader.tasks(key).values()
        ),
    }
    return [name for name in TABLES if has.get(name, True)]


@login_required
@require_GET
def analysis_page(request, pk: int):
    run = visible_run(request, pk)
    context = {
        "registration": run.results.registration,
        "finished": run.status in FINISHED,
        "crumb": f"Analysis {run.pk}",
        **_body_context(run, request.user),
    }
    return render(request, "analysis/run.html", context)


@login_required
@require_GET
def analysis_body(request, pk: int):
    """The page's result part alone; the progress script loads it when done."""
    run = visible_run(request, pk)
    return render(request, "analysis/_run_body.html", _body_context(run, request.user))


@login_required
@require_POST
def retry_run(request, pk: int):
    """Queue a failed run again (organizers and chairs)."""
    run = visible_run(request, pk)
    try:
        services.retry_analysis(run=run, actor=request.user)
    except services.NotRetryableError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Analysis {run.pk} is queued again.")
    return redirect("analysis:run", run.pk)


@login_required
@require_GET
def analysis_output(request, pk: int):
    run = visible_run(request, pk)
    if run.output is None:
        raise Http404("The analysis has no output yet.")
    body = json.dumps(run.output, indent=2, sort_keys=False, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="analysis-{run.pk}.json"'
    return response


@login_required
@require_GET
def analysis_table(request, pk: int, name: str):
    """One result table as CSV with plain-language headers (for people; the
    API's ``tables/?table=`` keeps the column names)."""
    run = visible_run(request, pk)
    if run.output is None or name not in TABLES:
        raise Http404("No such table.")
    try:
        body = table_csv_for_people(run, name)
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="analysis-{run.pk}-{name}.csv"'
    )
    return response


@login_required
@require_GET
def analysis_plot(request, pk: int, kind: str):
    """A PNG figure drawn from the stored output on request (nothing cached)."""
    run = visible_run(request, pk)
    try:
        figure = run_figure(run, kind, request.GET.get("key"), request.GET.get("task"))
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    response = HttpResponse(
        plots.figure_png(figure, dpi=PLOT_DPI), content_type="image/png"
    )
    response["Cache-Control"] = "private, max-age=3600"
    return response
