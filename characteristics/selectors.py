"""Object-level reads shared by pages and API: 404 for what the user may not see."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404

from analysis.models import ResultsVersion
from analysis.services import can_see_results


def visible_results(request, pk: int) -> ResultsVersion:
    results = get_object_or_404(
        ResultsVersion.objects.select_related("registration__challenge"), pk=pk
    )
    if not can_see_results(request.user, results.registration):
        raise Http404("No such results version.")
    return results
