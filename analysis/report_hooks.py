"""Further analyses that add a section to the analysis report, registered by
other apps in their ``ready()`` under a dotted path: the hook's module (and
what it imports: pandas, reportlab, …) is imported only when a report is
rendered, not when Django starts.

A hook gets the analysis run and returns a section builder (width →
flowables) or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.module_loading import import_string

SectionBuilder = Callable[[float], list]
_PATHS: list[str] = []


def add_report_section(path: str) -> None:
    """Register the hook ``module.function`` (once, in registration order)."""
    if path not in _PATHS:
        _PATHS.append(path)


def report_sections() -> list[Callable[[Any], SectionBuilder | None]]:
    """The registered hooks, their modules imported now."""
    return [import_string(path) for path in _PATHS]
