"""Organizer pages of the review cycle: resubmitting a revision with a
response letter (the status panel lives on the registry overview)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse

from registry.links import missing_with_links
from registry.selectors import completeness_of
from registry.services import TransitionError

from .. import services
from ..access import organized_challenge
from ..forms import ResubmitForm


@login_required
def resubmit(request, pk: int):
    challenge = organized_challenge(request, pk)
    form = ResubmitForm(request.POST or None)
    form.helper.form_action = reverse("reviews:resubmit", args=[challenge.pk])
    refused, status = "", 200
    refusal = services.resubmit_refusal(challenge)
    if refusal is not None:
        refused = str(refusal)
        status = 409 if request.method == "POST" else 200
    elif request.method == "POST" and form.is_valid():
        try:
            services.resubmit_challenge(
                challenge=challenge,
                actor=request.user,
                response=form.cleaned_data["response"],
            )
        except ValidationError as exc:
            form.add_service_errors(exc)
            status = 400
        except TransitionError as exc:  # IncompleteError included
            refused, status = str(exc), 409
        else:
            messages.success(
                request,
                f"Revision {challenge.revision} resubmitted; the reviewers have "
                "been notified.",
            )
            return redirect("registry:overview", challenge.pk)
    elif request.method == "POST":
        status = 400
    completeness = completeness_of(challenge)
    context = {
        "challenge": challenge,
        "form": form,
        "refused": refused,
        "incomplete": bool(refused) and not completeness.can_submit,
        "completeness": completeness,
        "missing": missing_with_links(challenge, completeness),
        "decision": challenge.decisions.last(),
    }
    return render(request, "reviews/resubmit.html", context, status=status)
