"""Reads of published results shared by pages, API, statistics and exports.

Public means published and past its embargo (``public_from`` empty or not
after today, UTC). Everything anonymous readers reach — the results pages,
their downloads and figures, the API, the statistics, the OAI-PMH records
(`oai_sources.PublishedResults`), the sitemap (`crawl.results_sitemap`) and
DataCite's IsSupplementedBy (`citation.citation_record`) — goes through
:func:`published_results`, so an embargoed or unpublished analysis is not
reachable by any id.
"""

from __future__ import annotations

import datetime

from django.db.models import DateTimeField, F, Q, QuerySet
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from analysis import services as analysis_services
from registry.models import Registration

from .models import Publication


def today() -> datetime.date:
    return timezone.now().date()


def public_q(on: datetime.date | None = None) -> Q:
    """Publications public on ``on`` (default today, UTC)."""
    day = on or today()
    return Q(public_from__isnull=True) | Q(public_from__lte=day)


def published_results(
    *,
    registration: Registration | None = None,
    exploratory: bool | None = False,
    on: datetime.date | None = None,
) -> QuerySet[Publication]:
    """Publicly visible publications, oldest first.

    ``exploratory``: False (default) the results of registered schemes only,
    True the exploratory ones only, None both. Superseded publications are
    included (they stay readable); ``current`` ones are those whose
    ``superseded_by`` is not public (see :func:`current_results`).
    """
    found = Publication.objects.filter(public_q(on)).select_related(
        "registration__challenge", "version", "run__results", "supersedes"
    )
    if registration is not None:
        found = found.filter(registration=registration)
    if exploratory is not None:
        found = found.filter(exploratory=exploratory)
    return found.order_by("registration_id", "number")


def current_results(*, on: datetime.date | None = None) -> QuerySet[Publication]:
    """Per registration, its latest public result (a public correction
    replaces what it supersedes; an embargoed correction does not yet)."""
    day = on or today()
    replaced = Q(superseded_by__isnull=False) & (
        Q(superseded_by__public_from__isnull=True)
        | Q(superseded_by__public_from__lte=day)
    )
    return published_results(on=day).exclude(replaced)


def visible_publications(user, registration: Registration) -> QuerySet[Publication]:
    """What ``user`` may read of a registration's publications: the public
    ones, and also the embargoed ones for its organizers and chairs."""
    if analysis_services.can_see_results(user, registration):
        return (
            Publication.objects.filter(registration=registration)
            .select_related("registration__challenge", "version", "run__results")
            .order_by("number")
        )
    return published_results(registration=registration, exploratory=None)


def is_public(publication: Publication, on: datetime.date | None = None) -> bool:
    return publication.public_from is None or publication.public_from <= (on or today())


def public_since(publication: Publication) -> datetime.datetime:
    """When ``publication`` is public from: the start (UTC) of its embargo's
    last day, else the moment it was published."""
    if publication.public_from is None:
        return publication.created
    return datetime.datetime.combine(
        publication.public_from, datetime.time(), tzinfo=datetime.UTC
    )


def public_since_sql(prefix: str = "") -> Coalesce:
    """:func:`public_since` in the database (``prefix``: a relation path
    ending in ``__``); a date casts to midnight UTC (Django's connections
    run in UTC)."""
    return Coalesce(
        Cast(F(f"{prefix}public_from"), DateTimeField()),
        F(f"{prefix}created"),
        output_field=DateTimeField(),
    )
