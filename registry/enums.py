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

# States in which organizers may still edit the design.
EDITABLE_STATES = frozenset({S.DRAFT, S.REVISION_REQUESTED})
