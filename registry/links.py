"""URLs of editor sections (the anchor of a parameter is its `key`)."""

from __future__ import annotations

from django.urls import reverse

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
