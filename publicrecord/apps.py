from django.apps import AppConfig


class PublicRecordConfig(AppConfig):
    """The registry as a public record: statistics, quality profiles, open
    feedback and citable metadata (issue 17)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "publicrecord"
    verbose_name = "Public record"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        import config.checks  # noqa: F401  registers the SITE_URL and DataCite checks
        from registry.models import RegistrationVersion
        from registry.verifiers import Verifier, add_verifier

        add_verifier(
            Verifier("published results", "publicrecord.verify.verify_publications")
        )

        def version_saved(sender, instance, created, raw=False, **kwargs):
            # raw: loaddata (a restore) brings the frozen citation with it
            if created and not raw:
                from .citation import freeze_citation

                # in the version's own transaction: its citation is frozen
                # with it, whatever the profiles say later
                freeze_citation(instance)
                # imported here, not at start-up: it pulls in the design PDF
                # (reportlab); its job is found by name when it runs
                from . import deposit

                deposit.schedule_deposit(instance)

        post_save.connect(
            version_saved,
            sender=RegistrationVersion,
            dispatch_uid="publicrecord.deposit_new_versions",
            weak=False,
        )
