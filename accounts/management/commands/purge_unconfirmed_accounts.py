from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts.verification import purge_unconfirmed


class Command(BaseCommand):
    help = (
        "Delete signed-up accounts whose e-mail address was not confirmed within "
        "EMAIL_VERIFICATION_SECONDS, freeing their usernames (run it daily)."
    )

    def handle(self, *args, **opts):
        before = timezone.now() - timedelta(seconds=settings.EMAIL_VERIFICATION_SECONDS)
        names = purge_unconfirmed(joined_before=before)
        self.stdout.write(f"Deleted {len(names)} unconfirmed account(s).")
