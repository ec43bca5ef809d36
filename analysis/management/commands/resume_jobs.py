"""The jobs watchdog: run it every minute (compose's `jobs-watchdog`) and when
the web process starts. It looks after every kind of background run (analyses,
case-model fits: the runs every app lists in its `AppConfig.job_runs()`).

Runs over their wall-time limit are failed; running runs with no sign of life
for `--stale-seconds` (default JOBS_STALE_SECONDS) are put back in the queue;
queued runs whose job never reached the queue (the broker was down) or may
have been lost are sent again, and so is every chunk of a running chunked
analysis whose job has been silent as long (its worker died). `--retry RUN`
queues a failed run again. First of all, analysis starts accepted while the
database was down are decided (analysis/outage.py).
"""

from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from analysis.models import AnalysisRun
from analysis.outage import drain_spool
from analysis.run_state import resume_runs
from analysis.services import (
    NotRetryableError,
    resend_stalled_chunks,
    retry_analysis,
)


class Command(BaseCommand):
    help = "Resume lost analysis runs and send queued ones; --retry RUN retries one."

    def add_arguments(self, parser):
        parser.add_argument(
            "--stale-seconds",
            type=int,
            default=None,
            help="A running job silent for this long is taken to be lost "
            f"(default JOBS_STALE_SECONDS, {settings.JOBS_STALE_SECONDS}).",
        )
        parser.add_argument(
            "--stale-minutes", type=int, default=None, help="The same, in minutes."
        )
        parser.add_argument(
            "--retry",
            type=int,
            metavar="RUN",
            help="Queue the failed analysis run RUN again (then exit).",
        )

    def handle(self, *args, stale_seconds, stale_minutes, retry, **options):
        if retry is not None:
            return self._retry(retry)
        seconds = stale_seconds if stale_seconds is not None else None
        if stale_minutes is not None:
            seconds = stale_minutes * 60
        if seconds is not None and seconds < 1:
            raise CommandError("The stale limit must be at least 1 second.")
        stale_after = timedelta(seconds=seconds) if seconds else None
        self._drain_spool()
        kinds = (
            kind
            for config in apps.get_app_configs()
            if hasattr(config, "job_runs")
            for kind in config.job_runs()
        )
        for model, send in kinds:
            report = resume_runs(model, send, stale_after=stale_after)
            self.stdout.write(
                f"{model._meta.verbose_name_plural}: "
                f"{len(report.stale)} stale running run(s) requeued "
                f"{report.stale}; {len(report.queued)} queued run(s) "
                f"enqueued {report.queued}; {len(report.failed)} run(s) "
                f"failed {report.failed}."
            )
        stalled = resend_stalled_chunks(
            stale_after or timedelta(seconds=settings.JOBS_STALE_SECONDS)
        )
        self.stdout.write(
            f"analysis chunks: {len(stalled)} stalled chunk(s) sent again {stalled}."
        )

    def _drain_spool(self) -> None:
        spooled = drain_spool()
        line = (
            f"analysis starts accepted during an outage: {len(spooled.started)} "
            f"started, {len(spooled.refused)} refused"
        )
        if spooled.spool_error:
            line += f"; the spool does not answer: {spooled.spool_error}"
        self.stdout.write(line + ".")

    def _retry(self, run_id: int) -> None:
        run = AnalysisRun.objects.filter(pk=run_id).first()
        if run is None:
            raise CommandError(f"There is no analysis run {run_id}.")
        try:
            retry_analysis(run=run)
        except NotRetryableError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Analysis run {run_id} queued again.")
