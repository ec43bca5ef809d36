"""Publishing an analysis as a registered challenge's result (issue 27).

The one writer of :class:`publicrecord.models.Publication`. A publication is
permanent: a correction is a new publication superseding the previous one,
and both stay readable. Only a finished run of the *registered* scheme can be
the result; a run of an exploratory scheme is published alongside a result,
labelled exploratory. Every refusal names what is wrong and changes nothing.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from analysis.models import AnalysisRun, AnalysisStatus
from analysis.output import output_bytes
from audit.services import record
from registry.canonical import sha256_hex
from registry.models import Challenge, Registration
from registry.permissions import is_chair, is_organizer

from .models import Publication

RESULT = "result"
EXPLORATORY = "exploratory"
ROLES = (RESULT, EXPLORATORY)


def can_publish(user, registration: Registration) -> bool:
    """Organizers of the challenge and chairs of its call publish its results."""
    challenge = registration.challenge
    return is_organizer(user, challenge) or is_chair(user, challenge)


def _clean_publish_as(publish_as: Any, run: AnalysisRun) -> bool:
    """Whether the publication is exploratory; refuses what the run cannot be."""
    if publish_as not in ROLES:
        raise ValidationError(
            {"publish_as": f"Expected 'result' or 'exploratory', got {publish_as!r}."}
        )
    if publish_as == RESULT and run.exploratory:
        raise ValidationError(
            {
                "publish_as": f"Analysis {run.pk} ran an exploratory scheme, not the "
                "registered one, so it cannot be the challenge's result; publish "
                "it as exploratory, alongside the result."
            }
        )
    if publish_as == EXPLORATORY and not run.exploratory:
        raise ValidationError(
            {
                "publish_as": f"Analysis {run.pk} ran the registered scheme; "
                "publish it as the result, not as exploratory."
            }
        )
    return publish_as == EXPLORATORY


def _clean_embargo(public_from: Any) -> datetime.date | None:
    if public_from in (None, ""):
        return None
    if isinstance(public_from, str):
        try:
            public_from = datetime.date.fromisoformat(public_from)
        except ValueError:
            raise ValidationError(
                {"public_from": f"Expected a date YYYY-MM-DD, got {public_from!r}."}
            ) from None
    if not isinstance(public_from, datetime.date):
        raise ValidationError({"public_from": "Expected a date YYYY-MM-DD."})
    today = timezone.now().date()
    if public_from <= today:
        raise ValidationError(
            {
                "public_from": f"{public_from.isoformat()} is not after today "
                f"({today.isoformat()}, UTC); leave the date empty to publish now."
            }
        )
    limit = settings.PUBLICATION_MAX_EMBARGO_DAYS
    if (public_from - today).days > limit:
        raise ValidationError(
            {
                "public_from": f"An embargo may last at most {limit} days "
                f"(until {(today + datetime.timedelta(days=limit)).isoformat()})."
            }
        )
    return public_from


def _clean_note(note: Any, *, required: bool) -> str:
    text = note.strip() if isinstance(note, str) else ""
    if note is not None and not isinstance(note, str):
        raise ValidationError({"note": "Expected text."})
    if required and not text:
        raise ValidationError(
            {"note": "A correction says what it corrects and why: write a note."}
        )
    limit = settings.PUBLICATION_NOTE_MAX_CHARS
    if len(text) > limit:
        raise ValidationError(
            {"note": f"At most {limit} characters (this note has {len(text)})."}
        )
    return text


def current_publication(
    registration: Registration, *, exploratory: bool
) -> Publication | None:
    """The latest publication of this kind that nothing supersedes (public or not)."""
    return (
        Publication.objects.filter(
            registration=registration,
            exploratory=exploratory,
            superseded_by__isnull=True,
        )
        .order_by("-number")
        .first()
    )


def _clean_supersedes(
    supersedes: Any, registration: Registration, *, exploratory: bool
) -> Publication | None:
    """The publication a new one corrects; a result needs one once published."""
    current = current_publication(registration, exploratory=exploratory)
    if supersedes in (None, ""):
        if current is not None and not exploratory:
            raise ValidationError(
                {
                    "supersedes": f"The result is already published (publication "
                    f"{current.number}); a new result is a correction: give the "
                    "publication it supersedes and a note."
                }
            )
        return None
    try:
        number = int(supersedes)
    except (TypeError, ValueError):
        raise ValidationError(
            {"supersedes": f"Expected a publication number, got {supersedes!r}."}
        ) from None
    target = Publication.objects.filter(
        registration=registration, number=number
    ).first()
    if target is None:
        raise ValidationError(
            {"supersedes": f"{registration.identifier} has no publication {number}."}
        )
    if target.exploratory != exploratory:
        kind = "an exploratory analysis" if target.exploratory else "the result"
        raise ValidationError(
            {
                "supersedes": f"Publication {number} is {kind}; a correction "
                "supersedes a publication of its own kind."
            }
        )
    if current is None or target.pk != current.pk:
        later = getattr(target, "superseded_by", None)
        raise ValidationError(
            {
                "supersedes": f"Publication {number} is already superseded by "
                f"publication {later.number if later else '?'}; correct the latest."
            }
        )
    return target


def _check_run(run: AnalysisRun, registration: Registration) -> None:
    if run.status != AnalysisStatus.DONE or run.output is None:
        raise ValidationError(
            {
                "analysis": f"Analysis {run.pk} is {run.get_status_display().lower()}"
                "; only a finished analysis can be published."
            }
        )
    if not run.report_sha256:
        raise ValidationError(
            {"analysis": f"Analysis {run.pk} has no report to publish."}
        )
    already = run.publications.filter(superseded_by__isnull=True).first()
    if already is not None:
        raise ValidationError(
            {
                "analysis": f"Analysis {run.pk} is already published "
                f"(publication {already.number} of {registration.identifier})."
            }
        )


@transaction.atomic
def publish_analysis(
    *,
    run: AnalysisRun,
    actor,
    publish_as: Any = RESULT,
    public_from: Any = None,
    supersedes: Any = None,
    note: Any = "",
) -> Publication:
    """Publish a finished run on its registration's public record.

    ``publish_as``: ``"result"`` (a run of the registered scheme) or
    ``"exploratory"`` (alongside a published result). ``supersedes``: the
    number of the publication this one corrects (required once a result is
    published; the correction needs a ``note``). ``public_from``: an embargo
    date after today. Recorded in the audit log.
    """
    registration = Registration.objects.select_for_update().get(
        pk=run.results.registration_id
    )
    if not can_publish(actor, registration):
        raise PermissionDenied(
            "Only the challenge's organizers and its call's chairs publish results."
        )
    run = AnalysisRun.objects.select_related("results").get(pk=run.pk)
    exploratory = _clean_publish_as(publish_as, run)
    _check_run(run, registration)
    previous = _clean_supersedes(supersedes, registration, exploratory=exploratory)
    if exploratory and current_publication(registration, exploratory=False) is None:
        raise ValidationError(
            {
                "publish_as": "Exploratory analyses are published alongside the "
                "result: publish the analysis of the registered scheme first."
            }
        )
    embargo = _clean_embargo(public_from)
    text = _clean_note(note, required=previous is not None)
    last = registration.publications.order_by("-number").first()
    publication = Publication.objects.create(
        registration=registration,
        number=(last.number if last else 0) + 1,
        version=run.results.registration_version,
        run=run,
        exploratory=exploratory,
        supersedes=previous,
        note=text,
        public_from=embargo,
        results_sha256=sha256_hex(run.results.content.encode()),
        output_sha256=sha256_hex(output_bytes(run.output)),
        report_sha256=run.report_sha256,
        published_by=actor,
    )
    record(
        actor=actor,
        action="publication.publish",
        target=publication,
        registration=registration.identifier,
        number=publication.number,
        analysis=run.pk,
        exploratory=exploratory,
        supersedes=previous.number if previous else None,
        public_from=embargo.isoformat() if embargo else None,
    )
    # Anonymous pages are cached under a generation that sees challenge rows
    # saved (registry.page_cache): the record page now links the results.
    Challenge.objects.filter(pk=registration.challenge_id).update(
        updated=timezone.now()
    )
    return publication
