"""Chair pages: the calls they chair, a call's submissions at a glance, and one
proposal's review management (assignments, suggestions, reviews, decision)."""

from __future__ import annotations

from collections import Counter

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.models import display_name
from registry.enums import ChallengeStatus
from registry.models import Call
from registry.pagination import html_page
from registry.selectors import pending_amendments
from registry.services import TransitionError

from .. import selectors, services
from ..access import (
    chair_action_challenge,
    chaired_assignment,
    chaired_call,
    chaired_challenge,
)
from ..enums import ReviewerRole
from ..forms import AssignForm, DecisionForm


@login_required
def calls(request):
    chaired = Call.objects.all() if request.user.is_staff else None
    if chaired is None:
        chaired = request.user.chaired_calls.all()
    pending = Counter(
        pending_amendments(chaired).values_list(
            "registration__challenge__call", flat=True
        )
    )
    rows = [(call, pending[call.pk]) for call in chaired]
    return render(request, "reviews/calls.html", {"calls": rows})


@login_required
def call_overview(request, pk: int):
    call = chaired_call(request, pk)
    status = request.GET.get("status", "")
    if status not in ChallengeStatus.values:
        status = ""
    sort = request.GET.get("sort", "name")
    if sort.removeprefix("-") not in selectors.SUBMISSION_ORDER:
        sort = "name"
    page = html_page(request, selectors.submissions_of(call, status=status, sort=sort))
    columns = [
        (name, label, f"-{name}" if sort == name else name)
        for name, label in (
            ("name", "Challenge"),
            ("status", "Status"),
            ("completeness", "Submission completeness"),
            ("reviews", "Reviews in"),
            ("due", "Next review due"),
        )
    ]
    return render(
        request,
        "reviews/call_overview.html",
        {
            "call": call,
            "drafts": call.challenges.filter(status=ChallengeStatus.DRAFT).count(),
            "amendments": pending_amendments([call]),
            "rows": selectors.submission_rows(page.object_list),
            "page": page,
            "columns": columns,
            "sortable": set(selectors.SUBMISSION_ORDER),
            "sort": sort,
            "status": status,
            "statuses": [
                c for c in ChallengeStatus.choices if c[0] != ChallengeStatus.DRAFT
            ],
        },
    )


def _decision_form(challenge, data=None, *, warnings=None) -> DecisionForm:
    """``warnings``: the challenge's decision warnings when the caller has
    them already (one query fewer)."""
    if warnings is None:
        warnings = selectors.decision_warnings(challenge)
    form = DecisionForm(
        data,
        prefix="decision",
        initial={"letter": selectors.draft_decision_letter(challenge)},
    )
    form.helper.form_action = reverse("reviews:decide", args=[challenge.pk])
    form.helper.form_id = "decision-form"
    form.helper.inputs[0].id = "submit-decision"  # two forms on one page
    if warnings:
        # Shown next to the form before the chair decides, not only after.
        form.show_confirmation()
    return form


def _assign_form(challenge, data=None) -> AssignForm:
    form = AssignForm(data, prefix="assign")
    form.helper.form_action = reverse("reviews:assign", args=[challenge.pk])
    form.helper.form_id = "assign-form"
    form.helper.inputs[0].id = "submit-assign"
    return form


def _render_manage(
    request,
    challenge,
    *,
    assign_form=None,
    decision_form=None,
    refused="",
    assign_warnings=(),
    role_change=None,
    status=200,
):
    labels = selectors.reviewer_labels(challenge)
    assignments = selectors.assignments_on(challenge)
    reviews = selectors.visible_review_data(request.user, challenge, labels=labels)
    warnings = selectors.decision_warnings(challenge)
    context = {
        "challenge": challenge,
        "progress": selectors.review_progress(challenge),
        "assignments": [
            {
                **selectors.assignment_data(a, label=labels[a.reviewer_id]),
                "person": a.reviewer,
                "reviewed": a.reviews.exists(),
            }
            for a in assignments
        ],
        "role_choices": ReviewerRole.choices,
        "can_change": challenge.status in services.OPEN_REVIEW_STATES,
        "decision_warnings": warnings,
        "assign_warnings": assign_warnings,
        "role_change": role_change,
        "suggestions": selectors.suggest_reviewers(challenge),
        "reviews": reviews,
        "decisions": challenge.decisions.all(),
        "can_assign": challenge.status in services.ASSIGNABLE_STATES,
        "can_decide": challenge.status == ChallengeStatus.UNDER_REVIEW,
        "assign_form": assign_form or _assign_form(challenge),
        "decision_form": decision_form or _decision_form(challenge, warnings=warnings),
        "refused": refused,
    }
    return render(request, "reviews/manage.html", context, status=status)


