"""Links to published results on the registry's and the analysis app's pages.

Template tags, so those apps show them without importing this one (the
layers of tests/test_layers.py); what is public comes from
:mod:`publicrecord.selectors` only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import template

from analysis.models import AnalysisRun, AnalysisStatus
from registry.models import Registration

from ..publication import can_publish
from ..selectors import current_results, visible_publications

register = template.Library()


@register.simple_tag
def published_results_of(entries: Iterable[Any]) -> dict[int, int]:
    """Registration id → number of its current public result, for the listed
    entries (each with a ``registration_id``): one query for a whole page."""
    ids = [entry.registration_id for entry in entries]
    return dict(
        current_results()
        .filter(registration_id__in=ids)
        .values_list("registration_id", "number")
    )


@register.filter
def lookup(mapping: Mapping, key: Any) -> Any:
    return mapping.get(key)


@register.inclusion_tag("publicrecord/_results_card.html", takes_context=True)
def results_card(context, registration: Registration) -> dict:
    """The record page's "Results" card: what is published and readable."""
    user = context.get("user")
    publications = list(visible_publications(user, registration))
    return {
        "registration": registration,
        "results": [p for p in publications if not p.exploratory],
        "exploratory": [p for p in publications if p.exploratory],
    }


@register.simple_tag(takes_context=True)
def has_published_results(context, registration: Registration) -> bool:
    return visible_publications(context.get("user"), registration).exists()


@register.inclusion_tag("publicrecord/_publish_action.html", takes_context=True)
def publish_action(context, run: AnalysisRun) -> dict:
    """On the analysis page: where the run is published, or a Publish button."""
    user = context.get("user")
    registration = run.results.registration
    return {
        "run": run,
        "registration": registration,
        "publications": list(run.publications.order_by("number")),
        "can_publish": run.status == AnalysisStatus.DONE
        and user is not None
        and can_publish(user, registration),
    }
