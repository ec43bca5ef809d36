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
