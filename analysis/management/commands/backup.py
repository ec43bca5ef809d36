"""`manage.py backup DIR`: the database and the media files, with a manifest."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from analysis.backups import BackupError, backup


class Command(BaseCommand):
    help = "Back up the database and the media files into DIR (new or empty)."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path, metavar="DIR")

    def handle(self, *args, directory: Path, **options):
        try:
            manifest = backup(directory)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Backed up the {manifest['database']['vendor']} database and "
            f"{len(manifest['media'])} media file(s) to {directory}."
        )
