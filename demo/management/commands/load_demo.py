from django.core.management.base import BaseCommand
from django.db import transaction
from django.test import override_settings

from characteristics.models import CaseModelRun
from demo.accounts import (
    DEMO_ACCOUNTS,
    ensure_demo_accounts,
    ensure_demo_call,
)
from demo.load import load_demo_challenges
from demo.story import advance_msd, advance_robustmis, latest_run


class Command(BaseCommand):
    help = "Load the demo call, demo accounts and demo challenges (idempotent)."

    # The demo's own review mails would flood the console; keep them in memory.
    @override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
    @transaction.atomic
    def handle(self, *args, **opts):
        call = ensure_demo_call()
        users = ensure_demo_accounts(call)
        challenges = load_demo_challenges(call, users)
        self.stdout.write(
            "Taking the MSD demo through review, registration and "
            "analysis (first run: about a minute)…"
        )
        registration = advance_msd(challenges[0], users)
        self.stdout.write(
            "Taking RobustMIS to a registration with a case-characteristics "
            "analysis (Reinke's thesis, section 5.4)…"
        )
        robustmis = advance_robustmis(challenges[1], users)
        self.stdout.write(self.style.SUCCESS("Demo data loaded. Accounts:"))
        for username, password, role, institution, _ in DEMO_ACCOUNTS:
            self.stdout.write(f"  {username:<12} {password:<22} {role} ({institution})")
        self.stdout.write("Demo challenges:")
        for challenge in challenges:
            challenge.refresh_from_db()
            self.stdout.write(
                f"  {challenge.name} ({challenge.get_status_display().lower()}, "
                f"{challenge.tasks.count()} tasks)"
            )
        if registration is not None:
            run = latest_run(registration)
            self.stdout.write(
                f"Registered: {registration.identifier} (public page "
                f"http://127.0.0.1:8000/registry/{registration.identifier}/); "
                f"analysis {run.status if run else 'not run'}."
            )
        case_run = CaseModelRun.objects.filter(
            metadata__results__registration=robustmis
        ).first()
        if case_run is not None:
            self.stdout.write(
                f"RobustMIS: registered {robustmis.identifier}; strengths and "
                "weaknesses by case characteristics at "
                f"http://127.0.0.1:8000/case-models/{case_run.pk}/"
            )
        self.stdout.write("Open http://127.0.0.1:8000/ and sign in.")
