"""Proposal states and the only transitions allowed between them (`004` §5.1)."""

from django.db import models


class ChallengeStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    UNDER_REVIEW = "under_review", "Under review"
    REVISION_REQUESTED = "revision_requested", "Revision requested"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    REGISTERED = "registered", "Registered"


S = ChallengeStatus

ALLOWED_TRANSITIONS: frozenset[tuple[str, str]] = frozenset(
    {
        (S.DRAFT, S.SUBMITTED),
        (S.SUBMITTED, S.UNDER_REVIEW),
        (S.SUBMITTED, S.DRAFT),  # organizers take a submission back before review
        (S.UNDER_REVIEW, S.REVISION_REQUESTED),
        (S.UNDER_REVIEW, S.ACCEPTED),
        (S.UNDER_REVIEW, S.REJECTED),
        (S.REVISION_REQUESTED, S.SUBMITTED),  # resubmission
        (S.ACCEPTED, S.REGISTERED),
        *(
            (state, S.WITHDRAWN)
            for state in (
                S.DRAFT,
                S.SUBMITTED,
                S.UNDER_REVIEW,
                S.REVISION_REQUESTED,
                S.ACCEPTED,
            )
        ),
    }
)

# What can still be done to a proposal in each state (the body of a 409).
ACTIONS_BY_STATUS: dict[str, tuple[str, ...]] = {
    S.DRAFT: ("edit", "submit", "withdraw", "delete"),
    S.SUBMITTED: ("return to draft", "withdraw", "assign reviewers (chairs)"),
    S.UNDER_REVIEW: ("withdraw", "review (assigned reviewers)", "decide (chairs)"),
    S.REVISION_REQUESTED: ("edit", "resubmit", "withdraw"),
    S.ACCEPTED: ("register", "withdraw"),
    S.REJECTED: ("duplicate",),
    S.WITHDRAWN: ("duplicate",),
    S.REGISTERED: ("propose an amendment", "upload results"),
}

# States in which organizers may still edit the design.
EDITABLE_STATES = frozenset({S.DRAFT, S.REVISION_REQUESTED})
