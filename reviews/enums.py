"""Choices of the review workflow (`004` §5.1). Imports nothing from Django apps."""

from django.db import models


class ReviewerRole(models.TextChoices):
    TECHNICAL = "technical", "Technical reviewer"
    CLINICAL = "clinical", "Clinical reviewer"


class AssignmentStatus(models.TextChoices):
    ASSIGNED = "assigned", "Assigned"  # a review of the current revision is due
    DECLINED = "declined", "Declined"
    SUBMITTED = "submitted", "Submitted"  # reviewed the current revision
    # A conflict of interest appeared after the assignment (e.g. the reviewer
    # became a co-organizer): the reviewer loses access, reviews stop counting.
    WITHDRAWN = "withdrawn", "Withdrawn (conflict of interest)"


# Assignments that still count: the reviewer may read the proposal and review it.
ACTIVE_ASSIGNMENT_STATES = (AssignmentStatus.ASSIGNED, AssignmentStatus.SUBMITTED)


class Recommendation(models.TextChoices):
    ACCEPT = "accept", "Accept"
    MINOR_REVISION = "minor_revision", "Minor revision"
    MAJOR_REVISION = "major_revision", "Major revision"
    REJECT = "reject", "Reject"


class DecisionKind(models.TextChoices):
    ACCEPT = "accept", "Accept"
    REVISION = "revision", "Revision"
    REJECT = "reject", "Reject"
