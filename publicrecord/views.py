"""Pages of the public record: registry statistics (no sign-in needed), and the
signed-in user's citation profile."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from analysis.deviations import DEVIATION_CODES
from registry.access import public_registration
from registry.models import Call, Registration
from registry.pagination import html_page

from . import orcid_signin
from .api import csv_response
from .feedback import (
    RateLimitedError,
    answer_feedback,
    can_answer,
    can_moderate,
    hide_feedback,
    max_chars,
    post_feedback,
    thread,
)
from .figures import FIGURE_TITLES, figure
from .follow_up import FollowUpFilters, follow_up_list, parse_follow_up_filters
from .models import Feedback, FeedbackCategory
from .profiles import EDITABLE, me_data, update_me
from .selection import Selection, parse_selection
from .statistics import registry_statistics


def _selection(request: HttpRequest) -> tuple[Selection, dict[str, str]]:
    try:
        return parse_selection(request.GET), {}
    except ValidationError as exc:
        return Selection(), {k: " ".join(v) for k, v in exc.message_dict.items()}


def _follow_up(request: HttpRequest, selection: Selection, errors: dict) -> dict:
    """The follow-the-registration list of the page: its filters and a page."""
    try:
        filters = parse_follow_up_filters(request.GET)
    except ValidationError as exc:
        errors.update({k: " ".join(v) for k, v in exc.message_dict.items()})
        filters = FollowUpFilters()
    return {
        "follow_filters": filters,
        "follow_page": html_page(request, follow_up_list(selection, filters)),
        "deviation_codes": DEVIATION_CODES,
    }


@require_GET
def statistics_page(request: HttpRequest) -> HttpResponse:
    selection, errors = _selection(request)
    stats = registry_statistics(selection)
    follow = _follow_up(request, selection, errors)
    query = request.GET.urlencode() if not errors else ""
    context = {
        **follow,
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


def _bad_filter(errors: dict[str, str]) -> HttpResponse:
    """400 for a download with a bad filter: one sentence per field."""
    return HttpResponse(
        "; ".join(f"{k}: {v}" for k, v in errors.items()),
        status=400,
        content_type="text/plain; charset=utf-8",
    )


@require_GET
def statistics_download(request: HttpRequest) -> HttpResponse:
    selection, errors = _selection(request)
    if errors:
        return _bad_filter(errors)
    return csv_response(registry_statistics(selection))


@require_GET
def statistics_figure(request: HttpRequest, name: str) -> HttpResponse:
    selection, errors = _selection(request)
    if errors:
        return _bad_filter(errors)
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
    context = {
        "values": values,
        "errors": errors,
        "orcid_signin": orcid_signin.enabled(),
    }
    return render(request, "publicrecord/profile.html", context)


# --- open feedback ---------------------------------------------------------------


def _thread_context(request: HttpRequest, registration, **extra) -> dict:
    user = request.user
    page = html_page(request, thread(registration))
    return {
        "registration": registration,
        "items": page.object_list,
        "page": page,
        "categories": FeedbackCategory.choices,
        "can_answer": can_answer(user, registration),
        "can_moderate": can_moderate(user, registration),
        "max_chars": max_chars(),
        **extra,
    }


def _refused(request: HttpRequest, registration, exc: Exception, **extra):
    if isinstance(exc, ValidationError):
        errors = {k: " ".join(v) for k, v in exc.message_dict.items()}
    else:
        errors = {"form": str(exc)}
    context = _thread_context(request, registration, errors=errors, **extra)
    status = 429 if isinstance(exc, RateLimitedError) else 400
    return render(request, "publicrecord/feedback.html", context, status=status)


def feedback_page(request: HttpRequest, identifier: str) -> HttpResponse:
    """The public thread; signed-in users post a comment here."""
    registration = public_registration(identifier)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        posted = {k: request.POST.get(k, "") for k in ("category", "text")}
        try:
            post_feedback(registration=registration, author=request.user, **posted)
        except (ValidationError, RateLimitedError) as exc:
            return _refused(request, registration, exc, posted=posted)
        messages.success(request, "Your comment is published.")
        return redirect("publicrecord:feedback", identifier)
    return render(
        request, "publicrecord/feedback.html", _thread_context(request, registration)
    )


def _thread_comment(identifier: str, pk: int) -> tuple[Registration, Feedback]:
    """A comment of a registration's public thread, and the registration; 404
    if either is not there."""
    registration = public_registration(identifier)
    return registration, get_object_or_404(Feedback, pk=pk, registration=registration)


@login_required
@require_POST
def feedback_answer(request: HttpRequest, identifier: str, pk: int) -> HttpResponse:
    registration, feedback = _thread_comment(identifier, pk)
    try:
        answer_feedback(
            feedback=feedback, author=request.user, text=request.POST.get("text", "")
        )
    except (ValidationError, RateLimitedError) as exc:
        return _refused(request, registration, exc, failed=feedback.pk)
    messages.success(request, "Your answer is published.")
    return redirect("publicrecord:feedback", identifier)


@login_required
@require_POST
def feedback_hide(request: HttpRequest, identifier: str, pk: int) -> HttpResponse:
    registration, feedback = _thread_comment(identifier, pk)
    try:
        hide_feedback(
            feedback=feedback, actor=request.user, reason=request.POST.get("reason", "")
        )
    except ValidationError as exc:
        return _refused(request, registration, exc, failed=feedback.pk)
    messages.success(request, "The comment is hidden; the reason is shown instead.")
    return redirect("publicrecord:feedback", identifier)
