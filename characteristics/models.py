"""Case metadata versions and case-characteristics model runs (seed 004 §5.4).

Both are append-only like results versions and analysis runs: a new upload is
a new version, a re-run is a new run; nothing is ever overwritten.
"""

from django.db import models

from analysis.models import JobRun, UploadedTable


class CaseMetadataVersion(UploadedTable):
    """One committed metadata table (contract §1) for one results version."""

    results = models.ForeignKey(
        "analysis.ResultsVersion",
        on_delete=models.PROTECT,
        related_name="case_metadata_versions",
    )
    content = models.TextField(help_text="Normalised CSV of the metadata table.")
    checks = models.JSONField(
        default=dict, help_text="The contract's checks, as shown before commit."
    )

    class Meta:
        ordering = ["results_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["results", "number"], name="one_case_metadata_version_number"
            )
        ]

    def __str__(self) -> str:
        return f"{self.results} case metadata v{self.number}"


class CaseModelRun(JobRun):
    """One fit of a model specification (contract §2) on one metadata version."""

    metadata = models.ForeignKey(
        CaseMetadataVersion, on_delete=models.PROTECT, related_name="runs"
    )
    spec = models.JSONField(help_text="The specification as requested.")
    exploratory = models.BooleanField(
        default=True, help_text="Not announced by the registered design."
    )
    announcement = models.TextField(
        blank=True, help_text="Why the run counts as announced or exploratory."
    )

    job_noun = "case-model fit"

    class Meta(JobRun.Meta):
        pass

    def __str__(self) -> str:
        return f"Case model run {self.pk} on {self.metadata}"


class CaseModelFileKind(models.TextChoices):
    REPORT = "report", "PDF report"
    GLOBAL = "global", "Forest plot of the global model"
    PER_ALGORITHM = "per-algorithm", "Forest plots per algorithm"


class CaseModelFile(models.Model):
    """A run's file drawn once from its stored output (``characteristics.files``)
    and served from storage: the PDF report and the page's figures."""

    run = models.ForeignKey(
        CaseModelRun, on_delete=models.CASCADE, related_name="files"
    )
    kind = models.CharField(max_length=20, choices=CaseModelFileKind.choices)
    file = models.FileField(upload_to="case-models/")
    sha256 = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "kind"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "kind"], name="one_case_model_file_per_kind"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of case model run {self.run_id}"
