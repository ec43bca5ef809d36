from django.core.management.base import BaseCommand, CommandError

from registry.models import Registration, RegistrationVersion
from registry.registration import verify_all_registrations


class Command(BaseCommand):
    help = "Recompute every registration hash and chain link; fail on any mismatch."

    def handle(self, *args, **opts):
        problems = verify_all_registrations()
        for p in problems:
            self.stderr.write(f"{p.identifier} v{p.version}: {p.message}")
        if problems:
            raise CommandError(f"{len(problems)} problem(s) found.")
        self.stdout.write(
            f"OK: {Registration.objects.count()} registrations, "
            f"{RegistrationVersion.objects.count()} versions verified."
        )
