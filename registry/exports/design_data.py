"""Proposal (ORM) → `DesignDocument` (plain data) for the design-document PDF."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone

from ..canonical import canonical_json_bytes, sha256_hex
from ..completeness import Completeness, Entry, StoredAnswer, compute_completeness
from ..design import Change, Design, design_of
from ..models import Challenge, Registration
from ..outcome import unanswered_text
from ..parameters import GROUPS, Role, get_parameter
from ..planning import PLANNING_QUESTIONS
from ..test_set_plans import PlanView, task_plan_view
from .design_document import (
    CompletenessRow,
    DesignAnswer,
    DesignDocument,
    DesignGroup,
    DesignSection,
    PlanningItem,
)


def _person(user) -> str:
    name = user.get_full_name() or user.get_username()
    profile = getattr(user, "profile", None)
    institution = getattr(profile, "institution", "")
    return f"{name} ({institution})" if institution else name


def _design_answer(entry: Entry, answers, changed=frozenset()) -> DesignAnswer:
    parameter = entry.parameter
    stored = answers.get((entry.task_id, parameter.number))
    if entry.state == "answered":
        text = parameter.to_text(stored.value)
    elif entry.state == "not_applicable":
        text = stored.not_applicable.strip()
    else:
        text = ""
    return DesignAnswer(
        number=parameter.number,
        name=parameter.name,
        required=parameter.required_for_submission,
        state=entry.state,
        text=text,
        changed=(entry.task_name, parameter.number) in changed,
        bias_items=tuple(parameter.bias_items),
    )


def _sections(
    completeness: Completeness, answers, changed=frozenset()
) -> tuple[DesignSection, ...]:
    scopes = dict.fromkeys((e.task_id, e.task_name) for e in completeness.entries)
    sections = []
    task_number = 0
    for task_id, task_name in scopes:
        if task_id is None:
            title = "Challenge level"
        else:
            task_number += 1
            title = f"Task {task_number}: {task_name}"
        groups = []
        for group in GROUPS:
            entries = [
                e
                for e in completeness.entries
                if e.task_id == task_id and e.parameter.group == group
            ]
            if entries:
                groups.append(
                    DesignGroup(
                        title=group,
                        answers=tuple(
                            _design_answer(e, answers, changed) for e in entries
                        ),
                    )
                )
        sections.append(DesignSection(title=title, groups=tuple(groups)))
    return tuple(sections)


def _as_registered(sections: tuple[DesignSection, ...]) -> tuple[DesignSection, ...]:
    """`sections` of a registered version: an empty answer says what the
    public page says (registry.outcome.unanswered_text), not "MISSING"."""

    def registered(answer: DesignAnswer) -> DesignAnswer:
        if answer.state != "missing":
            return answer
        text = unanswered_text(get_parameter(answer.number))
        return dataclasses.replace(answer, state="unanswered", text=text)

    return tuple(
        dataclasses.replace(
            section,
            groups=tuple(
                dataclasses.replace(
                    group, answers=tuple(registered(a) for a in group.answers)
                )
                for group in section.groups
            ),
        )
        for section in sections
    )


def _completeness_rows(completeness: Completeness) -> tuple[CompletenessRow, ...]:
    rows = []
    last_scope = object()
    for group, task_id, task_name, tally in completeness.sections():
        if task_id != last_scope:
            last_scope = task_id
            scope = completeness.for_task(task_id)
            label = "Challenge level" if task_id is None else f"Task: {task_name}"
            rows.append(
                CompletenessRow(
                    label, scope.done, scope.total, scope.percent, is_total=True
                )
            )
        rows.append(CompletenessRow(group, tally.done, tally.total, tally.percent))
    return tuple(rows)


def _completeness_and_planning(
    completeness: Completeness, planning: dict[str, Any]
) -> dict[str, Any]:
    """The document fields a draft and a registered version fill alike."""
    return {
        "overall_percent": completeness.overall.percent,
        "submission_percent": completeness.submission.percent,
        "threshold_percent": completeness.threshold_percent,
        "can_submit": completeness.can_submit,
        "completeness_rows": _completeness_rows(completeness),
        "planning": tuple(
            PlanningItem(q.label, str(planning.get(q.key, "") or ""))
            for q in PLANNING_QUESTIONS
        ),
    }


def build_design_data(
    challenge: Challenge, *, registry_url: str, today: dt.date | None = None
) -> DesignDocument:
    """Everything the PDF shows, read once from the database as a `Design`."""
    design = design_of(challenge)
    completeness, answers = _completeness(design, challenge.call.completeness_threshold)
    organizers = [challenge.owner, *challenge.co_organizers.order_by("username")]
    planning = challenge.planning or {}
    return DesignDocument(
        challenge_name=challenge.name,
        call_title=challenge.call.title,
        organizers=tuple(_person(u) for u in organizers),
        generated_on=today or timezone.localdate(),
        registry_url=registry_url,
        **_status(challenge),
        **_completeness_and_planning(completeness, planning),
        sections=_sections(completeness, answers),
        plans=_plans(design),
    )


def _status(challenge: Challenge) -> dict[str, Any]:
    """The cover's status; a registered challenge's names its registration
    (its review revision beside a registry version would read as one)."""
    registration = Registration.objects.filter(challenge=challenge).first()
    if registration is None:
        return {
            "status": challenge.get_status_display(),
            "revision": challenge.revision,
        }
    latest = registration.versions.order_by("-number").values_list("number", flat=True)
    return {
        "status": f"Registered as {registration.identifier}, "
        f"version {latest.first()} (the latest)",
        "revision": 0,
        "version_lines": (
            (
                "Versions",
                "This document shows the current design. The registry keeps "
                "each version's own design PDF and SHA-256.",
            ),
        ),
    }


def _completeness(
    design: Design, threshold_percent: int
) -> tuple[Completeness, dict[tuple[int | None, int], StoredAnswer]]:
    """Completeness of a design (tasks numbered from 1 stand in for their ids)."""
    answers: dict[tuple[int | None, int], StoredAnswer] = {}
    scopes = [(None, design.answers)]
    scopes += [(i, t.answers) for i, t in enumerate(design.tasks, start=1)]
    for task_id, entries in scopes:
        for entry in entries:
            answers[(task_id, entry.number)] = StoredAnswer(
                entry.value, entry.not_applicable
            )
    tasks = [(i, t.name) for i, t in enumerate(design.tasks, start=1)]
    completeness = compute_completeness(
        answers=answers, tasks=tasks, threshold_percent=threshold_percent
    )
    return completeness, answers


def _schemes(design: Design) -> tuple[tuple[str, str], ...]:
    return tuple(
        (task.name, json.dumps(task.scheme, indent=2, sort_keys=True))
        for task in design.tasks
        if task.scheme
    )


def _plans(design: Design) -> tuple[PlanView, ...]:
    views = (task_plan_view(t, t.value_of(Role.TEST_CASES)) for t in design.tasks)
    return tuple(v for v in views if v is not None)


def build_design_data_from_document(
    document: dict[str, Any],
    *,
    registry_url: str,
    threshold_percent: int = 90,
    changes: Sequence[Change] = (),
    today: dt.date | None = None,
    sha256: str | None = None,
    names: Mapping[str, str] | None = None,
) -> DesignDocument:
    """The PDF data of a registration version, from its canonical JSON alone.

    `names` (username → name, `registry.public.people_named`) names people as
    the public page does; the document itself keeps usernames.

    `changes` (from `registry.design.diff_designs` against the previous version)
    mark the parameters changed in this version. `sha256` is the version's
    stored hash, as the public page shows it (by default: computed from the
    canonical JSON of `document`, which is what was hashed at registration).
    """
    design = Design.from_dict(document["design"])
    completeness, answers = _completeness(design, threshold_percent)
    changed = {(c.scope, c.number) for c in changes}
    planning = design.planning
    names = names or {}

    def named(username: str) -> str:
        return names.get(username, username)

    version_lines = [
        ("Registration", document["identifier"]),
        ("Version", str(document["version"])),
        # a later version's moment is its approval, not the registration's
        (
            "Version created",
            f"{document['registered_at']} by {named(document['registered_by'])}",
        ),
        ("SHA-256", sha256 or sha256_hex(canonical_json_bytes(document))),
        ("Previous SHA-256", document.get("previous_sha256") or "—"),
    ]
    if document.get("justification"):
        version_lines.append(("Justification", document["justification"]))
    if document.get("post_hoc"):
        version_lines.append(
            ("Post hoc", "Approved after the first results were uploaded.")
        )
    return DesignDocument(
        challenge_name=design.name,
        call_title=document["call"]["title"],
        status=f"Registered (version {document['version']})",
        revision=0,
        organizers=tuple(
            f"{named(o['username'])} ({o['institution']})"
            if o.get("institution")
            else named(o["username"])
            for o in document.get("organizers", [])
        ),
        generated_on=today or timezone.localdate(),
        registry_url=registry_url,
        **_completeness_and_planning(completeness, planning),
        sections=_as_registered(_sections(completeness, answers, changed)),
        version_lines=tuple(version_lines),
        changes=tuple(
            (f"Task {c.scope}: " if c.scope else "")
            + (f"{c.number}. " if c.number else "")
            + c.name
            + (f": {c.summary}" if c.summary else "")
            for c in changes
        ),
        schemes=_schemes(design),
        plans=_plans(design),
    )
