"""Reads for the public registry: search, and designs rendered from versions.

Everything shown of a registered design comes from a version's canonical JSON
(never from the live rows), so the page shows exactly what was hashed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch, Q

from ranking import describe_scheme

from .diffs import Change
from .models import Registration, RegistrationVersion
from .parameters import Parameter, Role, get_parameter
from .schemes import PROSE_FROM_SCHEME
from .sections import sections_at
from .services import NAME_PARAMETER

CATEGORY_PARAMETER = Role.TASK_CATEGORY.number
MODALITY_PARAMETER = Role.IMAGING_MODALITY.number


def document_of(version: RegistrationVersion) -> dict[str, Any]:
    return json.loads(version.canonical)


def _task_choices(design: dict[str, Any], number: int) -> set[str]:
    found: set[str] = set()
    for task in design.get("tasks", []):
        for answer in task.get("answers", []):
            value = answer.get("value")
            if answer["number"] == number and isinstance(value, dict):
                found.update(value.get("choices", []))
    return found


@dataclass(frozen=True)
class RegistryEntry:
    registration: Registration
    latest: RegistrationVersion
    categories: tuple[str, ...]
    modalities: tuple[str, ...]


def public_registrations(
    *,
    text: str = "",
    call: str = "",
    year: int | None = None,
    category: str = "",
    modality: str = "",
    limit: int = 200,
) -> list[RegistryEntry]:
    """Registered designs matching the search, newest first (latest versions)."""
    registrations = Registration.objects.select_related("challenge", "call")
    text = text.strip()
    if text:
        registrations = registrations.filter(
            Q(identifier__icontains=text)
            | Q(challenge__name__icontains=text)
            | Q(versions__canonical__icontains=text)
        ).distinct()
    if call:
        registrations = registrations.filter(call__slug=call)
    if year is not None:
        registrations = registrations.filter(created__year=year)
    registrations = registrations.order_by("-created").prefetch_related(
        Prefetch("versions", queryset=RegistrationVersion.objects.order_by("number"))
    )[:limit]
    entries = []
    for registration in registrations:
        versions = list(registration.versions.all())
        if not versions:
            continue
        design = document_of(versions[-1])["design"]
        categories = _task_choices(design, CATEGORY_PARAMETER)
        modalities = _task_choices(design, MODALITY_PARAMETER)
        if category and category not in categories:
            continue
        if modality and modality not in modalities:
            continue
        entries.append(
            RegistryEntry(
                registration,
                versions[-1],
                tuple(sorted(categories)),
                tuple(sorted(modalities)),
            )
        )
    return entries


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


def _answers(entries: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {e["number"]: e for e in entries}


def _rows(section, answers, scope, changed) -> list[DocRow]:
    rows = []
    for parameter in section.parameters:
        entry = answers.get(parameter.number, {})
        value = entry.get("value")
        text = parameter.to_text(value) if value is not None else ""
        rows.append(
            DocRow(
                parameter,
                text,
                entry.get("not_applicable", ""),
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


def design_parts(
    design: dict[str, Any], *, changes: Sequence[Change] = ()
) -> list[DocPart]:
    """The challenge level and each task, with rows in catalogue order."""
    changed = {(c.scope, c.number) for c in changes}
    top = _answers(design.get("answers", []))
    if NAME_PARAMETER not in top and design.get("name"):
        top[NAME_PARAMETER] = {"value": design["name"]}  # the name lives on the row
    parts = [
        DocPart(
            None,
            [(s, _rows(s, top, None, changed)) for s in sections_at("challenge")],
        )
    ]
    for task in design.get("tasks", []):
        name = task["name"]
        answers = _answers(task.get("answers", []))
        scheme = task.get("scheme")
        parts.append(
            DocPart(
                name,
                [(s, _rows(s, answers, name, changed)) for s in sections_at("task")],
                scheme=flatten(scheme) if scheme else None,
                scheme_changed=(name, None) in changed,
            )
        )
    return parts


# --- what an amendment would change ------------------------------------------


def _set_answer(entries: list[dict[str, Any]], number: int, value: Any) -> None:
    for entry in entries:
        if entry["number"] == number:
            entry.pop("not_applicable", None)
            entry["value"] = value
            return
    entries.append(
        {"number": number, "name": get_parameter(number).name, "value": value}
    )
    entries.sort(key=lambda e: e["number"])


def amended_design(design: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`design` with an amendment's (cleaned) change set applied, as approval would.

    A new scheme also rewrites the prose parameters it determines.
    """
    out = copy.deepcopy(design)
    for key, value in changes.get("challenge", {}).items():
        _set_answer(out.setdefault("answers", []), int(key), value)
    tasks = {t["name"]: t for t in out.get("tasks", [])}
    for name, task_changes in changes.get("tasks", {}).items():
        task = tasks[name]
        for key, value in task_changes.items():
            if key == "scheme":
                task["scheme"] = value
                sentences = describe_scheme(value)
                for number, sentence_key in PROSE_FROM_SCHEME.items():
                    _set_answer(task["answers"], number, sentences[sentence_key])
            else:
                _set_answer(task["answers"], int(key), value)
    return out
