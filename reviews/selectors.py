"""Reads for peer review: who sees which review, labels, history, diffs,
reviewer suggestions and reminders. Blind review lives here:

* chairs of the call (unless in conflict with the proposal, see
  `conflicts.chair_refusal`) and staff see every review with the reviewer's
  name and the confidential comments;
* a reviewer sees their own reviews, and the co-reviewers' reviews of a
  revision only after submitting their own review of that revision;
* organizers see the reviews of revisions that have been decided on;
* everybody except chairs and staff sees reviewers only as "Reviewer N"
  (numbered by assignment order) and never sees others' confidential comments.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Count, F, Min, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone

from accounts.models import Role, display_name
from registry.design import Design, DesignDiff, diff_designs
from registry.enums import ChallengeStatus
from registry.models import Challenge
from registry.parameters import BY_NUMBER
from registry.parameters import Role as ParameterRole
from registry.permissions import is_organizer
from registry.selectors import completeness_of_many

from .conflicts import chair_refusal, conflict_reasons
from .enums import ACTIVE_ASSIGNMENT_STATES, AssignmentStatus, ReviewerRole
from .models import Assignment, ConflictDeclaration, ProposalVersion, Review

# Parameters whose choices describe what a proposal is about (for suggestions).
TOPIC_PARAMETERS = tuple(
    role.number
    for role in (
        ParameterRole.FIELD_OF_APPLICATION,
        ParameterRole.TASK_CATEGORY,
        ParameterRole.IMAGING_MODALITY,
    )
)


def user_named(username: Any, *, field: str = "reviewer"):
    """The user called `username`; a ValidationError naming `field` otherwise."""
    user = get_user_model().objects.filter(username=str(username or "")).first()
    if user is None:
        raise ValidationError({field: f"No user {username!r}."})
    return user


def sees_identities(user, challenge: Challenge) -> bool:
    """Staff, and the call's chairs not in conflict with the proposal."""
    return user.is_staff or chair_refusal(user, challenge) is None


def _sees(user, challenge: Challenge, sees: bool | None) -> bool:
    """`sees`, the caller's `sees_identities(user, challenge)` (a conflict check
    costs several queries: a page asks once), or that answer now."""
    return sees_identities(user, challenge) if sees is None else sees


def reviewer_labels(challenge: Challenge) -> dict[int, str]:
    """reviewer id → "Reviewer N", stable by assignment order."""
    return {
        reviewer_id: f"Reviewer {n}"
        for n, reviewer_id in enumerate(
            challenge.assignments.order_by("created", "id").values_list(
                "reviewer_id", flat=True
            ),
            start=1,
        )
    }


def assignment_of(user, challenge: Challenge) -> Assignment | None:
    if not user.is_authenticated:
        return None
    return challenge.assignments.filter(reviewer=user).first()


def reviews_visible_to(
    user, challenge: Challenge, *, sees: bool | None = None
) -> list[Review]:
    reviews = Review.objects.filter(assignment__challenge=challenge).select_related(
        "assignment__reviewer"
    )
    if _sees(user, challenge, sees):
        return list(reviews)
    mine = assignment_of(user, challenge)
    if mine is not None and mine.status in ACTIVE_ASSIGNMENT_STATES:
        reviewed = set(mine.reviews.values_list("revision", flat=True))
        return [r for r in reviews if r.revision in reviewed]
    if is_organizer(user, challenge):
        decided = set(challenge.decisions.values_list("revision", flat=True))
        return [r for r in reviews if r.revision in decided]
    return []


def decisions_visible_to(
    user, challenge: Challenge, *, sees: bool | None = None
) -> QuerySet:
    """The decisions `user` may read: the chairs', the organizers' and the
    proposal's reviewers'. A letter quotes the reviews, which nobody else
    reads, even once the design is registered and public."""
    decisions = challenge.decisions.all()
    if _sees(user, challenge, sees) or is_organizer(user, challenge):
        return decisions
    mine = assignment_of(user, challenge)
    if mine is not None and mine.status in ACTIVE_ASSIGNMENT_STATES:
        return decisions
    return decisions.none()


