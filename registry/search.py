"""The registry's search rows: written with every version, read by every list.

A version's canonical document is immutable, so the facts a list filters on
(call, year, task count, categories, modalities, metrics, ranking methods) and
the text it searches are derived once, when the version is written
(`write_listing`), into `RegistrationListing` and `RegistrationFacet`. Lists
then filter and order in the database, on indexed columns, at any N.

Search: an exact identifier is answered by the unique index first; otherwise
PostgreSQL full-text search over the stored, GIN-indexed vector, ranked by
relevance (language: ``settings.REGISTRY_SEARCH_CONFIG``); on other backends
(SQLite, `make demo`) every word must occur in the stored lower-case text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import F, QuerySet

from .design import Design
from .models import (
    FacetKind,
    Registration,
    RegistrationFacet,
    RegistrationListing,
    RegistrationVersion,
)
from .parameters import Role

CATEGORY_PARAMETER = Role.TASK_CATEGORY.number
MODALITY_PARAMETER = Role.IMAGING_MODALITY.number
TARGETS_PARAMETER = Role.ALGORITHM_TARGETS.number  # the structures
METRICS_PARAMETER = Role.METRICS.number
FACET_LENGTH = 200  # RegistrationFacet.value
MAX_SEARCH_WORDS = 20
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ListingFacts:
    """What a list needs of one registered design (from its canonical document)."""

    name: str
    task_count: int
    categories: tuple[str, ...]
    modalities: tuple[str, ...]
    metrics: tuple[str, ...]
    methods: tuple[str, ...]
    text: str


def _choices(values: Iterable[Any]) -> set[str]:
    found: set[str] = set()
    for value in values:
        if isinstance(value, dict):
            found.update(str(c) for c in value.get("choices", []))
    return found


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON value (the searchable words of an answer)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _scheme_metrics(scheme: dict[str, Any]) -> list[str]:
    metric = scheme.get("metric")
    return [metric] if isinstance(metric, str) else [str(m) for m in metric or []]


def listing_facts(document: dict[str, Any]) -> ListingFacts:
    """The listing of a registration version's canonical document."""
    design = Design.from_dict(document["design"])

    def task_values(role: Role) -> list[Any]:
        return [task.value_of(role) for task in design.tasks]

    metrics: set[str] = set()
    for value in task_values(Role.METRICS):
        if isinstance(value, dict):
            metrics.update(str(m.get("name")) for m in value.get("metrics", []))
    methods: set[str] = set()
    for task in design.tasks:
        scheme = task.scheme or {}
        metrics.update(_scheme_metrics(scheme))
        if scheme.get("method"):
            methods.add(str(scheme["method"]))
    categories = _choices(task_values(Role.TASK_CATEGORY))
    modalities = _choices(task_values(Role.IMAGING_MODALITY))
    words = [
        document.get("identifier", ""),
        design.name,
        *(task.name for task in design.tasks),
        *(o.get("institution", "") for o in document.get("organizers", [])),
        *_strings(design.value_of(Role.ORGANIZING_INSTITUTIONS)),
        *_strings(task_values(Role.FIELD_OF_APPLICATION)),
        *_strings(task_values(Role.ALGORITHM_TARGETS)),
        *sorted(categories),
        *sorted(modalities),
        *sorted(metrics),
        *sorted(methods),
    ]
    return ListingFacts(
        name=design.name,
        task_count=len(design.tasks),
        categories=tuple(sorted(categories)),
        modalities=tuple(sorted(modalities)),
        metrics=tuple(sorted(metrics)),
        methods=tuple(sorted(methods)),
        text=" ".join(w for w in words if w).lower(),
    )


def _facets(facts: ListingFacts) -> list[tuple[str, str]]:
    pairs = [
        *((FacetKind.CATEGORY, v) for v in facts.categories),
        *((FacetKind.MODALITY, v) for v in facts.modalities),
        *((FacetKind.METRIC, v) for v in facts.metrics),
        *((FacetKind.METHOD, v) for v in facts.methods),
    ]
    return sorted({(str(k), v[:FACET_LENGTH]) for k, v in pairs})


