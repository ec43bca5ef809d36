"""What the OAI-PMH endpoint serves: record sources, one OAI set each.

A source lists its records in a stable order (by an integer key that only
grows) with their datestamps and writes a record's metadata in each format.
The endpoint (`publicrecord/oai.py`) pages over the sources named by the
setting `OAI_RECORD_SOURCES`, one after another: the registered versions and
the published results; another kind of public record is added by writing a
source class and naming it there. A source must list public records only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Protocol

from django.conf import settings
from django.db.models import DateTimeField, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Greatest
from django.utils.module_loading import import_string

from registry.models import RegistrationVersion

from .citation import citation_record, datacite_json, result_datacite_json
from .models import Deposit, Publication
from .selectors import public_q, public_since_sql, published_results


@dataclass(frozen=True)
class OaiRecord:
    """One record: its local identifier (unique within its source), datestamp
    (when its metadata last changed) and its metadata as DataCite JSON
    attributes (`citation.datacite_json`), from which every format is written;
    a callable, so that listing identifiers does not build it."""

    key: int  # the paging key: records are listed by ascending key
    local_id: str
    datestamp: datetime
    datacite: Callable[[], dict[str, Any]]


class RecordSource(Protocol):
    set_spec: str  # the OAI set of this source's records
    set_name: str

    def records(
        self, *, since: datetime | None, until: datetime | None, after: int
    ) -> Iterator[OaiRecord]:
        """Records with since <= datestamp <= until and key > after, by key."""

    def count(self, *, since: datetime | None, until: datetime | None) -> int: ...

    def get(self, local_id: str) -> OaiRecord | None: ...

    def earliest(self) -> datetime | None: ...


def _changed(versions: QuerySet) -> QuerySet:
    """`versions` with `changed`: when its metadata last changed — registered,
    followed by a new version (IsPreviousVersionOf), given a DOI, or
    supplemented by a public result or by its public correction (its
    IsSupplementedBy names the current results)."""
    successor = RegistrationVersion.objects.filter(
        registration=OuterRef("registration"), number=OuterRef("number") + 1
    ).values("created")
    deposited = Deposit.objects.filter(version=OuterRef("pk"), status="done").values(
        "finished"
    )
    supplemented = (
        Publication.objects.filter(public_q(), exploratory=False)
        .filter(Q(version=OuterRef("pk")) | Q(supersedes__version=OuterRef("pk")))
        .annotate(since=public_since_sql())
        .order_by("-since")
        .values("since")[:1]
    )
    return versions.annotate(
        changed=Greatest(
            F("created"),
            Coalesce(Subquery(successor), F("created")),
            Coalesce(Subquery(deposited), F("created")),
            Coalesce(Subquery(supplemented), F("created")),
            output_field=DateTimeField(),
        )
    )


class _QuerySetSource:
    """A source over a queryset of rows keyed by primary key, each with the
    registration and number its local id `<identifier>/<prefix><number>`
    names, and its datestamp in the annotation `stamp`."""

    stamp: str
    number_prefix: str

    def _all(self) -> QuerySet:
        raise NotImplementedError

    def _record(self, row: Any) -> OaiRecord:
        raise NotImplementedError

    def _rows(self, since: datetime | None, until: datetime | None) -> QuerySet:
        rows = self._all()
        if since is not None:
            rows = rows.filter(**{f"{self.stamp}__gte": since})
        if until is not None:
            rows = rows.filter(**{f"{self.stamp}__lte": until})
        return rows

    def records(self, *, since, until, after) -> Iterator[OaiRecord]:
        rows = self._rows(since, until).filter(pk__gt=after).order_by("pk")
        for row in rows.iterator(chunk_size=100):
            yield self._record(row)

    def count(self, *, since, until) -> int:
        return self._rows(since, until).count()

    def get(self, local_id: str) -> OaiRecord | None:
        identifier, _, number = local_id.rpartition(f"/{self.number_prefix}")
        if not number.isdigit():
            return None
        row = (
            self._all()
            .filter(registration__identifier=identifier, number=int(number))
            .first()
        )
        return self._record(row) if row else None

    def earliest(self) -> datetime | None:
        stamps = self._all().order_by(self.stamp).values_list(self.stamp, flat=True)
        return stamps.first()


class RegisteredVersions(_QuerySetSource):
    """Every version of every registered design (drafts are never registered)."""

    set_spec = "registrations"
    set_name = "Registered challenge designs"
    stamp = "changed"
    number_prefix = "v"

    def _all(self) -> QuerySet:
        return _changed(
            RegistrationVersion.objects.select_related(
                "registration", "deposit", "frozen_citation"
            )
        )

    def _record(self, version: RegistrationVersion) -> OaiRecord:
        return OaiRecord(
            key=version.pk,
            local_id=f"{version.registration.identifier}/v{version.number}",
            datestamp=version.changed,
            datacite=lambda: datacite_json(citation_record(version)),
        )


class PublishedResults(_QuerySetSource):
    """Every public publication of results, the superseded ones too (they stay
    readable); an embargoed one from its public day, which is its datestamp
    (a public publication never changes)."""

    set_spec = "results"
    set_name = "Published challenge results"
    stamp = "since"
    number_prefix = ""

    def _all(self) -> QuerySet:
        return published_results(exploratory=None).annotate(since=public_since_sql())

    def _record(self, publication: Publication) -> OaiRecord:
        return OaiRecord(
            key=publication.pk,
            local_id=f"{publication.registration.identifier}/{publication.number}",
            datestamp=publication.since,
            datacite=lambda: result_datacite_json(publication),
        )


@cache
def _sources(paths: tuple[str, ...]) -> tuple[RecordSource, ...]:
    return tuple(import_string(path)() for path in paths)


def record_sources() -> tuple[RecordSource, ...]:
    """The sources named by the setting `OAI_RECORD_SOURCES`, in order."""
    return _sources(tuple(settings.OAI_RECORD_SOURCES))
