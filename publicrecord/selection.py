"""Which registered designs a public-record read covers, and their documents.

Every number published here is computed from the *latest registered version*
of each registration (its canonical JSON), never from live rows, so it matches
what the public registry shows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from registry.models import Call, RegistrationListing


@dataclass(frozen=True)
class Selection:
    """A filter of the registry: one call (slug) and/or one year; empty = all."""

    call: str = ""
    year: int | None = None

    def listings(self) -> QuerySet[RegistrationListing]:
        rows = RegistrationListing.objects.select_related("call", "latest")
        if self.call:
            rows = rows.filter(call__slug=self.call)
        if self.year is not None:
            rows = rows.filter(year=self.year)
        return rows.order_by("identifier")

    @property
    def key(self) -> str:
        return f"{self.call}|{self.year or ''}"


@dataclass(frozen=True)
class RegisteredDesign:
    identifier: str
    call_slug: str
    call_title: str
    year: int
    design: dict[str, Any]


def parse_selection(params: Mapping[str, Any]) -> Selection:
    """A selection from query parameters; a bad value raises a ValidationError
    naming the parameter (nothing is computed for a bad filter)."""
    call = str(params.get("call") or "").strip()
    raw_year = str(params.get("year") or "").strip()
    errors: dict[str, str] = {}
    if call and not Call.objects.filter(slug=call).exists():
        errors["call"] = f"No call has the slug {call!r}."
    year = None
    if raw_year:
        if not (raw_year.isdigit() and len(raw_year) == 4):
            errors["year"] = f"{raw_year!r} is not a year (YYYY)."
        else:
            year = int(raw_year)
    if errors:
        raise ValidationError(errors)
    return Selection(call=call, year=year)


def registered_designs(selection: Selection) -> list[RegisteredDesign]:
    """The latest registered design of every registration in `selection`."""
    return [
        RegisteredDesign(
            identifier=row.identifier,
            call_slug=row.call.slug,
            call_title=row.call.title,
            year=row.year,
            design=json.loads(row.latest.canonical)["design"],
        )
        for row in selection.listings()
    ]
