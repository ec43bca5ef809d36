"""Object lookups of the results pages and of the case-characteristics pages and
API: 404 for what the user may not see."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404

from registry.models import Registration

from . import services
from .models import AnalysisRun, ResultsVersion


def visible_registration(request, identifier: str) -> Registration:
    registration = get_object_or_404(
        Registration.objects.select_related("challenge"), identifier=identifier
    )
    if not services.can_see_results(request.user, registration):
        raise Http404("No such registration.")
    return registration


def visible_results(request, pk: int) -> ResultsVersion:
    results = get_object_or_404(
        ResultsVersion.objects.select_related("registration__challenge"), pk=pk
    )
    if not services.can_see_results(request.user, results.registration):
        raise Http404("No such results version.")
    return results


def visible_run(request, pk: int) -> AnalysisRun:
    run = get_object_or_404(
        AnalysisRun.objects.select_related(
            "results__registration__challenge", "results__uploaded_by", "requested_by"
        ),
        pk=pk,
    )
    if not services.can_see_results(request.user, run.results.registration):
        raise Http404("No such analysis.")
    return run
