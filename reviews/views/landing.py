"""Where a person lands after signing in: the page of the role they act in.

Chairs get their call's dashboard (every submission with completeness, review
state, missing reviews and conflicts), reviewers their assignments, organizers
their proposals. Anonymous readers land on the public registry."""

from __future__ import annotations

from django.shortcuts import redirect

from accounts.models import Role
from registry.models import Call

from ..models import Assignment

REVIEWER_ROLES = (Role.REVIEWER, Role.CLINICAL_REVIEWER)


def landing_target(user) -> tuple[str, tuple[int, ...]]:
    """The URL name and arguments of `user`'s landing page."""
    if not user.is_authenticated:
        return "registry:public-list", ()
    chaired = Call.objects.all() if user.is_staff else user.chaired_calls.all()
    calls = list(chaired.order_by("pk").values_list("pk", flat=True)[:2])
    if len(calls) == 1:
        return "reviews:call", (calls[0],)
    if calls:
        return "reviews:calls", ()
    role = getattr(getattr(user, "profile", None), "role", "")
    if role in REVIEWER_ROLES or Assignment.objects.filter(reviewer=user).exists():
        return "reviews:mine", ()
    return "registry:dashboard", ()


def landing(request):
    name, args = landing_target(request.user)
    return redirect(name, *args)
