"""Object lookups of the case-characteristics pages and API (404 for what the
user may not see, missing or hidden alike: see `analysis.access`)."""

from __future__ import annotations

from analysis.access import visible_or_404

from .models import CaseMetadataVersion, CaseModelRun


def visible_metadata(request, pk: int) -> CaseMetadataVersion:
    return visible_or_404(
        request,
        CaseMetadataVersion.objects.select_related("results__registration__challenge"),
        lambda version: version.results.registration,
        "No such metadata version.",
        pk=pk,
    )


def visible_run(request, pk: int) -> CaseModelRun:
    return visible_or_404(
        request,
        CaseModelRun.objects.select_related(
            "metadata__results__registration__challenge", "requested_by"
        ),
        lambda run: run.metadata.results.registration,
        "No such case-characteristics run.",
        pk=pk,
    )
