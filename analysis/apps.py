from collections.abc import Callable

from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "Analysis"

    def job_runs(self) -> list[tuple[type, Callable[[int], None]]]:
        """The app's kinds of background run, each with the function that
        sends its job (the watchdog, ``resume_jobs``, resumes them)."""
        from .models import AnalysisRun, PlanRun
        from .plan_runs import send_plan_run
        from .services import send_analysis

        return [(AnalysisRun, send_analysis), (PlanRun, send_plan_run)]
