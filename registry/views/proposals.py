"""Home, dashboard, and a proposal's life: create, overview, submit, copy, delete."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from registry.pagination import html_page

from .. import services
from ..access import owned_challenge, visible_challenge
from ..enums import ChallengeStatus
from ..forms import CoOrganizerForm, NewProposalForm, TaskNameForm
from ..links import missing_with_links
from ..models import Call, Challenge
from ..overview import proposal_parts
from ..page_cache import cache_public_get
from ..parameters import OUTCOME_GROUP
from ..permissions import (
    PUBLIC_STATES,
    can_edit_challenge,
    can_manage_organizers,
    is_organizer,
)
from ..planning import PLANNING_QUESTIONS, unanswered_planning
from ..registration import registration_refusal
from ..selectors import (
    completeness_of,
    completeness_of_many,
    proposals_of,
    proposals_waiting_for,
)


@cache_public_get
def home(request):
    calls = Call.objects.all()[:20]
    registered = Challenge.objects.filter(
        status__in=PUBLIC_STATES, registration__isnull=False
    ).select_related("call", "registration")[:50]
    return render(
        request, "registry/home.html", {"calls": calls, "registered": registered}
    )


@login_required
def dashboard(request):
    page = html_page(request, proposals_of(request.user).order_by("-updated", "-id"))
    completeness = completeness_of_many(page.object_list)
    rows = [(c, completeness[c.pk].submission) for c in page.object_list]
    waiting = proposals_waiting_for(request.user)
    done = completeness_of_many(waiting)
    context = {
        "rows": rows,
        "page": page,
        "waiting": [(c, done[c.pk].submission) for c in waiting],
    }
    return render(request, "registry/dashboard.html", context)


@login_required
def new_proposal(request):
    form = NewProposalForm(request.POST or None)
    if form.is_valid():
        try:
            challenge = services.create_challenge(
                owner=request.user,
                call=form.cleaned_data["call"],
                name=form.cleaned_data["name"],
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, "Proposal created. Add its tasks next.")
            return redirect("registry:overview", challenge.pk)
    return render(request, "registry/new_proposal.html", {"form": form})


def _render_overview(request, challenge: Challenge, *, refused=None, status=200):
    completeness = completeness_of(challenge)
    registration = (
        getattr(challenge, "registration", None)
        if challenge.status == ChallengeStatus.REGISTERED
        else None
    )
    context = {
        "challenge": challenge,
        "completeness": completeness,
        "parts": proposal_parts(challenge, completeness),
        "missing": missing_with_links(challenge, completeness),
        "refused": refused,
        "planning_questions": [
            (q, challenge.planning.get(q.key)) for q in PLANNING_QUESTIONS
        ],
        "unanswered_planning": unanswered_planning(challenge.planning),
        "can_edit": can_edit_challenge(request.user, challenge),
        "can_manage": can_manage_organizers(request.user, challenge),
        "is_organizer": is_organizer(request.user, challenge),
        "task_form": TaskNameForm(),
        "organizer_form": CoOrganizerForm(),
        "co_organizers": challenge.co_organizers.all(),
        "can_register": challenge.status == ChallengeStatus.ACCEPTED
        and registration_refusal(request.user, challenge) is None,
        "registration": registration,
        "registered_version": registration.versions.order_by("-number").first()
        if registration
        else None,
        # A registered design is a record: unanswered is "not applicable".
        "public": challenge.status in PUBLIC_STATES,
        "outcome_group": OUTCOME_GROUP,
    }
    return render(request, "registry/overview.html", context, status=status)


@login_required
def overview(request, pk: int):
    return _render_overview(request, visible_challenge(request, pk))


@login_required
@require_POST
def submit_proposal(request, pk: int):
    challenge = visible_challenge(request, pk)
    try:
        services.submit_challenge(challenge=challenge, actor=request.user)
    except services.IncompleteError as exc:
        return _render_overview(request, challenge, refused=str(exc))
    except services.TransitionError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Proposal submitted.")
    return redirect("registry:overview", challenge.pk)


@login_required
@require_POST
def duplicate_proposal(request, pk: int):
    challenge = visible_challenge(request, pk)
    if not is_organizer(request.user, challenge):
        raise PermissionDenied("Only organizers can duplicate their proposal.")
    copy = services.duplicate_challenge(challenge=challenge, actor=request.user)
    messages.success(request, f"Created “{copy.name}”.")
    return redirect("registry:overview", copy.pk)


@login_required
def delete_proposal(request, pk: int):
    challenge = owned_challenge(request, pk)
    if request.method == "POST":
        try:
            services.delete_draft(challenge=challenge, actor=request.user)
        except services.TransitionError as exc:
            messages.error(request, str(exc))
            return redirect("registry:overview", challenge.pk)
        messages.success(request, f"Deleted “{challenge.name}”.")
        return redirect("registry:dashboard")
    return render(request, "registry/confirm_delete.html", {"challenge": challenge})
