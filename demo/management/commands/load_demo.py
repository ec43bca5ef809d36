from django.core.management.base import BaseCommand
from django.db import transaction
from django.test import override_settings
from django.urls import reverse

from characteristics.models import CaseModelRun
from demo import fetal, liver
from demo.accounts import (
    DEMO_ACCOUNTS,
    ensure_demo_accounts,
    ensure_demo_call,
)
from demo.load import ensure_design, load_demo_challenges
from demo.story import advance_msd, advance_robustmis, latest_run, put_under_review
from registry.enums import ChallengeStatus
from registry.models import Challenge
from registry.selectors import completeness_of
from reviews.enums import AssignmentStatus

SITE = "http://127.0.0.1:8000"


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
        under_review = put_under_review(
            ensure_design(liver, call, users),
            users,
            scheme=liver.SCHEME,
            review=liver.SUBMITTED_REVIEW,
            plan=liver.PLAN,
        )
        draft = ensure_design(fetal, call, users)
        challenges += [under_review, draft]
        self.stdout.write(self.style.SUCCESS("Demo data loaded. Accounts:"))
        for username, password, role, institution, _ in DEMO_ACCOUNTS:
            self.stdout.write(f"  {username:<12} {password:<22} {role} ({institution})")
        self.stdout.write("Demo challenges:")
        for challenge in challenges:
            challenge.refresh_from_db()
            tasks = challenge.tasks.count()
            self.stdout.write(
                f"  {challenge.name} ({challenge.get_status_display().lower()}, "
                f"{tasks} task{'' if tasks == 1 else 's'})"
            )
        if registration is not None:
            run = latest_run(registration)
            self.stdout.write(
                f"Registered: {registration.identifier} (public page "
                f"{SITE}/registry/{registration.identifier}/); "
                f"analysis {run.status if run else 'not run'}."
            )
        case_run = CaseModelRun.objects.filter(
            metadata__results__registration=robustmis
        ).first()
        for published in (registration, robustmis):
            if published is not None and published.publications.exists():
                self.stdout.write(
                    f"Published results of {published.identifier}: "
                    f"{SITE}/registry/{published.identifier}/results/"
                )
        if case_run is not None:
            self.stdout.write(
                f"RobustMIS: registered {robustmis.identifier}; strengths and "
                "weaknesses by case characteristics at "
                f"{SITE}/case-models/{case_run.pk}/"
            )
        self.stdout.write("Paths to walk, by account:")
        for line in review_paths(under_review) + draft_paths(draft):
            self.stdout.write(f"  {line}")
        self.stdout.write(f"Open {SITE}/ and sign in.")


def review_paths(challenge: Challenge) -> list[str]:
    """Who has what to do in the review of `challenge`, while it is open."""
    if challenge.status != ChallengeStatus.UNDER_REVIEW:
        return []
    review_url = SITE + reverse("reviews:review", args=[challenge.pk])
    assignments = list(challenge.assignments.select_related("reviewer"))
    lines = [f"“{challenge.name}” (under review):"]
    for assignment in assignments:
        who = f"  {assignment.reviewer.get_username():<12}"
        if assignment.status == AssignmentStatus.ASSIGNED:
            lines.append(
                f"{who} open {assignment.role} review, due {assignment.due:%Y-%m-%d}; "
                f"the other reviews stay hidden until it is in: {review_url}"
            )
        elif assignment.status == AssignmentStatus.SUBMITTED:
            lines.append(
                f"{who} reviewed revision {challenge.revision}; sees the other "
                f"reviews as they come in: {review_url}"
            )
    submitted = sum(a.status == AssignmentStatus.SUBMITTED for a in assignments)
    manage_url = SITE + reverse("reviews:manage", args=[challenge.pk])
    lines.append(
        f"  {'chair':<12} decision open, {submitted} of {len(assignments)} "
        f"reviews in: {manage_url}"
    )
    return lines


def draft_paths(challenge: Challenge) -> list[str]:
    """What the organizers of the draft `challenge` find to edit."""
    if challenge.status != ChallengeStatus.DRAFT:
        return []
    state = [
        f"{completeness_of(challenge).submission.percent} % of the required parameters"
    ]
    without_scheme = [t.name for t in challenge.tasks.all() if not t.scheme]
    if without_scheme:
        state.append(f"no ranking scheme yet for {', '.join(without_scheme)}")
    overview_url = SITE + reverse("registry:overview", args=[challenge.pk])
    editor_url = SITE + reverse("registry:edit", args=[challenge.pk])
    return [f"“{challenge.name}” (draft, {'; '.join(state)}):"] + [
        f"  {user.get_username():<12} overview {overview_url}, editor {editor_url}"
        for user in [challenge.owner, *challenge.co_organizers.all()]
    ]
