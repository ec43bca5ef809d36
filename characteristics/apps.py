from collections.abc import Callable

from django.apps import AppConfig


class CharacteristicsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "characteristics"
    verbose_name = "Case characteristics"

    def ready(self) -> None:
        # The analysis report gets a case-characteristics section (its hook,
        # imported when a report is rendered).
        from analysis.report_hooks import add_report_section

        add_report_section("characteristics.services.report_section_for")
        # verify_registrations (and a restore's check) re-hashes the stored files
        from registry.verifiers import Verifier, add_verifier

        add_verifier(
            Verifier(
                "case-model files", "characteristics.verify.verify_case_model_files"
            )
        )

    def job_runs(self) -> list[tuple[type, Callable[[int], None]]]:
        """Case-model fits, for the watchdog (see ``AnalysisConfig.job_runs``)."""
        from .models import CaseModelRun
        from .services import send_case_model_run

        return [(CaseModelRun, send_case_model_run)]
