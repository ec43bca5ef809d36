"""A reviewer's conflicts of interest: the ones declared, and a form to declare
another (with an institution, or with one proposal they were asked to review).
Declaring re-checks the reviewer's open assignments at once."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse

from registry.models import Challenge

from .. import selectors, services
from ..forms import ConflictForm


def _proposals(user) -> list[Challenge]:
    """Proposals the user was asked to review (the only ones they may name)."""
    return list(
        Challenge.objects.filter(assignments__reviewer=user).order_by("name").distinct()
    )


@login_required
def conflicts(request):
    proposals = _proposals(request.user)
    form = ConflictForm(request.POST or None, proposals=proposals)
    form.helper.form_action = reverse("reviews:conflicts")
    form.helper.form_id = "conflict-form"
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.declare_conflict(
                    reviewer=request.user,
                    institution=form.cleaned_data["institution"],
                    challenge=form.proposals.get(form.cleaned_data["challenge"]),
                    reason=form.cleaned_data["reason"],
                )
            except ValidationError as exc:
                form.add_service_errors(exc)
            else:
                messages.success(
                    request,
                    "Conflict declared. Assignments it touches are withdrawn and "
                    "the chairs are told.",
                )
                return redirect("reviews:conflicts")
    return render(
        request,
        "reviews/conflicts.html",
        {"form": form, "declared": selectors.declared_conflicts(request.user)},
        status=status,
    )