def search_vector() -> SearchVector:
    """Identifier and name weigh more than the rest of the searchable text."""
    config = settings.REGISTRY_SEARCH_CONFIG
    return SearchVector("identifier", "name", weight="A", config=config) + (
        SearchVector("text", weight="B", config=config)
    )


def new_listing(
    registration: Registration, version: RegistrationVersion, facts: ListingFacts
) -> RegistrationListing:
    """The (unsaved) listing of `registration` at its latest `version`."""
    return RegistrationListing(
        registration=registration,
        latest=version,
        identifier=registration.identifier,
        name=facts.name[:300],
        call_id=registration.call_id,
        registered=registration.created,
        year=registration.created.year,
        task_count=facts.task_count,
        version_number=version.number,
        post_hoc=version.post_hoc,
        categories=list(facts.categories),
        modalities=list(facts.modalities),
        text=facts.text,
    )


def new_facets(
    listing: RegistrationListing, facts: ListingFacts
) -> list[RegistrationFacet]:
    return [
        RegistrationFacet(listing=listing, kind=kind, value=value)
        for kind, value in _facets(facts)
    ]


def index_listings(listings: QuerySet[RegistrationListing]) -> None:
    """Store the full-text vectors of `listings` (PostgreSQL; a no-op elsewhere)."""
    if connection.vendor == "postgresql":
        listings.update(vector=search_vector())


def write_listing(
    registration: Registration, version: RegistrationVersion, document: dict
) -> RegistrationListing:
    """Create or replace the listing of `registration` (its latest `version`)."""
    facts = listing_facts(document)
    RegistrationListing.objects.filter(registration=registration).delete()
    listing = new_listing(registration, version, facts)
    listing.save()
    RegistrationFacet.objects.bulk_create(new_facets(listing, facts))
    index_listings(RegistrationListing.objects.filter(pk=listing.pk))
    return listing


@dataclass(frozen=True)
class ListingFilters:
    """A registry search; empty fields do not filter."""

    text: str = ""
    call: str = ""
    year: int | None = None
    category: str = ""
    modality: str = ""
    metric: str = ""
    method: str = ""
    tasks: int | None = None


def _by_facet(listings: QuerySet, kind: str, value: str) -> QuerySet:
    return listings.filter(
        pk__in=RegistrationFacet.objects.filter(kind=kind, value=value).values(
            "listing_id"
        )
    )


def _text_search(listings: QuerySet, text: str) -> QuerySet:
    words = _WORD.findall(text.lower())[:MAX_SEARCH_WORDS]
    if not words:
        return listings.none()
    if connection.vendor == "postgresql":
        # Every word, each also as a prefix ("decath" finds "Decathlon").
        query = SearchQuery(
            " & ".join(f"{word}:*" for word in words),
            search_type="raw",
            config=settings.REGISTRY_SEARCH_CONFIG,
        )
        return (
            listings.filter(vector=query)
            .annotate(rank=SearchRank(F("vector"), query))
            .order_by("-rank", "-registered", "-id")
        )
    for word in words:
        listings = listings.filter(text__contains=word)
    return listings


def search_listings(filters: ListingFilters) -> QuerySet[RegistrationListing]:
    """Listings matching every filter: newest first, or by relevance for a text."""
    listings = RegistrationListing.objects.order_by("-registered", "-id")
    if filters.call:
        listings = listings.filter(call__slug=filters.call)
    if filters.year is not None:
        listings = listings.filter(year=filters.year)
    if filters.tasks is not None:
        listings = listings.filter(task_count=filters.tasks)
    for kind, value in (
        (FacetKind.CATEGORY, filters.category),
        (FacetKind.MODALITY, filters.modality),
        (FacetKind.METRIC, filters.metric),
        (FacetKind.METHOD, filters.method),
    ):
        if value:
            listings = _by_facet(listings, kind, value)
    text = filters.text.strip()
    if text:
        exact = RegistrationListing.objects.filter(identifier=text).values("pk")[:1]
        matched = list(exact)
        if matched:
            return listings.filter(pk=matched[0]["pk"])
        listings = _text_search(listings, text)
    return listings


def facet_values(kind: str) -> list[str]:
    """The values of one filter that some registration has (for the form)."""
    return list(
        RegistrationFacet.objects.filter(kind=kind)
        .order_by("value")
        .values_list("value", flat=True)
        .distinct()
    )
