"""Reads for the public registry: search, and designs rendered from versions.

Everything shown of a registered design comes from a version's canonical JSON
(never from the live rows), so the page shows exactly what was hashed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from ranking import describe_scheme

from .design import Change, Design, DesignAnswer, diff_designs
from .exports import build_design_data_from_document, render_design_pdf
from .models import RegistrationListing, RegistrationVersion
from .parameters import Parameter, Role
from .schemes import PROSE_FROM_SCHEME
from .search import ListingFilters, search_listings
from .sections import sections_at
from .services import NAME_PARAMETER
from .test_set_plans import PlanView, task_plan_view


def document_of(version: RegistrationVersion) -> dict[str, Any]:
    return json.loads(version.canonical)


def version_design(version: RegistrationVersion) -> Design:
    """The design frozen in a registration version (its canonical JSON)."""
    return Design.from_dict(document_of(version)["design"])


def people_named(usernames: Iterable[str]) -> dict[str, str]:
    """username → how pages name that person: the full name, else the username.

    The hashed document keeps usernames; pages and PDFs show names. A username
    without an account any more stays as it is.
    """
    wanted = set(usernames)
    users = get_user_model().objects.filter(username__in=wanted)
    named = {u.get_username(): u.get_full_name() or u.get_username() for u in users}
    return {name: named.get(name, name) for name in wanted}


def document_organizers(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, institution) of the organizers a version's document lists."""
    entries = document.get("organizers", [])
    names = people_named(e["username"] for e in entries)
    return [(names[e["username"]], e.get("institution", "")) for e in entries]


def version_design_pdf(version: RegistrationVersion, *, registry_url: str) -> bytes:
    """The design PDF of a registration version: its frozen document, its
    SHA-256, and the changes from the version before it."""
    registration = version.registration
    document = document_of(version)
    people = [o["username"] for o in document.get("organizers", [])]
    previous = registration.versions.filter(number=version.number - 1).first()
    changes = (
        diff_designs(version_design(previous), version_design(version))
        if previous
        else []
    )
    data = build_design_data_from_document(
        document,
        names=people_named([*people, document.get("registered_by", "")]),
        registry_url=registry_url,
        threshold_percent=registration.call.completeness_threshold,
        changes=changes,
        sha256=version.sha256,
    )
    return render_design_pdf(data)


def public_registrations(
    filters: ListingFilters | None = None,
) -> QuerySet[RegistrationListing]:
    """Registered designs matching `filters` (latest versions), for a list page.

    Everything a row shows comes with the page in one query: the listing, its
    registration, challenge, call and latest version (without the canonical
    text, which a list never needs).
    """
    return (
        search_listings(filters or ListingFilters())
        .select_related("registration__challenge", "registration__call", "latest")
        .defer(
            "text",
            "vector",
            "latest__canonical",
            "latest__justification",
            "registration__challenge__planning",
        )
    )


# --- a design document rendered as rows -----------------------------------------


@dataclass(frozen=True)
class DocRow:
    parameter: Parameter
    text: str
    not_applicable: str
    changed: bool = False


@dataclass(frozen=True)
class DocPart:
    task: str | None  # task name, None for the challenge level
    sections: list[tuple[Any, list[DocRow]]]
    scheme: list[tuple[str, Any]] | None = None
    scheme_changed: bool = False
    scheme_sentences: dict[str, str] = field(default_factory=dict)
    anchor: str = ""  # prefixes the ids of a task's rows: "t2" (its position)
    plan: PlanView | None = None  # the frozen test-set plan, beside parameter 38


def _rows(section, answers: dict[int, DesignAnswer], scope, changed) -> list[DocRow]:
    rows = []
    for parameter in section.parameters:
        entry = answers.get(parameter.number)
        value = entry.value if entry else None
        text = parameter.to_text(value) if value is not None else ""
        rows.append(
            DocRow(
                parameter,
                text,
                entry.not_applicable if entry else "",
                (scope, parameter.number) in changed,
            )
        )
    return rows


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Dotted leaves of a JSON value (a scheme shown field by field)."""
    if isinstance(value, dict):
        out: list[tuple[str, Any]] = []
        for key in sorted(value):
            out += flatten(value[key], f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list):
        return [(prefix, ", ".join(str(v) for v in value) or "—")]
    return [(prefix, "—" if value is None else value)]


def design_parts(design: Design, *, changes: Sequence[Change] = ()) -> list[DocPart]:
    """The challenge level and each task, with rows in catalogue order."""
    changed = {(c.scope, c.number) for c in changes}
    top = {a.number: a for a in design.answers}
    if NAME_PARAMETER not in top and design.name:
        # the name lives on the challenge row
        top[NAME_PARAMETER] = DesignAnswer(NAME_PARAMETER, "", design.name)
    parts = [
        DocPart(
            None,
            [(s, _rows(s, top, None, changed)) for s in sections_at("challenge")],
        )
    ]
    for position, task in enumerate(design.tasks, start=1):
        answers = {a.number: a for a in task.answers}
        parts.append(
            DocPart(
                task.name,
                [
                    (s, _rows(s, answers, task.name, changed))
                    for s in sections_at("task")
                ],
                scheme=flatten(task.scheme) if task.scheme else None,
                scheme_changed=(task.name, None) in changed,
                anchor=f"t{position}",
                plan=task_plan_view(task, task.value_of(Role.TEST_CASES)),
            )
        )
    return parts


# --- what an amendment would change ------------------------------------------


def amended_design(design: Design, changes: dict[str, Any]) -> Design:
    """`design` with an amendment's (cleaned) change set applied, as approval would.

    A new scheme also rewrites the prose parameters it determines.
    """
    for key, value in changes.get("challenge", {}).items():
        design = design.with_answer(int(key), value)
    for name, task_changes in changes.get("tasks", {}).items():
        if design.task(name) is None:
            raise KeyError(name)
        for key, value in task_changes.items():
            if key == "scheme":
                design = design.with_scheme(name, value)
                sentences = describe_scheme(value)
                for number, sentence_key in PROSE_FROM_SCHEME.items():
                    design = design.with_answer(
                        number, sentences[sentence_key], task=name
                    )
            else:
                design = design.with_answer(int(key), value, task=name)
    return design
