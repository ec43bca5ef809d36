"""Calls for challenges, proposals (challenges with tasks) and their answers.

Models stay thin: the workflow lives in `services.py`, reads in `selectors.py`.
"""

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models
from django.db.models import Q

from audit.models import WriteOnceError, WriteOnceModel

from .enums import ChallengeStatus
from .lock import RegisteredDataError, amending, record_refusal


class Call(models.Model):
    """A call for challenges of one conference edition, e.g. "MICCAI 2027"."""

    slug = models.SlugField(max_length=60, unique=True)
    title = models.CharField(max_length=200)
    submission_deadline = models.DateField(null=True, blank=True)
    completeness_threshold = models.PositiveSmallIntegerField(
        default=90,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="Share (%) of the submission parameters needed to submit.",
    )
    min_technical_reviewers = models.PositiveSmallIntegerField(default=2)
    min_clinical_reviewers = models.PositiveSmallIntegerField(default=1)
    chairs = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="chaired_calls", blank=True
    )
    institution_aliases = models.JSONField(
        default=list,
        blank=True,
        help_text="Names of one institution that conflicts of interest treat as "
        'one, a list per institution: [["DKFZ", "German Cancer Research Center", '
        '"Deutsches Krebsforschungszentrum"], ...]',
    )
    created = models.DateTimeField(auto_now_add=True)
    # Every save (a title or slug edited in the admin) moves it: the
    # statistics' cache generation reads MAX(updated) by this index.
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["-updated"], name="call_updated_idx")]

    def __str__(self) -> str:
        return self.title


class Challenge(models.Model):
    """A challenge proposal: challenge-level answers plus one or more tasks."""

    call = models.ForeignKey(Call, on_delete=models.PROTECT, related_name="challenges")
    name = models.CharField(max_length=300)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="challenges"
    )
    co_organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="co_organized_challenges", blank=True
    )
    status = models.CharField(
        max_length=32,
        choices=ChallengeStatus.choices,
        default=ChallengeStatus.DRAFT,
        db_index=True,
    )
    revision = models.PositiveIntegerField(
        default=0, help_text="Number of times the proposal has been submitted."
    )
    planning = models.JSONField(
        default=dict,
        blank=True,
        help_text="Answers to the call's conference-planning questions.",
    )
    duplicated_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_from = models.CharField(
        max_length=255,
        blank=True,
        help_text="The file a proposal was imported from (empty when created here).",
    )
    version = models.PositiveIntegerField(
        default=1, help_text="Counts saves of the name and planning (lost updates)."
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated"]
        indexes = [
            models.Index(fields=["call", "status"]),
            models.Index(fields=["-updated"], name="challenge_updated_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if self.pk is not None and not amending():
            stored = (
                Challenge.objects.filter(pk=self.pk, status=ChallengeStatus.REGISTERED)
                .values("name", "planning", "call_id")
                .first()
            )
            mine = {
                "name": self.name,
                "planning": self.planning,
                "call_id": self.call_id,
            }
            if stored is not None and stored != mine:
                refuse_registered_change(self, "The challenge's name or planning")
        super().save(*args, **kwargs)


def challenge_is_registered(challenge_id) -> bool:
    return Challenge.objects.filter(
        pk=challenge_id, status=ChallengeStatus.REGISTERED
    ).exists()


def refuse_registered_change(target, what: str):
    """Raise RegisteredDataError; audited now when nothing can roll it back."""
    error = RegisteredDataError(target, what)
    if not connection.in_atomic_block:
        record_refusal(error)
    raise error


class DesignQuerySet(models.QuerySet):
    """Bulk writes of answers and tasks are refused on registered challenges."""

    def _check(self) -> None:
        if amending():
            return
        registered = self.filter(challenge__status=ChallengeStatus.REGISTERED).first()
        if registered is not None:
            refuse_registered_change(
                registered, f"The {registered._meta.verbose_name} {registered}"
            )

    def update(self, **kwargs):
        self._check()
        return super().update(**kwargs)

    def delete(self):
        self._check()
        return super().delete()


class DesignRecord(models.Model):
    """Answers and tasks: part of the design, frozen once it is registered."""

    objects = DesignQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self._check_open()
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        self._check_open()
        return super().delete(*args, **kwargs)

    def _check_open(self) -> None:
        if not amending() and challenge_is_registered(self.challenge_id):
            refuse_registered_change(self, f"The {self._meta.verbose_name} {self}")


class Task(DesignRecord):
    """A task of a challenge: a dedicated ranking with its own parameters."""

    challenge = models.ForeignKey(
        Challenge, on_delete=models.CASCADE, related_name="tasks"
    )
    name = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0)
    scheme = models.JSONField(
        null=True,
        blank=True,
        help_text="Executable ranking scheme (shared/reference/ranking-scheme.md).",
    )
    test_set_plan = models.JSONField(
        null=True,
        blank=True,
        help_text="The attached test-set plan (python -m ranking plan output; "
        "docs/ranking-engine.md), frozen with the design.",
    )
    version = models.PositiveIntegerField(
        default=1, help_text="Counts saves of the name and scheme (lost updates)."
    )

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "name"], name="task_name_unique_in_challenge"
            )
        ]

    def __str__(self) -> str:
        return self.name


