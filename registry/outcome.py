"""What a registered design says about its challenge's outcome: the answers to
the outcome parameters (participants, results, report document) in a version's
canonical JSON. They are given after the challenge has run, by an amendment;
once given, the public pages link them ("published")."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .models import RegistrationVersion
from .parameters import OUTCOME_PARAMETERS, Parameter

# What the public page and the design PDF of a registered version say of a
# parameter left unanswered: a registered design is not a draft ("missing").
NOT_REPORTED_YET = "Not applicable yet: reported after the challenge has run."
NOT_ANSWERED_AT_REGISTRATION = "Not answered at registration."


def unanswered_text(parameter: Parameter) -> str:
    """The sentence for `parameter` unanswered in a registered version."""
    if parameter.number in {p.number for p in OUTCOME_PARAMETERS}:
        return NOT_REPORTED_YET
    return NOT_ANSWERED_AT_REGISTRATION


@dataclass(frozen=True)
class OutcomeAnswer:
    parameter: Parameter
    task: str
    text: str


def outcome_answers(document: dict[str, Any]) -> list[OutcomeAnswer]:
    """Every outcome parameter answered (with a value) in a design document."""
    wanted = {p.number: p for p in OUTCOME_PARAMETERS}
    found = []
    for task in document.get("design", {}).get("tasks", []):
        for entry in task.get("answers", []):
            parameter = wanted.get(entry.get("number"))
            value = entry.get("value")
            if parameter is not None and value not in (None, ""):
                found.append(
                    OutcomeAnswer(parameter, task["name"], parameter.to_text(value))
                )
    return found


def published_outcomes(pks: Iterable[int]) -> dict[int, list[str]]:
    """version pk → names of the outcome parameters it answers, in one query."""
    rows = RegistrationVersion.objects.filter(pk__in=list(pks)).values_list(
        "pk", "canonical"
    )
    published = {}
    for pk, canonical in rows:
        answers = outcome_answers(json.loads(canonical))
        published[pk] = list(dict.fromkeys(a.parameter.name for a in answers))
    return published