def review_data(
    review: Review,
    *,
    viewer,
    challenge: Challenge,
    labels,
    sees: bool | None = None,
) -> dict:
    """A review as `viewer` may see it (blind unless chair/staff)."""
    assignment = review.assignment
    mine = assignment.reviewer_id == viewer.pk
    full = _sees(viewer, challenge, sees)
    data: dict[str, Any] = {
        "id": review.pk,
        "reviewer": labels.get(assignment.reviewer_id, "Reviewer"),
        "role": assignment.role,
        "mine": mine,
        "revision": review.revision,
        "recommendation": review.recommendation,
        "confidence": review.confidence,
        "comments": review.comments,
        "sections": review.sections,
        "parameters": review.parameters,
        "clinical_relevance": review.clinical_relevance,
        "submitted": review.submitted,
    }
    if full:
        data["reviewer_username"] = assignment.reviewer.get_username()
        data["reviewer_name"] = display_name(assignment.reviewer)
    if full or mine:
        data["confidential"] = review.confidential
    return data


def visible_review_data(
    viewer,
    challenge: Challenge,
    *,
    labels: dict[int, str] | None = None,
    sees: bool | None = None,
) -> list[dict]:
    """The reviews `viewer` may see, each as `review_data` (pages and API alike);
    `labels` when the caller has them already."""
    labels = reviewer_labels(challenge) if labels is None else labels
    sees = _sees(viewer, challenge, sees)
    return [
        review_data(r, viewer=viewer, challenge=challenge, labels=labels, sees=sees)
        for r in reviews_visible_to(viewer, challenge, sees=sees)
    ]


def declared_conflicts(reviewer) -> QuerySet:
    """The conflicts of interest `reviewer` declared, with the challenge named."""
    return ConflictDeclaration.objects.filter(reviewer=reviewer).select_related(
        "challenge"
    )


def assignment_data(assignment: Assignment, *, label: str) -> dict[str, Any]:
    return {
        "id": assignment.pk,
        "reviewer": assignment.reviewer.get_username(),
        "label": label,
        "role": assignment.role,
        "status": assignment.status,
        "due": assignment.due,
        "decline_reason": assignment.decline_reason,
        "assigned_by": (
            assignment.assigned_by.get_username() if assignment.assigned_by else None
        ),
        "created": assignment.created,
    }


def assignments_on(challenge: Challenge) -> QuerySet:
    """A proposal's assignments, with the people `assignment_data` names."""
    return challenge.assignments.select_related("reviewer", "assigned_by")


def labelled_assignment_data(assignment: Assignment) -> dict[str, Any]:
    """One assignment as `assignment_data`, labelled as its proposal labels it."""
    labels = reviewer_labels(assignment.challenge)
    return assignment_data(assignment, label=labels[assignment.reviewer_id])


def review_progress(challenge: Challenge) -> dict[str, Any]:
    """Active reviewers per role against the call's minimums; reviews in."""
    # (role, status) → active assignments, in one query
    counts = Counter(
        challenge.assignments.filter(status__in=ACTIVE_ASSIGNMENT_STATES)
        .values_list("role", "status")
        .order_by()
    )
    minimum = {
        ReviewerRole.TECHNICAL: challenge.call.min_technical_reviewers,
        ReviewerRole.CLINICAL: challenge.call.min_clinical_reviewers,
    }
    submitted = AssignmentStatus.SUBMITTED.value
    return {
        "revision": challenge.revision,
        "roles": {
            role: {
                "assigned": sum(n for (r, _), n in counts.items() if r == role),
                "reviewed": counts[role, submitted],
                "minimum": minimum[role],
            }
            for role in ReviewerRole.values
        },
        "reviews_in": sum(n for (_, s), n in counts.items() if s == submitted),
        "reviews_due": sum(
            n for (_, s), n in counts.items() if s == AssignmentStatus.ASSIGNED
        ),
    }


def assignment_warnings(reviewer, role: str) -> list[str]:
    """What a chair must confirm before giving `reviewer` this `role`."""
    profile = getattr(reviewer, "profile", None)
    if role == ReviewerRole.TECHNICAL and (
        profile is not None and profile.role == Role.CLINICAL_REVIEWER
    ):
        return [
            f"{display_name(reviewer)} is a clinical reviewer; you are assigning "
            "them to a technical reviewer's slot."
        ]
    return []


