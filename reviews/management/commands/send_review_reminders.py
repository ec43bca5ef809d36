"""Remind reviewers of reviews due soon. Run daily from cron, e.g.

0 8 * * *  python manage.py send_review_reminders --days 3
"""

from django.core.management.base import BaseCommand, CommandError

from reviews.notifications import send_reminder
from reviews.selectors import reviews_due_within


class Command(BaseCommand):
    help = "E-mail reviewers whose pending review is due within N days."

    def add_arguments(self, parser):
        parser.add_argument(
            "--days", type=int, default=3, help="Look-ahead in days (default 3)."
        )

    def handle(self, *args, days: int, **options):
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        sent = sum(send_reminder(a.pk) for a in reviews_due_within(days))
        self.stdout.write(
            f"Sent {sent} reminder(s) for reviews due within {days} day(s)."
        )
