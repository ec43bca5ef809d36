"""Reviewer assignments, reviews, decisions, conflicts and proposal versions.

Thin models: the workflow lives in `services.py`, reads in `selectors.py`.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from registry.models import Challenge

from .enums import AssignmentStatus, DecisionKind, Recommendation, ReviewerRole

SCORE = [MinValueValidator(1), MaxValueValidator(5)]


class Assignment(models.Model):
    """A reviewer asked by a chair to review a proposal (for all its revisions)."""

    challenge = models.ForeignKey(
        Challenge, on_delete=models.CASCADE, related_name="assignments"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="review_assignments",
    )
    role = models.CharField(max_length=16, choices=ReviewerRole.choices)
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    due = models.DateField(null=True, blank=True)
    status = models.CharField(
        max_length=16,
        choices=AssignmentStatus.choices,
        default=AssignmentStatus.ASSIGNED,
    )
    decline_reason = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "reviewer"], name="one_assignment_per_reviewer"
            )
        ]
        indexes = [
            models.Index(fields=["reviewer", "status"], name="assignment_reviewer_idx"),
            models.Index(fields=["status", "due"], name="assignment_due_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.reviewer} → {self.challenge} ({self.role})"


class Review(models.Model):
    """One reviewer's review of one revision of a proposal."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="reviews"
    )
    revision = models.PositiveIntegerField(
        help_text="`Challenge.revision` of the proposal that was reviewed."
    )
    recommendation = models.CharField(max_length=16, choices=Recommendation.choices)
    confidence = models.PositiveSmallIntegerField(validators=SCORE)
    comments = models.TextField()
    sections = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per parameter group: {"score": 1–5, "comment": "..."}.',
    )
    parameters = models.JSONField(
        default=list,
        blank=True,
        help_text='Comments on single parameters: [{"number", "task", "comment"}].',
    )
    confidential = models.TextField(blank=True, help_text="Seen only by the chairs.")
    clinical_relevance = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=SCORE
    )
    submitted = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["revision", "submitted", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "revision"], name="one_review_per_revision"
            )
        ]

    def __str__(self) -> str:
        return f"Review of {self.assignment.challenge} r{self.revision}"


class Decision(models.Model):
    """A chair's decision on one revision of a proposal, with the letter sent."""

    challenge = models.ForeignKey(
        Challenge, on_delete=models.CASCADE, related_name="decisions"
    )
    revision = models.PositiveIntegerField()
    decision = models.CharField(max_length=16, choices=DecisionKind.choices)
    letter = models.TextField()
    chair = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.challenge}: {self.decision} (r{self.revision})"


class ConflictDeclaration(models.Model):
    """A reviewer's declared conflict with an institution or with one proposal."""

    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="conflict_declarations",
    )
    institution = models.CharField(max_length=300, blank=True)
    challenge = models.ForeignKey(
        Challenge,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="conflict_declarations",
    )
    reason = models.TextField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(institution="") & Q(challenge__isnull=False))
                | (~Q(institution="") & Q(challenge__isnull=True)),
                name="conflict_names_institution_or_challenge",
            )
        ]

    def __str__(self) -> str:
        return f"{self.reviewer}: {self.institution or self.challenge}"


class ProposalVersion(models.Model):
    """The design as submitted, frozen per revision (for diffs between rounds)."""

    challenge = models.ForeignKey(
        Challenge, on_delete=models.CASCADE, related_name="versions"
    )
    revision = models.PositiveIntegerField()
    snapshot = models.JSONField(
        help_text="`registry.design.Design.to_dict()`, the canonical design."
    )
    response = models.TextField(
        blank=True, help_text="The organizers' response letter (resubmissions)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "revision"], name="one_version_per_revision"
            )
        ]

    def __str__(self) -> str:
        return f"{self.challenge} r{self.revision}"