def decision_warnings(challenge: Challenge) -> list[str]:
    """What a chair must confirm before deciding on the current revision:
    fewer reviews than the call requires, no clinical reviewer or review."""
    progress = review_progress(challenge)
    roles = progress["roles"]
    required = sum(r["minimum"] for r in roles.values())
    warnings = []
    if progress["reviews_in"] < required:
        warnings.append(
            f"Only {progress['reviews_in']} of the {required} reviews the call "
            f"requires are in for revision {progress['revision']}."
        )
    clinical = roles[ReviewerRole.CLINICAL]
    if clinical["minimum"] and not clinical["assigned"]:
        warnings.append("No clinical reviewer is assigned to this proposal.")
    elif clinical["reviewed"] < clinical["minimum"]:
        warnings.append(
            f"{clinical['reviewed']} of the {clinical['minimum']} clinical reviews "
            "the call requires are in."
        )
    return warnings


def history_of(
    challenge: Challenge, *, viewer, sees: bool | None = None
) -> list[dict[str, Any]]:
    """The timeline; actors who are reviewers appear as "Reviewer N" unless the
    viewer is a chair or staff."""
    labels = {} if _sees(viewer, challenge, sees) else reviewer_labels(challenge)
    return [
        {
            "from": change.from_status,
            "to": change.to_status,
            "when": change.created,
            "who": (
                None
                if change.actor is None
                else labels.get(change.actor_id, change.actor.get_username())
            ),
            # For pages: people by name (reviewers stay "Reviewer N").
            "who_name": (
                None
                if change.actor is None
                else labels.get(change.actor_id, display_name(change.actor))
            ),
            "note": change.note,
        }
        for change in challenge.status_changes.select_related("actor")
    ]


# --- diffs -------------------------------------------------------------------------


def version(challenge: Challenge, revision: int) -> ProposalVersion | None:
    return challenge.versions.filter(revision=revision).first()


def reviewed_design(challenge: Challenge) -> Design | None:
    """The design of the current revision as frozen when it went under review;
    None before that. Reviewers read this, not the live rows: those change
    while a revision is being prepared and, after registration, by amendments."""
    frozen = version(challenge, challenge.revision)
    return Design.from_dict(frozen.snapshot) if frozen else None


def version_diff(before: ProposalVersion, after: ProposalVersion) -> DesignDiff:
    """What changed between two submitted revisions: answers, tasks and each
    task's ranking scheme field by field (the registry's one differ)."""
    return diff_designs(
        Design.from_dict(before.snapshot), Design.from_dict(after.snapshot)
    )


def version_diff_data(before: ProposalVersion, after: ProposalVersion) -> dict:
    """`version_diff` as plain data for the API."""
    diff = version_diff(before, after)
    return {
        "changed": [c.to_dict() for c in diff.changed],
        "added_tasks": diff.added_tasks,
        "removed_tasks": diff.removed_tasks,
    }


# --- chairs ------------------------------------------------------------------------


def proposal_keywords(challenge: Challenge) -> set[str]:
    keywords: set[str] = set()
    for answer in challenge.answers.filter(number__in=TOPIC_PARAMETERS):
        if isinstance(answer.value, dict):
            keywords |= {
                str(c).strip().lower() for c in answer.value.get("choices", [])
            }
    keywords.discard("other")
    return keywords


@dataclass(frozen=True)
class Suggestion:
    user: Any
    score: int
    matched: tuple[str, ...]
    role: str


def suggest_reviewers(challenge: Challenge, *, limit: int = 20) -> list[Suggestion]:
    """Reviewers ranked by the overlap of their expertise keywords with the
    proposal's task categories, imaging modalities and fields of application;
    already assigned and conflicted reviewers are left out."""
    wanted = proposal_keywords(challenge)
    assigned = set(challenge.assignments.values_list("reviewer_id", flat=True))
    candidates = (
        get_user_model()
        .objects.filter(
            is_active=True,
            profile__role__in=[Role.REVIEWER, Role.CLINICAL_REVIEWER],
        )
        .exclude(pk__in=assigned)
        .select_related("profile")
    )
    candidates = list(candidates)
    conflicts = conflict_reasons(candidates, challenge)
    suggestions = []
    for user in candidates:
        matched = tuple(sorted(user.profile.expertise_keywords & wanted))
        if conflicts[user.pk]:
            continue
        role = (
            ReviewerRole.CLINICAL
            if user.profile.role == Role.CLINICAL_REVIEWER
            else ReviewerRole.TECHNICAL
        )
        suggestions.append(Suggestion(user, len(matched), matched, role))
    suggestions.sort(key=lambda s: (-s.score, s.user.get_username()))
    return suggestions[:limit]