class Answer(DesignRecord):
    """The answer to one parameter, for the challenge (task is null) or a task."""

    challenge = models.ForeignKey(
        Challenge, on_delete=models.CASCADE, related_name="answers"
    )
    task = models.ForeignKey(
        Task, null=True, blank=True, on_delete=models.CASCADE, related_name="answers"
    )
    number = models.PositiveSmallIntegerField()
    value = models.JSONField(null=True, blank=True)
    not_applicable = models.TextField(
        blank=True,
        help_text="Reason the parameter does not apply (counts as answered).",
    )
    version = models.PositiveIntegerField(
        default=1, help_text="Counts saves of this answer (lost updates)."
    )
    updated = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["task_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "number"],
                condition=Q(task__isnull=True),
                name="one_challenge_answer_per_parameter",
            ),
            models.UniqueConstraint(
                fields=["task", "number"],
                condition=Q(task__isnull=False),
                name="one_task_answer_per_parameter",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.challenge_id}/{self.task_id or '-'}/{self.number}"


class StatusChange(models.Model):
    """One recorded transition of a proposal (the timeline)."""

    challenge = models.ForeignKey(
        Challenge, on_delete=models.CASCADE, related_name="status_changes"
    )
    from_status = models.CharField(max_length=32, choices=ChallengeStatus.choices)
    to_status = models.CharField(max_length=32, choices=ChallengeStatus.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.challenge_id}: {self.from_status} → {self.to_status}"


class ImmutableRecordError(WriteOnceError):
    """An attempt to change an append-only registration record."""


class Registration(WriteOnceModel):
    """The public, frozen record of an accepted challenge design."""

    challenge = models.OneToOneField(
        Challenge, on_delete=models.PROTECT, related_name="registration"
    )
    call = models.ForeignKey(Call, on_delete=models.PROTECT, related_name="+")
    sequence = models.PositiveIntegerField()
    identifier = models.CharField(max_length=80, unique=True)
    created = models.DateTimeField(auto_now_add=True)

    refusal = ImmutableRecordError

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["call", "sequence"], name="registration_sequence_per_call"
            )
        ]
        indexes = [models.Index(fields=["-created"], name="registration_created_idx")]

    def __str__(self) -> str:
        return self.identifier


class RegistrationVersion(WriteOnceModel):
    """One version of a registered design: the exact canonical bytes and their hash.

    `canonical` holds the UTF-8 text of the canonical JSON whose SHA-256 is
    `sha256`; that document embeds `previous_sha256`, so the versions form a
    hash chain. Rows are written once and never updated or deleted (the ORM
    refuses, and on PostgreSQL a trigger does too).
    """

    registration = models.ForeignKey(
        Registration, on_delete=models.PROTECT, related_name="versions"
    )
    number = models.PositiveIntegerField()
    canonical = models.TextField()
    sha256 = models.CharField(max_length=64)
    previous_sha256 = models.CharField(max_length=64, blank=True)
    created = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    justification = models.TextField(blank=True)
    post_hoc = models.BooleanField(
        default=False, help_text="Approved after the first results were uploaded."
    )

    refusal = ImmutableRecordError

    class Meta:
        ordering = ["registration_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["registration", "number"], name="one_version_number"
            )
        ]

    def __str__(self) -> str:
        return f"{self.registration_id} v{self.number}"


class AmendmentStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class Amendment(models.Model):
    """A justified change to a registered design, approved or rejected by a chair."""

    registration = models.ForeignKey(
        Registration, on_delete=models.PROTECT, related_name="amendments"
    )
    base_version = models.PositiveIntegerField(
        help_text="The version the change was proposed against."
    )
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    justification = models.TextField()
    changes = models.JSONField()
    status = models.CharField(
        max_length=16, choices=AmendmentStatus.choices, default=AmendmentStatus.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)
    version = models.OneToOneField(
        RegistrationVersion,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="amendment",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        # A decision writes no new row: the statistics' cache generation sees
        # it as MAX(decided_at), read by this index.
        indexes = [models.Index(fields=["-decided_at"], name="amendment_decided_idx")]

    def __str__(self) -> str:
        return f"Amendment {self.pk} to {self.registration_id}"


class RegistrationListing(models.Model):
    """The search row of a registration: its latest version's facts, as columns.

    Derived data, written in the same transaction as every version (registration
    and approved amendment), so it is never stale; the public list, its filters
    and the search read only this table and `RegistrationFacet`, never the
    canonical JSON. `vector` (PostgreSQL only) is the stored full-text vector
    (GIN-indexed, migration 0007); `text` is the portable fallback searched with
    a plain `icontains` elsewhere (SQLite).
    """

    registration = models.OneToOneField(
        Registration, on_delete=models.PROTECT, related_name="listing"
    )
    latest = models.ForeignKey(
        RegistrationVersion, on_delete=models.PROTECT, related_name="+"
    )
    identifier = models.CharField(max_length=80, unique=True)
    name = models.CharField(max_length=300)
    call = models.ForeignKey(Call, on_delete=models.PROTECT, related_name="+")
    registered = models.DateTimeField()
    year = models.PositiveSmallIntegerField()
    task_count = models.PositiveSmallIntegerField()
    version_number = models.PositiveIntegerField()
    post_hoc = models.BooleanField(default=False)
    categories = models.JSONField(default=list)
    modalities = models.JSONField(default=list)
    text = models.TextField(blank=True, help_text="Lower-case searchable text.")
    vector = SearchVectorField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-registered", "-id"], name="listing_registered_idx"),
            models.Index(fields=["call", "-registered"], name="listing_call_idx"),
            models.Index(fields=["year", "-registered"], name="listing_year_idx"),
            models.Index(fields=["task_count"], name="listing_task_count_idx"),
        ]

    def __str__(self) -> str:
        return self.identifier


class FacetKind(models.TextChoices):
    CATEGORY = "category", "Task category"
    MODALITY = "modality", "Imaging modality"
    METRIC = "metric", "Metric"
    METHOD = "method", "Ranking method"


class RegistrationFacet(models.Model):
    """One value of a multi-valued filter of a listing (e.g. modality = "OCT")."""

    listing = models.ForeignKey(
        RegistrationListing, on_delete=models.CASCADE, related_name="facets"
    )
    kind = models.CharField(max_length=16, choices=FacetKind.choices)
    value = models.CharField(max_length=200)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "value", "listing"], name="one_facet_value"
            )
        ]

    def __str__(self) -> str:
        return f"{self.listing_id} {self.kind}={self.value}"


class ChainHeadsList(WriteOnceModel):
    """One published list of every registration's chain head (`chain_heads`),
    the exact text served: numbered, signed, and naming the SHA-256 of the list
    before it, so that any earlier copy proves a later list extends it."""

    number = models.PositiveIntegerField(unique=True)
    text = models.TextField()
    sha256 = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField()

    refusal = ImmutableRecordError

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"chain heads list {self.number}"


class PilotTable(WriteOnceModel):
    """The pilot results table of a test-set plan, stored once by its SHA-256
    (``registry.pilot_tables``): an attached plan keeps only the hash, the size
    and the case count, so review snapshots and registered versions stay small.
    Never changed or deleted: a registered version may name it, and
    ``verify_registrations`` checks the file against ``sha256``."""

    sha256 = models.CharField(max_length=64, unique=True)
    size = models.PositiveIntegerField(help_text="Bytes of the UTF-8 CSV text.")
    file = models.FileField(upload_to="pilot-tables/")
    created = models.DateTimeField(auto_now_add=True)

    refusal = ImmutableRecordError

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        return f"pilot table {self.sha256[:12]}…"
