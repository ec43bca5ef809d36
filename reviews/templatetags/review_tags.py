"""Review panels that other apps' pages include: the navbar entries by role, the
review status panel of a proposal overview, and the design checks panel.
Every one reads through `reviews.selectors` / `reviews.checks` with the viewer,
so the blind-review rules hold wherever a panel appears."""

from __future__ import annotations

from django import template
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef
from django.urls import reverse

from accounts.models import Role
from registry.design import design_of
from registry.enums import ChallengeStatus
from registry.links import parameter_url
from registry.models import Call
from registry.parameters import BY_NUMBER
from registry.permissions import is_organizer

from .. import selectors
from ..checks import checks_for
from ..enums import (
    ACTIVE_ASSIGNMENT_STATES,
    AssignmentStatus,
    DecisionKind,
    Recommendation,
    ReviewerRole,
)
from ..models import Assignment

register = template.Library()

REVIEWER_ROLES = (Role.REVIEWER, Role.CLINICAL_REVIEWER)


@register.simple_tag(takes_context=True)
def review_roles(context) -> dict[str, bool]:
    """Which review menus the signed-in user gets (chair, reviewer), in one
    query per page."""
    user = context["user"]
    if not user.is_authenticated:
        return {"chair": False, "reviewer": False}
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .annotate(
            chairs=Exists(Call.objects.filter(chairs=OuterRef("pk"))),
            assigned=Exists(Assignment.objects.filter(reviewer=OuterRef("pk"))),
        )
        .values("chairs", "assigned", "profile__role")
        .first()
    ) or {}
    return {
        "chair": user.is_staff or bool(row.get("chairs")),
        "reviewer": bool(row.get("assigned"))
        or row.get("profile__role") in REVIEWER_ROLES,
    }


@register.inclusion_tag("reviews/includes/_review_panel.html", takes_context=True)
def review_panel(context, challenge) -> dict:
    """Timeline, decisions and the reviews the viewer may see (blind)."""
    user = context["user"]
    assignment = selectors.assignment_of(user, challenge)
    sees = selectors.sees_identities(user, challenge)
    return {
        "challenge": challenge,
        "history": selectors.history_of(challenge, viewer=user, sees=sees),
        "decisions": selectors.decisions_visible_to(user, challenge, sees=sees),
        "reviews": selectors.visible_review_data(user, challenge, sees=sees),
        "is_organizer": is_organizer(user, challenge),
        "is_chair": sees,
        "is_reviewer": assignment is not None
        and assignment.status in ACTIVE_ASSIGNMENT_STATES,
        "revision_requested": challenge.status == ChallengeStatus.REVISION_REQUESTED,
    }


def _check_link(challenge, check, tasks: dict[str, int], links: str) -> str:
    if check.parameter is None:
        return ""
    task_id = tasks.get(check.task) if check.task else None
    if links == "editor":
        return parameter_url(challenge, BY_NUMBER[check.parameter], task_id)
    key = BY_NUMBER[check.parameter].key
    anchor = f"#t{task_id}-{key}" if task_id else f"#{key}"
    if links == "overview":
        return reverse("registry:overview", args=[challenge.pk]) + anchor
    return anchor


@register.inclusion_tag("reviews/includes/_checks.html")
def design_checks(challenge, links: str = "anchor", design=None) -> dict:
    """The automatic design checks of `design` (default: the current design),
    each linking to its field: in the editor (`links="editor"`), on the
    overview ("overview"), or to the row anchor on the same page ("anchor")."""
    tasks = {t.name: t.pk for t in challenge.tasks.all()}
    checks = checks_for(design or design_of(challenge))
    return {
        "checks": [
            (
                check,
                BY_NUMBER.get(check.parameter) if check.parameter else None,
                _check_link(challenge, check, tasks, links),
            )
            for check in checks
        ]
    }


LABELS = {
    **dict(Recommendation.choices),
    **dict(ReviewerRole.choices),
    **dict(AssignmentStatus.choices),
    **dict(DecisionKind.choices),
    **dict(ChallengeStatus.choices),
}


@register.filter
def review_label(value: str) -> str:
    """The display label of a recommendation, reviewer role, assignment status
    or decision value."""
    return LABELS.get(value, value)