def draft_decision_letter(challenge: Challenge) -> str:
    """A letter for the chair to edit, with the anonymised reviews of the
    current revision (no names, no confidential comments): each review's
    section scores and its comments on single parameters. A review by a
    reviewer withdrawn for a conflict of interest is not quoted."""
    labels = reviewer_labels(challenge)
    reviews = Review.objects.filter(
        assignment__challenge=challenge,
        assignment__status__in=ACTIVE_ASSIGNMENT_STATES,
        revision=challenge.revision,
    ).select_related("assignment")
    parts = [
        f'Dear organizers of "{challenge.name}",',
        "",
        f"thank you for submitting revision {challenge.revision} of your proposal. "
        "The reviews follow (scores from 1 = poor to 5 = excellent).",
    ]
    for review in reviews:
        parts += [
            "",
            f"{labels.get(review.assignment.reviewer_id, 'Reviewer')} "
            f"({review.assignment.get_role_display().lower()}): "
            f"{review.get_recommendation_display()}, confidence {review.confidence}/5",
            review.comments,
        ]
        for group, entry in review.sections.items():
            parts.append(f"- {group}: {entry['score']}/5. {entry['comment']}".rstrip())
        parts += _parameter_comment_lines(review.parameters)
    return "\n".join(parts)


def _parameter_comment_lines(comments: list[dict[str, Any]]) -> list[str]:
    """ "- Task Brain, 48. Missing data handling: <comment>" per comment."""
    lines = []
    for entry in comments:
        parameter = BY_NUMBER.get(entry.get("number"))
        name = f"{parameter.number}. {parameter.name}" if parameter else "Parameter"
        task = f"Task {entry['task']}, " if entry.get("task") else ""
        lines.append(f"- {task}{name}: {entry.get('comment', '')}".rstrip())
    return lines


def reviews_due_within(days: int, *, today: dt.date | None = None) -> QuerySet:
    """Pending assignments of proposals under review due in the next `days` days."""
    today = today or timezone.localdate()
    return Assignment.objects.filter(
        status=AssignmentStatus.ASSIGNED,
        challenge__status=ChallengeStatus.UNDER_REVIEW,
        due__gte=today,
        due__lte=today + dt.timedelta(days=days),
    ).select_related("challenge", "reviewer")


# --- pages -------------------------------------------------------------------------


def reviews_to_write(user) -> QuerySet:
    """The reviews `user` still owes on proposals under review, soonest due
    first: the reviewer's to-do list."""
    return (
        Assignment.objects.filter(
            reviewer=user,
            status=AssignmentStatus.ASSIGNED,
            challenge__status=ChallengeStatus.UNDER_REVIEW,
        )
        .select_related("challenge__call")
        .order_by(F("due").asc(nulls_last=True), "id")
    )


def assignments_of(user) -> QuerySet:
    """A reviewer's assignments, newest first, with their proposals."""
    return (
        Assignment.objects.filter(reviewer=user)
        .select_related("challenge__call")
        .order_by("-created", "-id")
    )


def revision_diff_for(assignment: Assignment) -> dict[str, Any] | None:
    """What changed since the last revision `assignment`'s reviewer reviewed,
    with the organizers' response letter; None before any resubmission."""
    challenge = assignment.challenge
    earlier = assignment.reviews.filter(revision__lt=challenge.revision)
    reviewed = max(earlier.values_list("revision", flat=True), default=None)
    if reviewed is None:
        return None
    before, after = version(challenge, reviewed), version(challenge, challenge.revision)
    if before is None or after is None:
        return None
    diff = version_diff(before, after)
    return {
        "from": reviewed,
        "to": challenge.revision,
        "response": after.response,
        "changed": diff.changed,
        "added_tasks": diff.added_tasks,
        "removed_tasks": diff.removed_tasks,
    }


