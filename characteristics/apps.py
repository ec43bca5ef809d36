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
