"""Reviewer pages: "My reviews" (with decline) and the review page (the
proposal read-only with the design checks, what changed since the last review,
the review form, and the co-reviewers' reviews once one's own is in)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from registry.overview import frozen_parts, proposal_parts
from registry.pagination import html_page
from registry.selectors import completeness_of
from registry.services import TransitionError

from .. import selectors, services
from ..access import own_assignment, reviewed_challenge
from ..enums import AssignmentStatus
from ..forms import DeclineForm, ReviewForm


def _decline_form(assignment, page: int | str | None, data=None) -> DeclineForm:
    form = DeclineForm(data, prefix=f"decline-{assignment.pk}")
    # posted back to the page it is on, which a refusal shows again
    form.helper.form_action = _on_page(
        reverse("reviews:decline", args=[assignment.pk]), page
    )
    return form


def _on_page(url: str, page: int | str | None) -> str:
    """`url` on the list page `page` (html_page clamps a bad one)."""
    return url if page in (None, "", 1, "1") else f"{url}?{urlencode({'page': page})}"


@login_required
def my_reviews(request):
    return _render_my_reviews(request)


def _render_my_reviews(request, *, failed=None, refused: str = "", status=200):
    """My reviews; ``failed`` is a decline form with errors, shown open in
    its row with what was typed."""
    page = html_page(request, selectors.assignments_of(request.user))
    rows = []
    for a in page.object_list:
        form = None
        if a.status == AssignmentStatus.ASSIGNED:
            form = _decline_form(a, page.number)
            if failed is not None and failed.prefix == form.prefix:
                form = failed
        rows.append((a, form))
    context = {
        "waiting": selectors.reviews_to_write(request.user),
        "rows": rows,
        "page": page,
        "today": timezone.localdate(),
        "refused": refused,
    }
    return render(request, "reviews/my_reviews.html", context, status=status)


@login_required
@require_POST
def decline(request, pk: int):
    assignment = own_assignment(request, pk)
    refusal = services.decline_refusal(assignment)
    if refusal is not None:  # the state before the input
        return _render_my_reviews(request, refused=str(refusal), status=409)
    page = request.GET.get("page")
    form = _decline_form(assignment, page, request.POST)
    if form.is_valid():
        try:
            services.decline_assignment(
                assignment=assignment,
                actor=request.user,
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as exc:  # e.g. a reason over the length limit
            form.add_service_errors(exc)
        except services.ReviewConflictError as exc:  # declined meanwhile
            return _render_my_reviews(request, refused=str(exc), status=409)
        else:
            messages.success(request, f"Declined “{assignment.challenge.name}”.")
            return redirect(_on_page(reverse("reviews:mine"), page))
    return _render_my_reviews(request, failed=form, status=400)


def _render_review(request, challenge, assignment, *, form, refused="", status=200):
    labels = selectors.reviewer_labels(challenge)
    diff = selectors.revision_diff_for(assignment)
    design = selectors.reviewed_design(challenge)
    parts = (
        frozen_parts(challenge, design)
        if design
        else proposal_parts(challenge, completeness_of(challenge))
    )
    context = {
        "challenge": challenge,
        "assignment": assignment,
        "label": labels.get(assignment.reviewer_id, "Reviewer"),
        "parts": parts,
        "design": design,
        "can_edit": False,
        "form": form,
        "refused": refused,
        "diff": diff,
        "reviews": selectors.visible_review_data(
            request.user, challenge, labels=labels
        ),
    }
    return render(request, "reviews/review.html", context, status=status)


@login_required
def review(request, pk: int):
    challenge, assignment = reviewed_challenge(request, pk)
    refusal = services.review_refusal(challenge, assignment)
    if refusal is not None:
        if request.method == "POST":
            return _render_review(
                request,
                challenge,
                assignment,
                form=None,
                refused=str(refusal),
                status=409,
            )
        return _render_review(request, challenge, assignment, form=None)
    form = ReviewForm(request.POST or None, challenge=challenge, role=assignment.role)
    if request.method != "POST":
        return _render_review(request, challenge, assignment, form=form)
    if not form.is_valid():
        return _render_review(request, challenge, assignment, form=form, status=400)
    try:
        services.submit_review(
            challenge=challenge, actor=request.user, **form.review_kwargs()
        )
    except ValidationError as exc:
        form.add_service_errors(exc)
        return _render_review(request, challenge, assignment, form=form, status=400)
    except (TransitionError, services.ReviewConflictError) as exc:
        return _render_review(
            request, challenge, assignment, form=None, refused=str(exc), status=409
        )
    messages.success(
        request,
        f"Review of revision {challenge.revision} submitted. The other reviews "
        "of this revision are now visible to you.",
    )
    return redirect("reviews:review", challenge.pk)