@dataclass(frozen=True)
class Submission:
    """One row of a chair's call overview."""

    challenge: Challenge
    completeness: float
    progress: dict[str, Any]
    next_due: dt.date | None
    missing_reviews: int = 0
    short_roles: tuple[str, ...] = ()
    conflicts: int = 0


def _assignments_counted_any(**where: Any) -> Count:
    """Assignments in any state matching `where` (e.g. withdrawn ones)."""
    return Count(
        "assignments",
        filter=Q(**{f"assignments__{k}": v for k, v in where.items()}),
    )


def _assignments_counted(**where: Any) -> Count:
    active = Q(assignments__status__in=ACTIVE_ASSIGNMENT_STATES)
    return Count(
        "assignments",
        filter=active & Q(**{f"assignments__{k}": v for k, v in where.items()}),
    )


SUBMISSION_ORDER = {
    "name": Lower("name"),
    "status": F("status"),
    "reviews": F("reviews_in"),
    "due": F("next_due"),
}


def submissions_of(call, *, status: str = "", sort: str = "name") -> QuerySet:
    """The proposals submitted to `call` (drafts are the organizers' business),
    filtered and sorted in the database (`sort`: a `SUBMISSION_ORDER` key,
    ``-`` for descending), with their review counts as annotations; turn a page
    of them into rows with `submission_rows`."""
    challenges = call.challenges.exclude(status=ChallengeStatus.DRAFT)
    if status:
        challenges = challenges.filter(status=status)
    counts = {
        "reviews_in": _assignments_counted(status=AssignmentStatus.SUBMITTED),
        "reviews_due": _assignments_counted(status=AssignmentStatus.ASSIGNED),
    }
    for role in ReviewerRole.values:
        counts[f"{role}_assigned"] = _assignments_counted(role=role)
        counts[f"{role}_reviewed"] = _assignments_counted(
            role=role, status=AssignmentStatus.SUBMITTED
        )
    key = SUBMISSION_ORDER[sort.removeprefix("-")]
    order = (
        key.desc(nulls_last=True) if sort.startswith("-") else key.asc(nulls_last=True)
    )
    declared = (
        ConflictDeclaration.objects.filter(challenge=OuterRef("pk"))
        .values("challenge")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        challenges.annotate(
            **counts,
            withdrawn=_assignments_counted_any(status=AssignmentStatus.WITHDRAWN),
            declared_conflicts=Coalesce(Subquery(declared), 0),
            next_due=Min(
                "assignments__due",
                filter=Q(assignments__status=AssignmentStatus.ASSIGNED),
            ),
        )
        .select_related("call")
        .order_by(order, "id")
    )


def submission_rows(challenges) -> list[Submission]:
    """Rows of the call overview for annotated `submissions_of` challenges."""
    challenges = list(challenges)
    completeness = completeness_of_many(challenges)
    rows = []
    for challenge in challenges:
        minimum = {
            ReviewerRole.TECHNICAL: challenge.call.min_technical_reviewers,
            ReviewerRole.CLINICAL: challenge.call.min_clinical_reviewers,
        }
        progress = {
            "revision": challenge.revision,
            "roles": {
                role: {
                    "assigned": getattr(challenge, f"{role}_assigned"),
                    "reviewed": getattr(challenge, f"{role}_reviewed"),
                    "minimum": minimum[role],
                }
                for role in ReviewerRole.values
            },
            "reviews_in": challenge.reviews_in,
            "reviews_due": challenge.reviews_due,
        }
        required = sum(minimum.values())
        rows.append(
            Submission(
                challenge=challenge,
                completeness=completeness[challenge.pk].submission.percent,
                progress=progress,
                next_due=challenge.next_due,
                missing_reviews=max(0, required - challenge.reviews_in),
                short_roles=tuple(
                    ReviewerRole(role).label.lower()
                    for role, entry in progress["roles"].items()
                    if entry["assigned"] < entry["minimum"]
                ),
                conflicts=challenge.withdrawn + challenge.declared_conflicts,
            )
        )
    return rows
