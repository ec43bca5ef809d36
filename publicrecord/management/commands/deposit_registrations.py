"""Deposit every registration version not yet published in the repository."""

from django.core.management.base import BaseCommand, CommandError

from publicrecord.deposit import deposit_version, enabled, pending_versions
from publicrecord.models import DepositStatus


class Command(BaseCommand):
    help = "Deposit the registration versions still missing (needs ZENODO_TOKEN)."

    def handle(self, *args, **options):
        if not enabled():
            raise CommandError("Deposits are off: set ZENODO_TOKEN (and ZENODO_URL).")
        failed = done = 0
        for version in pending_versions().select_related("registration"):
            deposit = deposit_version(version.pk)
            name = f"{version.registration.identifier} v{version.number}"
            if deposit is not None and deposit.status == DepositStatus.DONE:
                done += 1
                self.stdout.write(f"{name}: {deposit.doi}")
            else:
                failed += 1
                error = deposit.error if deposit is not None else "not deposited"
                self.stderr.write(f"{name}: {error}")
        if failed:
            raise CommandError(f"{failed} deposit(s) failed; {done} published.")
        self.stdout.write(f"{done} deposit(s) published.")
