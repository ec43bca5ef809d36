"""E-mails rendered from editable templates: `<folder>/email/<name>_subject.txt`
and `<name>_body.txt`. Shared by the registry's and the review workflow's mails;
callers queue them with `transaction.on_commit`, so a rolled-back request sends
nothing."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string

from config.site import site_url

from .models import Amendment


def send_templated(template: str, context: dict, recipients: Iterable[str]) -> int:
    """Send `template` ("reviews/email/decision") to each distinct recipient
    with an address; the number of mails sent (0 when nobody has one)."""
    recipients = sorted({r for r in recipients if r})
    if not recipients:
        return 0
    context = {**context, "site_url": site_url()}
    subject = render_to_string(f"{template}_subject.txt", context)
    body = render_to_string(f"{template}_body.txt", context)
    return send_mail(
        " ".join(subject.split()), body, settings.DEFAULT_FROM_EMAIL, recipients
    )


def send_amendment_proposed(amendment_id: int) -> int:
    """To the chairs of the registration's call: an amendment waits for them."""
    amendment = Amendment.objects.select_related(
        "registration__challenge__call", "proposed_by"
    ).get(pk=amendment_id)
    challenge = amendment.registration.challenge
    return send_templated(
        "registry/email/amendment_proposed",
        {"amendment": amendment, "challenge": challenge},
        challenge.call.chairs.values_list("email", flat=True),
    )
