"""Completeness of a proposal: per parameter, per section, per task and overall.

Every challenge-level parameter counts once; every task-level parameter counts
once per task. An answer counts when it holds a filled value or a
"not applicable" reason. The submission percentage is taken over the parameters
the submission system required (`004` §5.1: ≥ 90 % to submit).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .parameters import GROUPS, OUTCOME_GROUP, PARAMETERS, Parameter

State = Literal["answered", "not_applicable", "missing"]


@dataclass(frozen=True)
class StoredAnswer:
    value: Any
    not_applicable: str = ""


@dataclass(frozen=True)
class Entry:
    parameter: Parameter
    task_id: int | None
    task_name: str | None
    state: State

    @property
    def done(self) -> bool:
        return self.state != "missing"


@dataclass(frozen=True)
class Tally:
    done: int
    total: int

    @property
    def percent(self) -> float:
        return round(100 * self.done / self.total, 1) if self.total else 100.0


@dataclass(frozen=True)
class Completeness:
    entries: tuple[Entry, ...]
    threshold_percent: int
    has_tasks: bool

    @property
    def overall(self) -> Tally:
        return _tally(self.entries)

    @property
    def design_entries(self) -> list[Entry]:
        """Every entry but the challenge outcome (participants, results, report):
        those are given after the challenge, by amendment, never at design time."""
        return [e for e in self.entries if e.parameter.group != OUTCOME_GROUP]

    @property
    def design(self) -> Tally:
        return _tally(self.design_entries)

    @property
    def submission(self) -> Tally:
        return _tally(e for e in self.entries if e.parameter.required_for_submission)

    @property
    def can_submit(self) -> bool:
        tally = self.submission
        # Compare exactly (no rounding): done/total ≥ threshold/100.
        return (
            self.has_tasks and 100 * tally.done >= self.threshold_percent * tally.total
        )

    @property
    def missing_required(self) -> list[Entry]:
        return [
            e
            for e in self.entries
            if not e.done and e.parameter.required_for_submission
        ]

    @property
    def missing_optional(self) -> list[Entry]:
        return [
            e
            for e in self.entries
            if not e.done and not e.parameter.required_for_submission
        ]

    def section(self, group: str, task_id: int | None = None) -> Tally:
        return _tally(
            e
            for e in self.entries
            if e.parameter.group == group and e.task_id == task_id
        )

    def sections(self) -> list[tuple[str, int | None, str | None, Tally]]:
        """(group, task id, task name, tally) for every non-empty section."""
        tasks = dict.fromkeys((e.task_id, e.task_name) for e in self.entries)
        rows = []
        for task_id, task_name in tasks:
            for group in GROUPS:
                tally = self.section(group, task_id)
                if tally.total:
                    rows.append((group, task_id, task_name, tally))
        return rows

    def for_task(self, task_id: int | None) -> Tally:
        return _tally(e for e in self.entries if e.task_id == task_id)


def _tally(entries: Iterable[Entry]) -> Tally:
    done = total = 0
    for entry in entries:
        total += 1
        done += entry.done
    return Tally(done=done, total=total)


def _state(parameter: Parameter, answer: StoredAnswer | None) -> State:
    if answer is None:
        return "missing"
    if answer.not_applicable.strip():
        return "not_applicable"
    return "answered" if parameter.is_filled(answer.value) else "missing"


def compute_completeness(
    *,
    answers: Mapping[tuple[int | None, int], StoredAnswer],
    tasks: Iterable[tuple[int, str]],
    threshold_percent: int,
) -> Completeness:
    """Completeness from answers keyed by (task id or None, parameter number)."""
    tasks = list(tasks)
    entries: list[Entry] = []
    for parameter in PARAMETERS:
        if parameter.level == "challenge":
            answer = answers.get((None, parameter.number))
            entries.append(Entry(parameter, None, None, _state(parameter, answer)))
    for task_id, task_name in tasks:
        for parameter in PARAMETERS:
            if parameter.level == "task":
                answer = answers.get((task_id, parameter.number))
                entries.append(
                    Entry(parameter, task_id, task_name, _state(parameter, answer))
                )
    return Completeness(tuple(entries), threshold_percent, has_tasks=bool(tasks))
