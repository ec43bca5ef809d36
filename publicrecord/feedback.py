"""Open feedback on registered challenges: comments, organizers' answers, moderation.

- Anyone may read a thread, signed in or not. A hidden comment keeps its place
  but not its text; the reason it was hidden is public.
- Signed-in users comment (category design, data or annotations); the
  organizers answer; the chairs of the call hide a comment with a reason. Each
  action is recorded in the audit log, in the same transaction.
- Comments and answers of one person are limited to `FEEDBACK_RATE_LIMIT` per
  `FEEDBACK_RATE_WINDOW_SECONDS` (counted in the database, so every web process
  sees the same count).
- E-mails (after commit): a comment to the organizers, an answer to the
  comment's author, a hidden comment to its author.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from audit.services import record
from config.site import absolute_url
from registry.mail import send_templated
from registry.models import Registration
from registry.permissions import is_chair, is_organizer

from .models import Feedback, FeedbackAnswer, FeedbackCategory


def max_chars() -> int:
    return settings.FEEDBACK_MAX_CHARS


def rate_limit() -> tuple[int, int]:
    return settings.FEEDBACK_RATE_LIMIT, settings.FEEDBACK_RATE_WINDOW_SECONDS


class HiddenCommentError(ValidationError):
    """The comment is hidden already: not possible in its state (the API
    answers 409; the pages show it as any refusal)."""


class RateLimitedError(Exception):
    """Too many comments and answers in the window; retry after `wait` seconds."""

    def __init__(self, wait: int):
        self.wait = wait
        super().__init__(
            f"You have reached the limit of {rate_limit()[0]} comments and answers "
            f"per {rate_limit()[1] // 60} minutes; try again in {wait // 60 + 1} "
            "minutes."
        )


# --- reads -----------------------------------------------------------------------


def thread(registration: Registration) -> QuerySet[Feedback]:
    return (
        Feedback.objects.filter(registration=registration)
        .select_related("author", "hidden_by")
        .prefetch_related("answers__author")
        .order_by("created", "pk")
    )


def answer_data(answer: FeedbackAnswer) -> dict[str, Any]:
    return {
        "id": answer.pk,
        "text": answer.text,
        "author": answer.author.get_username(),
        "created": answer.created.isoformat(),
    }


def feedback_data(feedback: Feedback) -> dict[str, Any]:
    """The public form of a comment; a hidden one without its text."""
    data: dict[str, Any] = {
        "id": feedback.pk,
        "category": feedback.category,
        "author": feedback.author.get_username(),
        "created": feedback.created.isoformat(),
        "hidden": feedback.hidden,
        "answers": [answer_data(a) for a in feedback.answers.all()],
    }
    if feedback.hidden:
        data["hidden_reason"] = feedback.hidden_reason
    else:
        data["text"] = feedback.text
    return data


def can_answer(user, registration: Registration) -> bool:
    return is_organizer(user, registration.challenge)


def can_moderate(user, registration: Registration) -> bool:
    return is_chair(user, registration.challenge)


# --- writes ----------------------------------------------------------------------


def _clean_text(text: Any, field: str = "text") -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValidationError({field: f"{field}: write something."})
    text = text.strip()
    if len(text) > max_chars():
        raise ValidationError(
            {field: f"{field}: at most {max_chars()} characters ({len(text)} given)."}
        )
    return text


def _check_rate(user) -> None:
    # Lock the author's row: two requests at once cannot both take the last slot.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    limit, window = rate_limit()
    since = timezone.now() - dt.timedelta(seconds=window)
    recent = list(
        Feedback.objects.filter(author=user, created__gte=since).values_list(
            "created", flat=True
        )
    ) + list(
        FeedbackAnswer.objects.filter(author=user, created__gte=since).values_list(
            "created", flat=True
        )
    )
    if len(recent) >= limit:
        oldest = sorted(recent)[len(recent) - limit]
        wait = int(
            (oldest + dt.timedelta(seconds=window) - timezone.now()).total_seconds()
        )
        raise RateLimitedError(max(wait, 1))


@transaction.atomic
def post_feedback(
    *, registration: Registration, author, category: Any, text: Any
) -> Feedback:
    if not getattr(author, "is_authenticated", False):
        raise PermissionDenied("Sign in to comment.")
    if category not in FeedbackCategory.values:
        raise ValidationError(
            {
                "category": f"category: {category!r} is not one of "
                f"{', '.join(FeedbackCategory.values)}."
            }
        )
    text = _clean_text(text)
    _check_rate(author)
    feedback = Feedback.objects.create(
        registration=registration, author=author, category=category, text=text
    )
    record(
        actor=author,
        action="feedback.post",
        target=feedback,
        registration=registration.identifier,
        category=category,
    )
    transaction.on_commit(lambda: send_feedback_posted(feedback.pk))
    return feedback


@transaction.atomic
def answer_feedback(*, feedback: Feedback, author, text: Any) -> FeedbackAnswer:
    registration = feedback.registration
    if not can_answer(author, registration):
        raise PermissionDenied("Only the challenge's organizers answer feedback.")
    if feedback.hidden:
        raise HiddenCommentError({"feedback": "A hidden comment cannot be answered."})
    text = _clean_text(text)
    _check_rate(author)
    answer = FeedbackAnswer.objects.create(feedback=feedback, author=author, text=text)
    record(
        actor=author,
        action="feedback.answer",
        target=answer,
        feedback=feedback.pk,
        registration=registration.identifier,
    )
    transaction.on_commit(lambda: send_feedback_answered(answer.pk))
    return answer


@transaction.atomic
def hide_feedback(*, feedback: Feedback, actor, reason: Any) -> Feedback:
    feedback = Feedback.objects.select_for_update().get(pk=feedback.pk)
    if not can_moderate(actor, feedback.registration):
        raise PermissionDenied("Only the chairs of the call hide feedback.")
    if feedback.hidden:
        raise HiddenCommentError({"feedback": "This comment is already hidden."})
    reason = _clean_text(reason, "reason")
    feedback.hidden = True
    feedback.hidden_reason = reason
    feedback.hidden_by = actor
    feedback.hidden_at = timezone.now()
    feedback.save(update_fields=["hidden", "hidden_reason", "hidden_by", "hidden_at"])
    # The audit log keeps the reason and the text that was hidden.
    record(
        actor=actor,
        action="feedback.hide",
        target=feedback,
        reason=reason,
        text=feedback.text,
        registration=feedback.registration.identifier,
    )
    transaction.on_commit(lambda: send_feedback_hidden(feedback.pk))
    return feedback


# --- e-mail ----------------------------------------------------------------------


def thread_url(registration: Registration) -> str:
    return absolute_url(
        reverse("publicrecord:feedback", args=[registration.identifier])
    )


def _send(name: str, context: dict, recipients) -> int:
    return send_templated(f"publicrecord/email/{name}", context, recipients)


def send_feedback_posted(feedback_id: int) -> int:
    """To the organizers: a comment on their registered challenge."""
    feedback = Feedback.objects.select_related(
        "registration__challenge__owner", "author"
    ).get(pk=feedback_id)
    challenge = feedback.registration.challenge
    emails = [challenge.owner.email, *(u.email for u in challenge.co_organizers.all())]
    return _send(
        "feedback_posted",
        {"feedback": feedback, "url": thread_url(feedback.registration)},
        emails,
    )


def send_feedback_answered(answer_id: int) -> int:
    """To the comment's author: the organizers answered."""
    answer = FeedbackAnswer.objects.select_related(
        "feedback__registration", "feedback__author", "author"
    ).get(pk=answer_id)
    feedback = answer.feedback
    return _send(
        "feedback_answered",
        {
            "answer": answer,
            "feedback": feedback,
            "url": thread_url(feedback.registration),
        },
        [feedback.author.email],
    )


def send_feedback_hidden(feedback_id: int) -> int:
    """To the comment's author: a chair hid it, and why."""
    feedback = Feedback.objects.select_related("registration", "author").get(
        pk=feedback_id
    )
    return _send(
        "feedback_hidden",
        {"feedback": feedback, "url": thread_url(feedback.registration)},
        [feedback.author.email],
    )
