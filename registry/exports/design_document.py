"""The data of a design-document PDF: plain frozen dataclasses, no ORM objects.

`build_design_data` (``design_data.py``) fills them from a proposal;
`render_design_pdf` (``design_pdf.py``) draws them. Tests build them by hand.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from ..test_set_plans import PlanView

# "unanswered": left empty in a registered version (text says why, as the page)
AnswerState = Literal["answered", "not_applicable", "missing", "unanswered"]


@dataclass(frozen=True)
class DesignAnswer:
    number: int
    name: str
    required: bool
    state: AnswerState
    text: str = ""  # the answer as text, or the not-applicable reason
    changed: bool = False  # changed in this registration version (highlighted)
    bias_items: tuple[str, ...] = ()  # BIAS checklist items the parameter feeds


@dataclass(frozen=True)
class DesignGroup:
    title: str  # the catalogue's group, e.g. "Assessment method"
    answers: tuple[DesignAnswer, ...]


@dataclass(frozen=True)
class DesignSection:
    title: str  # "Challenge level" or "Task 1: Brain"
    groups: tuple[DesignGroup, ...]


@dataclass(frozen=True)
class CompletenessRow:
    label: str  # "Challenge level", "Task: Brain" or a group within them
    done: int
    total: int
    percent: float
    is_total: bool = False  # the scope's total row (groups follow it)


@dataclass(frozen=True)
class PlanningItem:
    label: str
    text: str  # "" when unanswered


@dataclass(frozen=True)
class DesignDocument:
    challenge_name: str
    call_title: str
    status: str  # display label, e.g. "Draft"
    revision: int
    organizers: tuple[str, ...]
    generated_on: dt.date
    registry_url: str
    overall_percent: float
    submission_percent: float
    threshold_percent: int
    can_submit: bool
    completeness_rows: tuple[CompletenessRow, ...]
    planning: tuple[PlanningItem, ...]
    sections: tuple[DesignSection, ...]
    # A registration version: identifier, version, SHA-256, post hoc… (cover).
    version_lines: tuple[tuple[str, str], ...] = ()
    # Changes of this version, one line each ("Task Brain: Ranking scheme").
    changes: tuple[str, ...] = ()
    # The frozen ranking scheme of each task as JSON (appendix): (task, JSON).
    schemes: tuple[tuple[str, str], ...] = ()
    # The attached test-set plan of each task that has one (appendix).
    plans: tuple[PlanView, ...] = ()
