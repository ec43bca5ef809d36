"""Editor sections: one per parameter group and level, in catalogue order.

A section is what one editor page shows: the parameters of one group that are
answered at one level (the challenge, or each task). Derived from the catalogue;
adding a parameter or a group needs no change here.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.text import slugify

from .parameters import GROUPS, Level, Parameter, parameters_in


@dataclass(frozen=True)
class Section:
    group: str
    level: Level
    parameters: tuple[Parameter, ...]

    @property
    def slug(self) -> str:
        return slugify(self.group)


def sections_at(level: Level) -> tuple[Section, ...]:
    sections = []
    for group in GROUPS:
        parameters = tuple(p for p in parameters_in(group) if p.level == level)
        if parameters:
            sections.append(Section(group, level, parameters))
    return tuple(sections)


def section_for(level: Level, slug: str) -> Section | None:
    return next((s for s in sections_at(level) if s.slug == slug), None)


def section_of(parameter: Parameter) -> Section:
    return next(s for s in sections_at(parameter.level) if s.group == parameter.group)
