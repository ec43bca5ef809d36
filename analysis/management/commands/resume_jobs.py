"""Re-enqueue analysis runs that a restart or a lost worker left behind.

Run it from the web container's start script and from cron (every few
minutes): queued runs are enqueued again, running runs with no sign of life
for `--stale-minutes` (default JOBS_STALE_MINUTES) are put back in the queue.
"""

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from analysis.services import resume_analyses


class Command(BaseCommand):
    help = "Re-enqueue queued analysis runs and requeue stale running ones."

    def add_arguments(self, parser):
        parser.add_argument(
            "--stale-minutes",
            type=int,
            default=settings.JOBS_STALE_MINUTES,
            help="A running job silent for this long is taken to be lost.",
        )

    def handle(self, *args, stale_minutes: int, **options):
        if stale_minutes < 1:
            raise CommandError("--stale-minutes must be at least 1.")
        stale, queued = resume_analyses(stale_after=timedelta(minutes=stale_minutes))
        self.stdout.write(
            f"{len(stale)} stale running run(s) requeued {stale}; "
            f"{len(queued)} queued run(s) enqueued {queued}."
        )
