"""The read-only rendering of a design: its parts (the challenge level, then each
task), their sections and answered rows (overview and review pages)."""

from __future__ import annotations

from dataclasses import dataclass

from .completeness import Completeness
from .links import parameter_url, section_url
from .models import Challenge
from .parameters import Parameter
from .sections import sections_at
from .selectors import answers_of


@dataclass(frozen=True)
class Row:
    parameter: Parameter
    text: str
    not_applicable: str
    url: str


@dataclass(frozen=True)
class Part:
    """The challenge level, or one task, with its sections of answered rows."""

    task: object | None
    sections: list[tuple[object, str, list[Row], object]]


def proposal_parts(challenge: Challenge, completeness: Completeness) -> list[Part]:
    """The read-only rendering of a design (overview and review pages)."""
    answers = answers_of(challenge)
    levels = [("challenge", None), *(("task", t) for t in challenge.tasks.all())]
    parts = []
    for level, task in levels:
        task_id = task.pk if task else None
        sections = []
        for section in sections_at(level):
            rows = []
            for parameter in section.parameters:
                stored = answers.get((task_id, parameter.number))
                rows.append(
                    Row(
                        parameter,
                        parameter.to_text(stored.value) if stored else "",
                        stored.not_applicable if stored else "",
                        parameter_url(challenge, parameter, task_id),
                    )
                )
            url = section_url(challenge, section, task_id)
            tally = completeness.section(section.group, task_id)
            sections.append((section, url, rows, tally))
        parts.append(Part(task, sections))
    return parts
