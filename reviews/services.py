"""Writes for peer review. Status changes go through the registry's single funnel
`registry.services.set_challenge_state`; every service validates first and
writes inside one transaction, so a refused request changes nothing. Mail is
queued with `transaction.on_commit` and only leaves after the commit.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from audit.services import record
from registry import services as registry_services
from registry.design import design_of
from registry.enums import ChallengeStatus
from registry.models import Challenge
from registry.permissions import is_organizer
from registry.services import TransitionError

from . import notifications, selectors
from .conflicts import chair_refusal, conflict_reason, conflict_reasons
from .enums import (
    ACTIVE_ASSIGNMENT_STATES,
    AssignmentStatus,
    DecisionKind,
    ReviewerRole,
)
from .models import Assignment, ConflictDeclaration, Decision, ProposalVersion, Review
from .validation import (
    clean_parameter_comments,
    clean_recommendation,
    clean_score,
    clean_sections,
    clean_text,
)

REVIEW_PERIOD_DAYS = 21
ASSIGNABLE_STATES = (ChallengeStatus.SUBMITTED, ChallengeStatus.UNDER_REVIEW)
DECISION_STATES = {
    DecisionKind.ACCEPT: ChallengeStatus.ACCEPTED,
    DecisionKind.REVISION: ChallengeStatus.REVISION_REQUESTED,
    DecisionKind.REJECT: ChallengeStatus.REJECTED,
}


class ReviewConflictError(Exception):
    """A request that clashes with the state of the review (HTTP 409): a conflict
    of interest, a reviewer assigned twice, a revision reviewed twice."""


class UnconfirmedWarningError(ReviewConflictError):
    """The action is allowed but unusual (a clinician in a technical slot, a
    decision on fewer reviews than the call requires): the chair must confirm
    it, i.e. send it again with `confirm`. Nothing was changed."""

    def __init__(self, warnings: list[str]):
        self.warnings = warnings
        super().__init__("Confirm to proceed: " + " ".join(warnings))


def _require_confirmation(warnings: list[str], confirm: bool) -> None:
    if warnings and not confirm:
        raise UnconfirmedWarningError(warnings)


def _after_commit(func, *args) -> None:
    transaction.on_commit(partial(func, *args))


def _lock(challenge: Challenge) -> Challenge:
    return Challenge.objects.select_for_update().get(pk=challenge.pk)


# --- versions ------------------------------------------------------------------


@transaction.atomic
def record_version(*, challenge: Challenge, response: str = "") -> ProposalVersion:
    """Freeze the design of the current revision (idempotent per revision).

    Called when a submission goes under review: a submitted proposal cannot be
    edited, so the design then is the design as submitted.
    """
    challenge.refresh_from_db()
    version, created = ProposalVersion.objects.get_or_create(
        challenge=challenge,
        revision=challenge.revision,
        defaults={"snapshot": design_of(challenge).to_dict(), "response": response},
    )
    if not created and response and not version.response:
        version.response = response
        version.save(update_fields=["response"])
    return version


# --- assignments -----------------------------------------------------------------


def review_due() -> dt.date:
    """The due date of a review asked for today: one full review period."""
    return timezone.localdate() + dt.timedelta(days=REVIEW_PERIOD_DAYS)


@transaction.atomic
def assign_reviewer(
    *,
    challenge: Challenge,
    reviewer,
    role: str,
    actor,
    due: dt.date | None = None,
    confirm: bool = False,
) -> Assignment:
    """A chair assigns a reviewer; the first assignment starts the review.
    `selectors.assignment_warnings` must be confirmed (`confirm`)."""
    if refusal := chair_refusal(actor, challenge):
        raise PermissionDenied(refusal)
    caller, challenge = challenge, _lock(challenge)
    refusal = assign_refusal(challenge)
    if refusal is not None:
        raise refusal
    if reviewer.pk == actor.pk:
        raise ReviewConflictError(
            "A chair cannot assign themselves as a reviewer; ask another chair."
        )
    if role not in ReviewerRole.values:
        raise ValidationError(
            {"role": f"{role!r} is not one of {ReviewerRole.values}."}
        )
    existing = challenge.assignments.filter(reviewer=reviewer).first()
    if existing is not None:
        raise ReviewConflictError(
            f"{reviewer.get_username()} is already assigned to this proposal "
            f"({existing.get_status_display().lower()})."
        )
    reason = conflict_reason(reviewer, challenge)
    if reason:
        raise ReviewConflictError(reason)
    today = timezone.localdate()
    if due is not None and due < today:
        raise ValidationError(
            {"due": f"{due.isoformat()} is in the past; choose today or a later date."}
        )
    _require_confirmation(selectors.assignment_warnings(reviewer, role), confirm)
    if due is None:
        due = review_due()
    if challenge.status == ChallengeStatus.SUBMITTED:
        record_version(challenge=challenge)
        registry_services.set_challenge_state(
            challenge,
            ChallengeStatus.UNDER_REVIEW,
            actor=actor,
            note="Reviewers assigned.",
        )
    assignment = Assignment.objects.create(
        challenge=challenge, reviewer=reviewer, role=role, assigned_by=actor, due=due
    )
    _after_commit(notifications.send_assignment, assignment.pk)
    record(actor=actor, action="review.assign", target=assignment, role=role)
    caller.refresh_from_db()
    return assignment


def assign_refusal(challenge: Challenge) -> TransitionError | None:
    """Why no reviewer can be assigned to the proposal now; None if one can
    (asked before what a chair sent is read)."""
    if challenge.status not in ASSIGNABLE_STATES:
        return TransitionError(
            f"Reviewers can be assigned to submitted proposals or proposals under "
            f"review; this one is {challenge.get_status_display().lower()}.",
            state=challenge.status,
        )
    return None


OPEN_REVIEW_STATES = (*ASSIGNABLE_STATES, ChallengeStatus.REVISION_REQUESTED)


def _locked_assignment(assignment: Assignment, actor) -> Assignment:
    """The assignment, locked, once `actor` is known to chair its call and the
    review is still open."""
    assignment = (
        Assignment.objects.select_for_update()
        .select_related("challenge__call", "reviewer")
        .get(pk=assignment.pk)
    )
    if refusal := chair_refusal(actor, assignment.challenge):
        raise PermissionDenied(refusal)
    refusal = assignment_change_refusal(assignment.challenge)
    if refusal is not None:
        raise refusal
    return assignment


def assignment_change_refusal(challenge: Challenge) -> TransitionError | None:
    """Why assignments of the proposal cannot change now; None while the
    review is open (asked before what a chair sent is read)."""
    return _unless_in(
        challenge,
        OPEN_REVIEW_STATES,
        "assignments change only while the review is open.",
    )


def _unless_in(
    challenge: Challenge, states: tuple[str, ...], needs: str
) -> TransitionError | None:
    """None while the proposal is in one of `states`; else the refusal that
    says its state and what the action `needs`."""
    if challenge.status in states:
        return None
    return TransitionError(
        f"The proposal is {challenge.get_status_display().lower()}; {needs}",
        state=challenge.status,
    )


@transaction.atomic
def unassign_reviewer(*, assignment: Assignment, actor) -> None:
    """A chair removes a reviewer from a proposal (audited). A reviewer who
    has already reviewed stays: the reviews are part of the record."""
    assignment = _locked_assignment(assignment, actor)
    if assignment.reviews.exists():
        raise ReviewConflictError(
            f"{assignment.reviewer.get_username()} has already submitted a review; "
            "reviews stay on the record, so this reviewer cannot be unassigned."
        )
    challenge = assignment.challenge
    record(
        actor=actor,
        action="review.unassign",
        target=challenge,
        reviewer=assignment.reviewer.get_username(),
        role=assignment.role,
        status=assignment.status,
    )
    assignment.delete()


@transaction.atomic
def change_reviewer_role(
    *, assignment: Assignment, role: str, actor, confirm: bool = False
) -> Assignment:
    """A chair changes a reviewer's role (audited); a clinician moved to a
    technical slot must be confirmed."""
    assignment = _locked_assignment(assignment, actor)
    if role not in ReviewerRole.values:
        raise ValidationError(
            {"role": f"{role!r} is not one of {ReviewerRole.values}."}
        )
    if assignment.role == role:
        raise ValidationError(
            {
                "role": f"{assignment.reviewer.get_username()} is already a "
                f"{ReviewerRole(role).label.lower()}."
            }
        )
    if (
        role != ReviewerRole.CLINICAL
        and assignment.reviews.exclude(clinical_relevance=None).exists()
    ):
        raise ReviewConflictError(
            "This reviewer has rated clinical relevance as a clinical reviewer; "
            "the role of a submitted clinical review cannot change."
        )
    _require_confirmation(
        selectors.assignment_warnings(assignment.reviewer, role), confirm
    )
    before = assignment.role
    assignment.role = role
    assignment.save(update_fields=["role"])
    record(
        actor=actor,
        action="review.change_role",
        target=assignment,
        reviewer=assignment.reviewer.get_username(),
        before=before,
        after=role,
    )
    return assignment


@transaction.atomic
def recheck_assignments(*, challenge: Challenge) -> list[Assignment]:
    """Withdraw the open assignments of a challenge whose reviewer now conflicts.

    Called whenever who organizes a proposal, or where they work, changes (a
    co-organizer added, a new owner, the organizers answer, a profile's institution, a
    declaration): an assignment made before the change must not survive it.
    The chairs get a notice; the reviewer loses access at once.
    """
    if challenge.status not in OPEN_REVIEW_STATES:
        return []
    withdrawn = []
    open_assignments = challenge.assignments.select_for_update().filter(
        status__in=ACTIVE_ASSIGNMENT_STATES
    )
    # The profiles come in a second query: FOR UPDATE cannot lock the nullable
    # side of the outer join that select_related("reviewer__profile") needs.
    open_assignments = list(
        open_assignments.select_related("reviewer").prefetch_related(
            "reviewer__profile"
        )
    )
    reasons = conflict_reasons([a.reviewer for a in open_assignments], challenge)
    for assignment in open_assignments:
        reason = reasons[assignment.reviewer_id]
        if not reason:
            continue
        assignment.status = AssignmentStatus.WITHDRAWN
        assignment.decline_reason = reason
        assignment.save(update_fields=["status", "decline_reason"])
        record(
            actor=None,
            action="review.withdraw_conflicted",
            target=assignment,
            reason=reason,
        )
        _after_commit(notifications.send_conflict_withdrawal, assignment.pk)
        withdrawn.append(assignment)
    return withdrawn


def recheck_assignments_of(user) -> None:
    """Re-check every open review that `user` organizes or reviews."""
    challenges = Challenge.objects.filter(status__in=OPEN_REVIEW_STATES).filter(
        Q(owner=user)
        | Q(co_organizers=user)
        | Q(
            assignments__reviewer=user, assignments__status__in=ACTIVE_ASSIGNMENT_STATES
        )
    )
    for challenge in challenges.distinct():
        recheck_assignments(challenge=challenge)


def decline_refusal(assignment: Assignment) -> ReviewConflictError | None:
    """Why the assignment cannot be declined now; None if it can (asked before
    the reason is read)."""
    if assignment.status != AssignmentStatus.ASSIGNED:
        return ReviewConflictError(
            f"The assignment is {assignment.get_status_display().lower()}; only a "
            "pending assignment can be declined."
        )
    return None


@transaction.atomic
def decline_assignment(*, assignment: Assignment, actor, reason: str) -> Assignment:
    if assignment.reviewer_id != actor.pk:
        raise PermissionDenied("Only the assigned reviewer can decline.")
    assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
    refusal = decline_refusal(assignment)
    if refusal is not None:
        raise refusal
    reason = clean_text(reason, "reason", required=True)
    assignment.status = AssignmentStatus.DECLINED
    assignment.decline_reason = reason
    assignment.save(update_fields=["status", "decline_reason"])
    return assignment


@transaction.atomic
def declare_conflict(
    *,
    reviewer,
    reason: str,
    institution: str = "",
    challenge: Challenge | None = None,
) -> ConflictDeclaration:
    """A reviewer declares a conflict with an institution or with one proposal."""
    institution = clean_text(institution, "institution")[:300]
    if bool(institution) == (challenge is not None):
        raise ValidationError(
            {"institution": "Name either an institution or a challenge, not both."}
        )
    declaration = ConflictDeclaration.objects.create(
        reviewer=reviewer,
        institution=institution,
        challenge=challenge,
        reason=clean_text(reason, "reason", required=True),
    )
    recheck_assignments_of(reviewer)
    return declaration


# --- reviews ---------------------------------------------------------------------


def review_refusal(
    challenge: Challenge, assignment: Assignment
) -> TransitionError | ReviewConflictError | None:
    """Why the assignment's reviewer cannot review the proposal now; None if
    they can. Pages and API ask this before reading a review (permission,
    then state, then input)."""
    if challenge.status != ChallengeStatus.UNDER_REVIEW:
        return TransitionError(
            f"The proposal is {challenge.get_status_display().lower()}, not under "
            "review; reviews cannot be submitted now.",
            state=challenge.status,
        )
    if assignment.reviews.filter(revision=challenge.revision).exists():
        return ReviewConflictError(
            f"You have already reviewed revision {challenge.revision}; each "
            "revision is reviewed once."
        )
    return None


@transaction.atomic
def submit_review(
    *,
    challenge: Challenge,
    actor,
    recommendation: str,
    confidence: int,
    comments: str,
    sections: dict[str, Any] | None = None,
    parameters: list[dict[str, Any]] | None = None,
    confidential: str = "",
    clinical_relevance: int | None = None,
) -> Review:
    """An assigned reviewer reviews the current revision (once per revision)."""
    assignment = (
        Assignment.objects.select_for_update()
        .filter(challenge=challenge, reviewer=actor)
        .first()
    )
    if assignment is None or assignment.status not in ACTIVE_ASSIGNMENT_STATES:
        raise PermissionDenied(
            "Only reviewers assigned to this proposal can review it."
        )
    challenge = _lock(challenge)
    refusal = review_refusal(challenge, assignment)
    if refusal is not None:
        raise refusal
    fields = {
        "recommendation": clean_recommendation(recommendation),
        "confidence": clean_score(confidence, "confidence"),
        "comments": clean_text(comments, "comments", required=True),
        "sections": clean_sections(sections),
        "parameters": clean_parameter_comments(
            parameters, task_names={t.name for t in challenge.tasks.all()}
        ),
        "confidential": clean_text(confidential, "confidential"),
        "clinical_relevance": clean_score(
            clinical_relevance, "clinical_relevance", required=False
        ),
    }
    if fields["clinical_relevance"] is not None and assignment.role != (
        ReviewerRole.CLINICAL
    ):
        raise ValidationError(
            {"clinical_relevance": "Only clinical reviewers rate clinical relevance."}
        )
    review = Review.objects.create(
        assignment=assignment, revision=challenge.revision, **fields
    )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.save(update_fields=["status"])
    _after_commit(notifications.send_review_submitted, review.pk)
    return review


# --- decisions and revisions -------------------------------------------------------


@transaction.atomic
def decide(
    *,
    challenge: Challenge,
    actor,
    decision: str,
    letter: str,
    confirm: bool = False,
) -> Decision:
    """A chair decides. The row lock makes two simultaneous decisions serial:
    the second one sees the new status and is refused (TransitionError).
    `selectors.decision_warnings` (too few reviews, no clinical review) must be
    confirmed (`confirm`)."""
    caller, challenge = challenge, _lock(challenge)
    # Who may act is checked before the input, so a refusal never depends on
    # (or reveals anything about) what was sent.
    if refusal := chair_refusal(actor, challenge):
        raise PermissionDenied(refusal)
    refusal = decision_refusal(challenge)
    if refusal is not None:
        raise refusal
    if decision not in DecisionKind.values:
        raise ValidationError(
            {"decision": f"{decision!r} is not one of {DecisionKind.values}."}
        )
    letter = clean_text(letter, "letter", required=True)
    _require_confirmation(selectors.decision_warnings(challenge), confirm)
    registry_services.set_challenge_state(
        challenge,
        DECISION_STATES[decision],
        actor=actor,
        note=f"Decision: {DecisionKind(decision).label.lower()}.",
    )
    made = Decision.objects.create(
        challenge=challenge,
        revision=challenge.revision,
        decision=decision,
        letter=letter,
        chair=actor,
    )
    _after_commit(notifications.send_decision, made.pk)
    record(actor=actor, action="review.decide", target=made, decision=decision)
    caller.refresh_from_db()
    return made


def decision_refusal(challenge: Challenge) -> TransitionError | None:
    """Why no decision can be made on the proposal now; None if one can
    (asked before the decision and letter are read)."""
    return _unless_in(
        challenge,
        (ChallengeStatus.UNDER_REVIEW,),
        "a decision needs a proposal under review.",
    )


def resubmit_refusal(challenge: Challenge) -> TransitionError | None:
    """Why the proposal cannot be resubmitted now; None if it can (asked before
    the response letter is read)."""
    return _unless_in(
        challenge,
        (ChallengeStatus.REVISION_REQUESTED,),
        "only a proposal with a requested revision can be resubmitted.",
    )


@transaction.atomic
def resubmit_challenge(*, challenge: Challenge, actor, response: str) -> Challenge:
    """Organizers resubmit a revision with a response letter.

    revision_requested → submitted (completeness checked by the registry) →
    under review again with the same (non-declined) reviewers, whose reviews of
    the new revision are pending again.
    """
    if not is_organizer(actor, challenge):
        raise PermissionDenied("Only organizers can resubmit their proposal.")
    caller, challenge = challenge, _lock(challenge)
    refusal = resubmit_refusal(challenge)
    if refusal is not None:
        raise refusal
    response = clean_text(response, "response", required=True)
    challenge = registry_services.resubmit_revision(
        challenge=challenge, actor=actor, response=response
    )
    version = record_version(challenge=challenge, response=response)
    active = challenge.assignments.filter(status__in=ACTIVE_ASSIGNMENT_STATES)
    if active.exists():
        # a new revision is a new review: its reviewers get a full period from
        # today (the first round's dates have usually passed); a later date set
        # by a chair stays
        fresh = review_due()
        active.filter(Q(due__isnull=True) | Q(due__lt=fresh)).update(due=fresh)
        active.update(status=AssignmentStatus.ASSIGNED)
        registry_services.set_challenge_state(
            challenge,
            ChallengeStatus.UNDER_REVIEW,
            actor=actor,
            note=f"Revision {challenge.revision} back under review.",
        )
        _after_commit(notifications.send_resubmission, version.pk)
    caller.refresh_from_db()
    return caller
