from collections.abc import Callable

from django.apps import AppConfig


class CharacteristicsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "characteristics"
    verbose_name = "Case characteristics"

    def ready(self) -> None:
        # The analysis report gets a case-characteristics section (its hook).
        from analysis.run_report import FURTHER_ANALYSES

        from .services import report_section_for

        if report_section_for not in FURTHER_ANALYSES:
            FURTHER_ANALYSES.append(report_section_for)

    def job_runs(self) -> list[tuple[type, Callable[[int], None]]]:
        """Case-model fits, for the watchdog (see ``AnalysisConfig.job_runs``)."""
        from .models import CaseModelRun
        from .services import send_case_model_run

        return [(CaseModelRun, send_case_model_run)]
