"""ORCID iDs of people, and the open feedback thread of registered challenges.

Feedback is never deleted: a chair hides a comment with a reason (kept, and
recorded in the audit log); a hidden comment keeps its place in the thread
without its text.
"""

from django.conf import settings
from django.db import models

from audit.models import WriteOnceError, WriteOnceModel


class ResearcherProfile(models.Model):
    """Public identifiers of a person (beside `accounts.Profile`)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="researcher_profile",
    )
    orcid = models.CharField(
        max_length=19,
        blank=True,
        help_text="ORCID iD, 0000-0000-0000-000X (ISO 7064 11,2 check digit).",
    )
    # True only when ORCID itself said the iD is this person's (sign-in with
    # ORCID, `publicrecord.orcid_signin`); a typed iD is unverified, shown as
    # such and left out of DataCite, Zenodo and schema.org metadata.
    orcid_verified = models.BooleanField(default=False)

    class Meta:
        constraints = [
            # one person per iD: two accounts cannot both claim it
            models.UniqueConstraint(
                fields=["orcid"],
                condition=~models.Q(orcid=""),
                name="publicrecord_orcid_one_account",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.orcid or 'no ORCID'})"


class FeedbackCategory(models.TextChoices):
    DESIGN = "design", "Design"
    DATA = "data", "Data"
    ANNOTATIONS = "annotations", "Annotations"


class Feedback(models.Model):
    """A signed-in reader's public comment on a registered challenge."""

    registration = models.ForeignKey(
        "registry.Registration", on_delete=models.PROTECT, related_name="feedback"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    category = models.CharField(max_length=16, choices=FeedbackCategory.choices)
    text = models.TextField()
    created = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(default=False)
    hidden_reason = models.TextField(blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    hidden_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created", "id"]
        indexes = [
            models.Index(
                fields=["registration", "created"], name="feedback_thread_idx"
            ),
            models.Index(fields=["author", "created"], name="feedback_author_idx"),
        ]

    def __str__(self) -> str:
        return f"Feedback {self.pk} on {self.registration_id}"


class FeedbackAnswer(models.Model):
    """An organizer's public answer to a feedback comment."""

    feedback = models.ForeignKey(
        Feedback, on_delete=models.CASCADE, related_name="answers"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    text = models.TextField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"Answer {self.pk} to feedback {self.feedback_id}"


class DepositStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    DONE = "done", "Published"
    FAILED = "failed", "Failed"


class Deposit(models.Model):
    """The deposit of one registration version in a Zenodo-compatible repository.

    Kept across attempts: a deposition created but not yet published is resumed
    (its id and file bucket are stored) instead of being created twice.
    """

    version = models.OneToOneField(
        "registry.RegistrationVersion",
        on_delete=models.PROTECT,
        related_name="deposit",
    )
    status = models.CharField(
        max_length=16, choices=DepositStatus.choices, default=DepositStatus.QUEUED
    )
    deposition_id = models.CharField(max_length=100, blank=True)
    bucket = models.URLField(max_length=500, blank=True)
    doi = models.CharField(max_length=200, blank=True)
    record_url = models.URLField(max_length=500, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Deposit of {self.version} ({self.status})"


class FrozenCitationError(WriteOnceError):
    """An attempt to change or delete the frozen citation of a version."""


class FrozenCitation(WriteOnceModel):
    """Who a registered version is by, as it was when it was registered.

    The canonical JSON freezes the organizers' usernames and institutions but
    not the names and ORCID iDs in their profiles; these are frozen here, with
    the version, so a later profile edit re-attributes only later versions.
    """

    version = models.OneToOneField(
        "registry.RegistrationVersion",
        on_delete=models.PROTECT,
        related_name="frozen_citation",
    )
    # [{"name", "given", "family", "orcid", "orcid_verified", "affiliation"}, ...]
    # in citation order; an iD is exported only when "orcid_verified" is true
    creators = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    refusal = FrozenCitationError

    def __str__(self) -> str:
        return f"Citation of {self.version}"


class Publication(models.Model):
    """One analysis run published on the public record of its registration.

    Permanent and versioned: a publication is never changed or removed; a
    correction is a new publication that ``supersedes`` the one it corrects,
    and both stay readable. The result of a registration is a run of the
    registered scheme; a run of an exploratory scheme is published alongside
    it, labelled exploratory. Public from ``public_from`` (an embargo) or at
    once. Written only by ``publicrecord.publication.publish_analysis``.
    """

    registration = models.ForeignKey(
        "registry.Registration", on_delete=models.PROTECT, related_name="publications"
    )
    number = models.PositiveIntegerField(help_text="1, 2, … per registration.")
    version = models.ForeignKey(
        "registry.RegistrationVersion",
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The registered version the result is judged against (the one "
        "in force when its results were uploaded).",
    )
    run = models.ForeignKey(
        "analysis.AnalysisRun", on_delete=models.PROTECT, related_name="publications"
    )
    exploratory = models.BooleanField(
        help_text="Published alongside the result: not the registered scheme."
    )
    supersedes = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_by",
        help_text="The publication this one corrects.",
    )
    note = models.TextField(
        blank=True, help_text="Why it was published (a correction's reason)."
    )
    public_from = models.DateField(
        null=True, blank=True, help_text="Embargo: public from this day (UTC)."
    )
    results_sha256 = models.CharField(max_length=64)
    output_sha256 = models.CharField(max_length=64)
    report_sha256 = models.CharField(max_length=64)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["registration_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["registration", "number"], name="one_publication_number"
            ),
        ]

    def __str__(self) -> str:
        return f"Publication {self.number} of {self.registration_id}"
