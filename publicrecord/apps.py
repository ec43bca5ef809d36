from django.apps import AppConfig


class PublicRecordConfig(AppConfig):
    """The registry as a public record: statistics, quality profiles, open
    feedback and citable metadata (issue 17)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "publicrecord"
    verbose_name = "Public record"
