"""Pages of the public record: registry statistics (no sign-in needed), and the
signed-in user's citation profile."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from registry.models import Call

from .api import csv_response
from .figures import FIGURE_TITLES, figure
from .profiles import EDITABLE, me_data, update_me
from .selection import Selection, parse_selection
from .statistics import registry_statistics


def _selection(request: HttpRequest) -> tuple[Selection, dict[str, str]]:
    try:
        return parse_selection(request.GET), {}
    except ValidationError as exc:
        return Selection(), {k: " ".join(v) for k, v in exc.message_dict.items()}


@require_GET
def statistics_page(request: HttpRequest) -> HttpResponse:
    selection, errors = _selection(request)
    stats = registry_statistics(selection)
    query = request.GET.urlencode() if not errors else ""
    context = {
        "stats": stats,
        "errors": errors,
        "selection": selection,
        "query": query,
        "calls": Call.objects.order_by("title").values_list("slug", "title"),
        # Built by publicrecord.figures, which escapes every label.
        "completeness_svg": mark_safe(figure("completeness", stats)),
        "figures": [
            (name, FIGURE_TITLES[name], mark_safe(figure(name, stats)))
            for name in FIGURE_TITLES
        ],
    }
    return render(request, "publicrecord/statistics.html", context)


@require_GET
def statistics_download(request: HttpRequest) -> HttpResponse:
    selection, errors = _selection(request)
    if errors:
        return HttpResponse(
            "; ".join(f"{k}: {v}" for k, v in errors.items()),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    return csv_response(registry_statistics(selection))


@require_GET
def statistics_figure(request: HttpRequest, name: str) -> HttpResponse:
    selection, errors = _selection(request)
    if errors:
        return HttpResponse(str(errors), status=400, content_type="text/plain")
    svg = figure(name, registry_statistics(selection))
    if svg is None:
        raise Http404("No such figure.")
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=300"
    return response


@login_required
def profile_page(request: HttpRequest) -> HttpResponse:
    """Name and ORCID iD as they appear in the citations of one's registrations."""
    errors: dict[str, str] = {}
    values = me_data(request.user)
    if request.method == "POST":
        changes = {name: request.POST.get(name, "") for name in EDITABLE}
        try:
            update_me(request.user, changes)
        except ValidationError as exc:
            errors = {k: " ".join(v) for k, v in exc.message_dict.items()}
            values = {**values, **changes}
        else:
            messages.success(request, "Profile saved.")
            return redirect("publicrecord:profile")
    return render(
        request, "publicrecord/profile.html", {"values": values, "errors": errors}
    )
