"""E-mails of the review workflow, rendered from editable templates.

Each mail has `templates/reviews/email/<name>_subject.txt` and `<name>_body.txt`.
Services queue these functions with `transaction.on_commit`, passing ids, so a
rolled-back request sends nothing. Mails to organizers never name reviewers.
"""

from __future__ import annotations

from collections.abc import Iterable

from registry.mail import send_templated

from .models import Assignment, Decision, ProposalVersion, Review


def _send(name: str, context: dict, recipients: Iterable[str]) -> int:
    return send_templated(f"reviews/email/{name}", context, recipients)


def _organizer_emails(challenge) -> list[str]:
    return [challenge.owner.email, *(u.email for u in challenge.co_organizers.all())]


def _to_reviewer(kind: str, assignment_id: int) -> int:
    assignment = Assignment.objects.select_related("challenge", "reviewer").get(
        pk=assignment_id
    )
    return _send(
        kind,
        {"assignment": assignment, "challenge": assignment.challenge},
        [assignment.reviewer.email],
    )


def send_assignment(assignment_id: int) -> int:
    """To the reviewer: you have been asked to review."""
    return _to_reviewer("assignment", assignment_id)


def send_review_submitted(review_id: int) -> int:
    """To the chairs of the call: a review came in."""
    review = Review.objects.select_related(
        "assignment__challenge__call", "assignment__reviewer"
    ).get(pk=review_id)
    challenge = review.assignment.challenge
    return _send(
        "review_submitted",
        {"review": review, "challenge": challenge, "assignment": review.assignment},
        challenge.call.chairs.values_list("email", flat=True),
    )


def send_conflict_withdrawal(assignment_id: int) -> int:
    """To the chairs of the call: an assignment was withdrawn for a conflict."""
    assignment = Assignment.objects.select_related("challenge__call", "reviewer").get(
        pk=assignment_id
    )
    challenge = assignment.challenge
    return _send(
        "conflict_withdrawal",
        {"assignment": assignment, "challenge": challenge},
        challenge.call.chairs.values_list("email", flat=True),
    )


def send_decision(decision_id: int) -> int:
    """To the organizers: the decision with the chair's letter."""
    decision = Decision.objects.select_related("challenge__owner").get(pk=decision_id)
    challenge = decision.challenge
    return _send(
        "decision",
        {"decision": decision, "challenge": challenge},
        _organizer_emails(challenge),
    )


def send_resubmission(version_id: int) -> int:
    """To the (non-declined) reviewers: a revision is ready, with the response."""
    version = ProposalVersion.objects.select_related("challenge").get(pk=version_id)
    challenge = version.challenge
    previous = (
        challenge.versions.filter(revision__lt=version.revision)
        .order_by("-revision")
        .first()
    )
    recipients = [
        a.reviewer.email
        for a in challenge.assignments.select_related("reviewer").exclude(
            status="declined"
        )
    ]
    return _send(
        "resubmission",
        {"version": version, "challenge": challenge, "previous": previous},
        recipients,
    )


def send_reminder(assignment_id: int) -> int:
    """To a reviewer whose review is due soon."""
    return _to_reviewer("reminder", assignment_id)
