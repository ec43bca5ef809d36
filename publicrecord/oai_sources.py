"""What the OAI-PMH endpoint serves: record sources, one OAI set each.

A source lists its records in a stable order (by an integer key that only
grows) with their datestamps and writes a record's metadata in each format.
The endpoint (`publicrecord/oai.py`) pages over the sources named by the
setting `OAI_RECORD_SOURCES`, one after another; another kind of public record
(published analysis results, say) is added by writing a source class and
naming it there. A source must list public records only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Protocol

from django.conf import settings
from django.db.models import DateTimeField, F, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce, Greatest
from django.utils.module_loading import import_string

from registry.models import RegistrationVersion

from .citation import citation_record, datacite_json
from .models import Deposit


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
    followed by a new version (IsPreviousVersionOf), or given a DOI."""
    successor = RegistrationVersion.objects.filter(
        registration=OuterRef("registration"), number=OuterRef("number") + 1
    ).values("created")
    deposited = Deposit.objects.filter(version=OuterRef("pk"), status="done").values(
        "finished"
    )
    return versions.annotate(
        changed=Greatest(
            F("created"),
            Coalesce(Subquery(successor), F("created")),
            Coalesce(Subquery(deposited), F("created")),
            output_field=DateTimeField(),
        )
    )


class RegisteredVersions:
    """Every version of every registered design (drafts are never registered)."""

    set_spec = "registrations"
    set_name = "Registered challenge designs"

    def _versions(self, since, until) -> QuerySet:
        versions = _changed(
            RegistrationVersion.objects.select_related(
                "registration", "deposit", "frozen_citation"
            )
        )
        if since is not None:
            versions = versions.filter(changed__gte=since)
        if until is not None:
            versions = versions.filter(changed__lte=until)
        return versions

    def _record(self, version: RegistrationVersion) -> OaiRecord:
        return OaiRecord(
            key=version.pk,
            local_id=f"{version.registration.identifier}/v{version.number}",
            datestamp=version.changed,
            datacite=lambda: datacite_json(citation_record(version)),
        )

    def records(self, *, since, until, after) -> Iterator[OaiRecord]:
        versions = self._versions(since, until).filter(pk__gt=after).order_by("pk")
        for version in versions.iterator(chunk_size=100):
            yield self._record(version)

    def count(self, *, since, until) -> int:
        return self._versions(since, until).count()

    def get(self, local_id: str) -> OaiRecord | None:
        identifier, _, number = local_id.rpartition("/v")
        if not number.isdigit():
            return None
        version = (
            self._versions(None, None)
            .filter(registration__identifier=identifier, number=int(number))
            .first()
        )
        return self._record(version) if version else None

    def earliest(self) -> datetime | None:
        first = RegistrationVersion.objects.order_by("created").first()
        return first.created if first else None


@cache
def _sources(paths: tuple[str, ...]) -> tuple[RecordSource, ...]:
    return tuple(import_string(path)() for path in paths)


def record_sources() -> tuple[RecordSource, ...]:
    """The sources named by the setting `OAI_RECORD_SOURCES`, in order."""
    return _sources(tuple(settings.OAI_RECORD_SOURCES))
