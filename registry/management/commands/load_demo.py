from django.core.management.base import BaseCommand
from django.db import transaction

from registry.demo.accounts import (
    DEMO_ACCOUNTS,
    ensure_demo_accounts,
    ensure_demo_call,
)
from registry.demo.load import load_demo_challenges


class Command(BaseCommand):
    help = "Load the demo call, demo accounts and demo challenges (idempotent)."

    @transaction.atomic
    def handle(self, *args, **opts):
        call = ensure_demo_call()
        users = ensure_demo_accounts(call)
        challenges = load_demo_challenges(call, users)
        self.stdout.write(self.style.SUCCESS("Demo data loaded. Accounts:"))
        for username, password, role, institution, _ in DEMO_ACCOUNTS:
            self.stdout.write(f"  {username:<12} {password:<22} {role} ({institution})")
        self.stdout.write("Demo challenges:")
        for challenge in challenges:
            self.stdout.write(
                f"  {challenge.name} ({challenge.get_status_display().lower()}, "
                f"{challenge.tasks.count()} tasks)"
            )
        self.stdout.write("Open http://127.0.0.1:8000/ and sign in.")
