"""Reviewer pages: "My reviews" (with decline) and the review page (the
proposal read-only with the design checks, what changed since the last review,
the review form, and the co-reviewers' reviews once one's own is in)."""

from __future__ import annotations

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

NO_DECLINE_REASON = "reason: give a reason for declining."


def _decline_form(assignment, data=None) -> DeclineForm:
    form = DeclineForm(data, prefix=f"decline-{assignment.pk}")
    form.helper.form_action = reverse("reviews:decline", args=[assignment.pk])
    return form


@login_required
def my_reviews(request):
    page = html_page(request, selectors.assignments_of(request.user))
    rows = [
        (
            a,
            _decline_form(a) if a.status == AssignmentStatus.ASSIGNED else None,
        )
        for a in page.object_list
    ]
    return render(
        request,
        "reviews/my_reviews.html",
        {"rows": rows, "page": page, "today": timezone.localdate()},
    )


@login_required
@require_POST
def decline(request, pk: int):
    assignment = own_assignment(request, pk)
    form = _decline_form(assignment, request.POST)
    if not form.is_valid():
        messages.error(request, NO_DECLINE_REASON)
        return redirect("reviews:mine")
    try:
        services.decline_assignment(
            assignment=assignment,
            actor=request.user,
            reason=form.cleaned_data["reason"],
        )
    except ValidationError as exc:  # e.g. a reason over the length limit
        messages.error(request, _refusal_text(exc))
    except services.ReviewConflictError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Declined “{assignment.challenge.name}”.")
    return redirect("reviews:mine")


def _refusal_text(error: ValidationError) -> str:
    """The service's reasons, each after the field it names."""
    return " ".join(
        f"{field}: {message}"
        for field, field_messages in error.message_dict.items()
        for message in field_messages
    )


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
