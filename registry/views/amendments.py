"""Amendments of a registered design: organizers propose, chairs decide.

The list is public (no sign-in): anyone sees the approved amendments, i.e.
how each version came about, like the API. Pending and rejected amendments, and
the propose and decide pages, are for the registration's organizers and the
call's chairs only (404 for anyone else).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from ..amendments import (
    amendment_decision_refusal,
    approve_amendment,
    propose_amendment,
    reject_amendment,
)
from ..chair_conflicts import may_act_for_call
from ..design import diff_designs
from ..forms.amendment import AmendmentForm
from ..models import AmendmentStatus, Registration
from ..permissions import is_organizer
from ..public import amended_design, version_design
from ..selectors import amendment_numbers
from ..services import TransitionError


class DecisionForm(forms.Form):
    note = forms.CharField(
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 2, "class": "form-control"}),
    )


def _registration(request, identifier: str) -> Registration:
    registration = get_object_or_404(
        Registration.objects.select_related("challenge__call"), identifier=identifier
    )
    challenge = registration.challenge
    if not (
        is_organizer(request.user, challenge)
        or may_act_for_call(request.user, challenge)
    ):
        raise Http404("No such registration.")
    return registration


@require_GET
def amendment_list(request, identifier: str):
    registration = get_object_or_404(
        Registration.objects.select_related("challenge__call"), identifier=identifier
    )
    challenge = registration.challenge
    insider = is_organizer(request.user, challenge) or may_act_for_call(
        request.user, challenge
    )
    # a chair in conflict sees why the decision is another chair's
    decide_refusal = (
        amendment_decision_refusal(request.user, challenge) if insider else None
    )
    latest = registration.versions.order_by("-number").first()
    design = version_design(latest)
    rows = []
    amendments = registration.amendments.select_related(
        "proposed_by__profile", "decided_by__profile", "version"
    )
    numbers = amendment_numbers(registration)
    if not insider:
        amendments = amendments.filter(status=AmendmentStatus.APPROVED)
    for amendment in amendments:
        amendment.number = numbers[amendment.pk]
        changes = None
        if amendment.status == AmendmentStatus.PENDING:
            try:
                changes = diff_designs(
                    design, amended_design(design, amendment.changes)
                )
            except (KeyError, ValueError):
                changes = None  # stale: approval re-validates and refuses it
        rows.append((amendment, changes))
    context = {
        "registration": registration,
        "latest": latest,
        "rows": rows,
        "can_decide": insider and decide_refusal is None,
        "decide_refusal": decide_refusal
        if may_act_for_call(request.user, challenge)
        else None,
        "can_amend": is_organizer(request.user, challenge),
        "insider": insider,
        "decision_form": DecisionForm(),
    }
    return render(request, "registry/amendments.html", context)


@login_required
def propose(request, identifier: str):
    registration = _registration(request, identifier)
    if not is_organizer(request.user, registration.challenge):
        raise PermissionDenied("Only the organizers propose amendments.")
    form = AmendmentForm(
        request.POST if request.method == "POST" else None,
        challenge=registration.challenge,
    )
    if request.method == "POST" and form.is_valid():
        try:
            amendment = propose_amendment(
                registration=registration,
                actor=request.user,
                justification=form.justification_text,
                changes=form.cleaned_changes,
            )
        except ValidationError as exc:
            form.errors += [
                f"{key}: {message}" if key != "__all__" else message
                for key, messages_ in exc.message_dict.items()
                for message in messages_
            ]
        else:
            messages.success(
                request,
                f"Proposed amendment {amendment.pk}; a chair of the call decides.",
            )
            return redirect("registry:amendments", registration.identifier)
    invalid = request.method == "POST"
    if invalid:
        messages.error(request, "Nothing was proposed: correct the marked fields.")
    return render(
        request,
        "registry/propose_amendment.html",
        {"registration": registration, "form": form},
        status=400 if invalid else 200,
    )


@login_required
@require_POST
def decide(request, identifier: str, amendment_pk: int):
    registration = _registration(request, identifier)
    amendment = get_object_or_404(registration.amendments, pk=amendment_pk)
    form = DecisionForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    approve = request.POST.get("decision") == "approve"
    try:
        if approve:
            version = approve_amendment(
                amendment=amendment, actor=request.user, note=note
            )
        else:
            reject_amendment(amendment=amendment, actor=request.user, note=note)
    except (TransitionError, ValidationError) as exc:
        text = "; ".join(exc.messages) if isinstance(exc, ValidationError) else exc
        messages.error(request, f"Not decided: {text}")
        return redirect("registry:amendments", registration.identifier)
    if approve:
        messages.success(request, f"Approved: version {version.number} registered.")
        return redirect("registry:public-detail", registration.identifier)
    messages.success(request, f"Rejected amendment {amendment.pk}.")
    return redirect("registry:amendments", registration.identifier)
