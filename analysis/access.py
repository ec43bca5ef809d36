"""Object lookups of the results and case-characteristics pages and APIs.

A 404 for what the user may not see, with the same answer whether the object
is missing or hidden (the message must not tell which: no existence leak).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.db.models import Model, QuerySet
from django.http import Http404

from registry.models import Registration

from . import services
from .models import AnalysisRun, ResultsVersion

T = TypeVar("T", bound=Model)


def visible_or_404(
    request,
    queryset: QuerySet[T],
    registration_of: Callable[[T], Registration],
    not_found: str,
    **lookup,
) -> T:
    """The object of `queryset` matching `lookup` if the user may see the
    results of its registration; else 404 with `not_found`."""
    found = queryset.filter(**lookup).first()
    if found is None or not services.can_see_results(
        request.user, registration_of(found)
    ):
        raise Http404(not_found)
    return found


def visible_registration(request, identifier: str) -> Registration:
    return visible_or_404(
        request,
        Registration.objects.select_related("challenge"),
        lambda registration: registration,
        "No such registration.",
        identifier=identifier,
    )


def visible_results(request, pk: int) -> ResultsVersion:
    return visible_or_404(
        request,
        ResultsVersion.objects.select_related("registration__challenge"),
        lambda results: results.registration,
        "No such results version.",
        pk=pk,
    )


def visible_run(request, pk: int) -> AnalysisRun:
    return visible_or_404(
        request,
        AnalysisRun.objects.select_related(
            "results__registration__challenge", "results__uploaded_by", "requested_by"
        ),
        lambda run: run.results.registration,
        "No such analysis.",
        pk=pk,
    )
