"""Results versions and analysis runs of registered challenges.

Both are append-only records: a new upload is a new version, a re-run is a new
run; earlier ones are kept and never overwritten.
"""

from django.conf import settings
from django.db import models


class UploadedTable(models.Model):
    """A committed version of an uploaded table: its number, the hash of its
    normalised CSV (`content`, declared by each table), the file's name, its
    rows, who uploaded it and when. Append-only."""

    number = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    original_name = models.CharField(max_length=255)
    row_count = models.PositiveIntegerField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class ResultsVersion(UploadedTable):
    """One committed upload of per-case results for a registration."""

    registration = models.ForeignKey(
        "registry.Registration",
        on_delete=models.PROTECT,
        related_name="results_versions",
    )
    registration_version = models.ForeignKey(
        "registry.RegistrationVersion",
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The registered version in force when the results were uploaded.",
    )
    content = models.TextField(help_text="Normalised CSV of the results table.")
    teams = models.JSONField(
        default=dict, blank=True, help_text="Team → affiliation (institution)."
    )
    idempotency_key = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="The upload's Idempotency-Key (API) or one-time token (web): "
        "a retry with the same key returns this version instead of a new one.",
    )

    class Meta:
        ordering = ["registration_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["registration", "number"], name="one_results_version_number"
            ),
            models.UniqueConstraint(
                fields=["registration", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="one_results_version_per_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.registration_id} results v{self.number}"


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class JobRun(models.Model):
    """The life of a run done by a background job (``analysis.run_state``):
    queued, claimed by a worker, beating while it works, done or failed.

    Its app lists it with the function that sends its job in
    ``AppConfig.job_runs()``, so the watchdog (``resume_jobs``) resumes every
    kind of run the same way.
    """

    status = models.CharField(
        max_length=16,
        choices=AnalysisStatus.choices,
        default=AnalysisStatus.QUEUED,
        db_index=True,
    )
    progress = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    output = models.JSONField(null=True, blank=True)
    engine_version = models.CharField(max_length=40, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life of the running job."
    )
    finished = models.DateTimeField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(
        default=0, help_text="How many times a worker claimed the run (retries reset)."
    )
    worker = models.CharField(
        max_length=200, blank=True, help_text="host:pid of the job that claimed it."
    )
    enqueued = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its job last reached the queue (empty: the queue was down).",
    )
    note = models.TextField(
        blank=True,
        help_text="Why a queued or running run waits or was resumed (not a failure).",
    )

    # What the job calls itself in messages ("the analysis failed …").
    job_noun = "analysis"

    class Meta:
        abstract = True
        ordering = ["-created"]

    @classmethod
    def claim_resets(cls) -> dict:
        """Fields a new claim or a requeue sets back, beside the common ones."""
        return {}


class AnalysisRun(JobRun):
    """One execution of a ranking scheme on one results version."""

    results = models.ForeignKey(
        ResultsVersion, on_delete=models.PROTECT, related_name="analyses"
    )
    scheme = models.JSONField(help_text="The scheme(s) executed, by task.")
    exploratory = models.BooleanField(
        default=False, help_text="Not the pre-registered scheme."
    )
    seed = models.BigIntegerField()
    deviations = models.JSONField(default=list, blank=True)
    report = models.FileField(upload_to="reports/", blank=True)
    report_sha256 = models.CharField(max_length=64, blank=True)
    merge_started = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the merge of a chunked bootstrap was claimed (once).",
    )

    class Meta(JobRun.Meta):
        # The statistics' cache generation reads MAX(finished) of done runs by
        # this index (a run finishes by an update, not a new row).
        indexes = [
            models.Index(fields=["status", "finished"], name="run_status_finished_idx")
        ]

    def __str__(self) -> str:
        return f"Analysis {self.pk} of {self.results}"

    @classmethod
    def claim_resets(cls) -> dict:
        return {"merge_started": None}


class AnalysisChunk(models.Model):
    """Bootstrap replicate blocks [first_block, stop_block) of one ranking key
    and task of a chunked run (the engine's blocks of 100 replicates).

    ``group`` numbers the run's distinct schemes (tasks sharing a scheme are
    ranked together). ``ranks`` holds the computed rankings (.npy bytes) until
    the run's merge has used them.
    """

    run = models.ForeignKey(
        AnalysisRun, on_delete=models.CASCADE, related_name="chunks"
    )
    group = models.PositiveSmallIntegerField()
    key = models.CharField(max_length=200)
    task = models.CharField(max_length=200)
    first_block = models.PositiveIntegerField()
    stop_block = models.PositiveIntegerField()
    ranks = models.BinaryField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last sign of life of the job computing it (None: not started).",
    )

    class Meta:
        ordering = ["run_id", "group", "key", "task", "first_block"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "group", "key", "task", "first_block"],
                name="one_analysis_chunk_per_block_range",
            )
        ]

    def __str__(self) -> str:
        return (
            f"Run {self.run_id} {self.key}/{self.task} "
            f"blocks {self.first_block}-{self.stop_block}"
        )


class PlanRun(JobRun):
    """A test-set plan computed in the background (issue 29): large plans,
    resumable. ``blocks`` keeps each finished simulation block's outcomes
    (``ranking.planner.BlockStats`` as JSON, keyed "n:block") so a worker that
    dies resumes with the blocks still missing; the output equals a plan
    computed in one go."""

    task = models.ForeignKey(
        "registry.Task", on_delete=models.CASCADE, related_name="plan_runs"
    )
    inputs = models.JSONField(help_text="The planner's inputs (model, n, …).")
    attach = models.BooleanField(
        default=False, help_text="Attach the plan to the task when it is done."
    )
    blocks = models.JSONField(default=dict, blank=True)

    job_noun = "test-set plan"

    class Meta(JobRun.Meta):
        pass

    def __str__(self) -> str:
        return f"Test-set plan run {self.pk} of {self.task}"


class StartRequest(models.Model):
    """An analysis start accepted provisionally while the database was down
    (``analysis.outage``), and what was decided once it answered: the run it
    started, or why it was refused. Created in the transaction that starts the
    run, so its primary key (the request id of the 202) makes a second pass
    over the same spooled entry a no-op."""

    id = models.UUIDField(primary_key=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        related_name="+",
        help_text="Who asked (None: the account no longer existed).",
    )
    results_id_requested = models.BigIntegerField(
        help_text="The results version named in the request's URL."
    )
    received_at = models.DateTimeField(help_text="When the web process accepted it.")
    decided_at = models.DateTimeField(auto_now_add=True)
    run = models.ForeignKey(
        AnalysisRun, on_delete=models.PROTECT, null=True, related_name="+"
    )
    refusal = models.TextField(blank=True, help_text="Why no run was started.")

    class Meta:
        ordering = ["received_at"]

    def __str__(self) -> str:
        return f"analysis start {self.id}"
