"""`manage.py restore DIR`: replace the database and the media files with a
backup's, then verify every registration and every report file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from analysis.backups import BackupError, restore


class Command(BaseCommand):
    help = (
        "Restore DIR (made by `backup`): the database is REPLACED; then verify "
        "registrations and report files."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path, metavar="DIR")

    def handle(self, *args, directory: Path, **options):
        try:
            report = restore(directory)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        for problem in report.problems:
            self.stderr.write(problem)
        if report.problems:
            raise CommandError(
                f"Restored, but {len(report.problems)} problem(s) found (above)."
            )
        self.stdout.write(
            f"Restored. {report.registrations} "
            f"{report.reports_checked} report file(s) match their SHA-256."
        )