@login_required
def manage(request, pk: int):
    return _render_manage(request, chaired_challenge(request, pk))


@login_required
@require_POST
def assign(request, pk: int):
    challenge = chair_action_challenge(request, pk)
    refusal = services.assign_refusal(challenge)
    if refusal is not None:  # the state before the input
        return _render_manage(request, challenge, refused=str(refusal), status=409)
    form = _assign_form(challenge, request.POST)
    if not form.is_valid():
        return _render_manage(request, challenge, assign_form=form, status=400)
    try:
        assignment = services.assign_reviewer(
            challenge=challenge,
            reviewer=form.cleaned_data["reviewer"],
            role=form.cleaned_data["role"],
            due=form.cleaned_data["due"],
            confirm=form.cleaned_data["confirm"],
            actor=request.user,
        )
    except ValidationError as exc:
        form.add_service_errors(exc)
        return _render_manage(request, challenge, assign_form=form, status=400)
    except services.UnconfirmedWarningError as exc:
        form.show_confirmation()
        return _render_manage(
            request,
            challenge,
            assign_form=form,
            assign_warnings=exc.warnings,
            status=409,
        )
    except (services.ReviewConflictError, TransitionError) as exc:
        return _render_manage(
            request, challenge, assign_form=form, refused=str(exc), status=409
        )
    messages.success(
        request,
        f"Assigned {display_name(assignment.reviewer)} as "
        f"{assignment.get_role_display().lower()}, due {assignment.due:%-d %b %Y}.",
    )
    return redirect("reviews:manage", challenge.pk)


@login_required
@require_POST
def decide(request, pk: int):
    challenge = chair_action_challenge(request, pk)
    refusal = services.decision_refusal(challenge)
    if refusal is not None:  # the state before the input
        return _render_manage(request, challenge, refused=str(refusal), status=409)
    form = _decision_form(challenge, request.POST)
    if not form.is_valid():
        return _render_manage(request, challenge, decision_form=form, status=400)
    try:
        decision = services.decide(
            challenge=challenge,
            actor=request.user,
            decision=form.cleaned_data["decision"],
            letter=form.cleaned_data["letter"],
            confirm=form.cleaned_data["confirm"],
        )
    except ValidationError as exc:
        form.add_service_errors(exc)
        return _render_manage(request, challenge, decision_form=form, status=400)
    except (TransitionError, services.ReviewConflictError) as exc:
        return _render_manage(
            request, challenge, decision_form=form, refused=str(exc), status=409
        )
    messages.success(
        request,
        f"Decision sent: {decision.get_decision_display().lower()}. "
        "The organizers have been notified.",
    )
    return redirect("reviews:manage", challenge.pk)


@login_required
@require_POST
def unassign(request, pk: int):
    assignment = chaired_assignment(request, pk)
    challenge = assignment.challenge
    try:
        services.unassign_reviewer(assignment=assignment, actor=request.user)
    except (services.ReviewConflictError, TransitionError) as exc:
        return _render_manage(request, challenge, refused=str(exc), status=409)
    messages.success(request, f"Unassigned {display_name(assignment.reviewer)}.")
    return redirect("reviews:manage", challenge.pk)


@login_required
@require_POST
def change_role(request, pk: int):
    assignment = chaired_assignment(request, pk)
    challenge = assignment.challenge
    role = request.POST.get("role", "")
    try:
        assignment = services.change_reviewer_role(
            assignment=assignment,
            role=role,
            actor=request.user,
            confirm=request.POST.get("confirm") == "on",
        )
    except services.UnconfirmedWarningError as exc:
        change = {"assignment": assignment, "role": role, "warnings": exc.warnings}
        return _render_manage(request, challenge, role_change=change, status=409)
    except ValidationError as exc:
        refused = " ".join(m for ms in exc.message_dict.values() for m in ms)
        return _render_manage(request, challenge, refused=refused, status=400)
    except (services.ReviewConflictError, TransitionError) as exc:
        return _render_manage(request, challenge, refused=str(exc), status=409)
    messages.success(
        request,
        f"{display_name(assignment.reviewer)} is now a "
        f"{assignment.get_role_display().lower()}.",
    )
    return redirect("reviews:manage", challenge.pk)
