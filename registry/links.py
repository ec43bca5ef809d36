"""URLs of editor sections (the anchor of a parameter is its `key`)."""

from __future__ import annotations

from django.urls import reverse

from .completeness import Completeness, Entry
from .models import Challenge
from .parameters import Parameter
from .sections import Section, section_of


def section_url(challenge: Challenge, section: Section, task_id: int | None) -> str:
    if task_id is None:
        return reverse("registry:edit-section", args=[challenge.pk, section.slug])
    return reverse(
        "registry:edit-task-section", args=[challenge.pk, task_id, section.slug]
    )


def parameter_url(
    challenge: Challenge, parameter: Parameter, task_id: int | None
) -> str:
    return f"{section_url(challenge, section_of(parameter), task_id)}#{parameter.key}"


def missing_with_links(
    challenge: Challenge, completeness: Completeness
) -> list[tuple[Entry, str]]:
    """The required answers still missing, each with the editor link that fills it."""
    return [
        (e, parameter_url(challenge, e.parameter, e.task_id))
        for e in completeness.missing_required
    ]
