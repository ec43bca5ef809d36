"""Follow the registration: of the registered challenges, which published
their results, and what deviated from the registered design (issue 27).

Only publicly visible results count (:func:`publicrecord.selectors.current_results`:
the latest public result of each registration; exploratory publications,
unpublished and embargoed analyses are not counted). A challenge's deviations
are those of its published analysis.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError

from analysis.deviations import DEVIATION_CODES, SEVERITY_ORDER

from .selection import RegisteredDesign, Selection
from .selectors import current_results

PUBLISHED, UNPUBLISHED = "published", "unpublished"
NO_DEVIATION = "none"


@dataclass(frozen=True)
class FollowUpFilters:
    """``results``: "", "published" or "unpublished"; ``deviation``: "", a
    deviation code, or "none" (published without any deviation)."""

    results: str = ""
    deviation: str = ""

    @property
    def query(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}


def parse_follow_up_filters(params: Mapping[str, Any]) -> FollowUpFilters:
    """The filters of the list; an unknown value is refused, naming the choices."""
    results = str(params.get("results") or "")
    deviation = str(params.get("deviation") or "")
    errors = {}
    if results not in ("", PUBLISHED, UNPUBLISHED):
        errors["results"] = f"Expected 'published' or 'unpublished', got {results!r}."
    if deviation not in ("", NO_DEVIATION, *DEVIATION_CODES):
        errors["deviation"] = (
            f"Unknown deviation {deviation!r}; expected 'none' or one of "
            f"{', '.join(DEVIATION_CODES)}."
        )
    if errors:
        raise ValidationError(errors)
    return FollowUpFilters(results=results, deviation=deviation)


@dataclass(frozen=True)
class FollowUpRow:
    identifier: str
    name: str
    publication: int | None  # number of the current public result
    deviations: tuple[dict[str, Any], ...]

    @property
    def critical(self) -> bool:
        return any(d.get("severity") == "critical" for d in self.deviations)

    @property
    def codes(self) -> list[str]:
        return sorted({str(d.get("code")) for d in self.deviations})

    def matches(self, filters: FollowUpFilters) -> bool:
        published = self.publication is not None
        if filters.results and published != (filters.results == PUBLISHED):
            return False
        if filters.deviation == NO_DEVIATION:
            return published and not self.deviations
        if filters.deviation:
            return filters.deviation in self.codes
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "challenge": self.name,
            "results_published": self.publication is not None,
            "publication": self.publication,
            "deviations": self.codes,
            "critical": self.critical,
        }


def follow_up_rows(registrations: list[tuple[str, str]]) -> list[FollowUpRow]:
    """One row per (identifier, challenge name), in their order (one query)."""
    published = {
        identifier: (number, deviations or [])
        for identifier, number, deviations in current_results()
        .filter(registration__identifier__in=[i for i, _ in registrations])
        .values_list("registration__identifier", "number", "run__deviations")
    }
    rows = []
    for identifier, name in registrations:
        number, deviations = published.get(identifier, (None, []))
        rows.append(FollowUpRow(identifier, name, number, tuple(deviations)))
    return rows


def follow_up_list(selection: Selection, filters: FollowUpFilters) -> list[FollowUpRow]:
    """The registered challenges of the selection that match the filters."""
    listed = list(selection.listings().values_list("identifier", "name"))
    return [row for row in follow_up_rows(listed) if row.matches(filters)]


def _ordered(counts: Counter, order: Mapping[str, int] | None = None) -> dict:
    key = (lambda item: (order.get(item[0], 9), item[0])) if order else None
    items = sorted(counts.items(), key=key or (lambda item: (-item[1], item[0])))
    return dict(items)


def follow_up_summary(designs: list[RegisteredDesign]) -> dict[str, Any]:
    """How many registered challenges published results, how many of those
    have no deviation, how many have each kind (and each severity)."""
    listed = [(d.identifier, str(d.design.get("name") or "")) for d in designs]
    rows = [r for r in follow_up_rows(listed) if r.publication is not None]
    challenges_by_code: Counter = Counter()
    flagged: Counter = Counter()
    severities: Counter = Counter()
    for row in rows:
        challenges_by_code.update(row.codes)
        for deviation in row.deviations:
            flagged[str(deviation.get("code"))] += 1
            severities[str(deviation.get("severity"))] += 1
    return {
        "registered": len(designs),
        "published": len(rows),
        "without_deviation": sum(1 for r in rows if not r.deviations),
        "challenges_by_code": _ordered(challenges_by_code),
        "by_code": _ordered(flagged),
        "by_severity": _ordered(severities, SEVERITY_ORDER),
        "challenges_with_critical": sum(1 for r in rows if r.critical),
    }
