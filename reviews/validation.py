"""Validation of review input, shared by services (and later by forms).

Every error names the field it concerns: `sections.Assessment method.score`.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from registry.parameters import BY_NUMBER, GROUPS

from .enums import Recommendation

TEXT_LIMIT = 20000


def clean_text(value: Any, field: str, *, required: bool = False) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError({field: "Expected text."})
    value = value.strip()
    if required and not value:
        raise ValidationError({field: "This field may not be empty."})
    if len(value) > TEXT_LIMIT:
        raise ValidationError({field: f"At most {TEXT_LIMIT} characters."})
    return value


def clean_score(value: Any, field: str, *, required: bool = True) -> int | None:
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
        raise ValidationError(
            {field: f"Expected a whole number from 1 to 5, got {value!r}."}
        )
    return value


def clean_recommendation(value: Any) -> str:
    if value not in Recommendation.values:
        raise ValidationError(
            {"recommendation": f"{value!r} is not one of {Recommendation.values}."}
        )
    return value


def clean_sections(value: Any) -> dict[str, dict[str, Any]]:
    """`{"<parameter group>": {"score": 1–5, "comment": "..."}}`."""
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValidationError({"sections": "Expected an object keyed by section."})
    cleaned = {}
    for group, entry in value.items():
        field = f"sections.{group}"
        if group not in GROUPS:
            raise ValidationError(
                {field: f"Unknown section; sections are {list(GROUPS)}."}
            )
        if not isinstance(entry, dict) or set(entry) - {"score", "comment"}:
            raise ValidationError({field: 'Expected {"score": 1–5, "comment": "..."}.'})
        cleaned[group] = {
            "score": clean_score(entry.get("score"), f"{field}.score"),
            "comment": clean_text(entry.get("comment"), f"{field}.comment"),
        }
    return {group: cleaned[group] for group in GROUPS if group in cleaned}


def clean_parameter_comments(
    value: Any, *, task_names: set[str]
) -> list[dict[str, Any]]:
    """`[{"number": 44, "task": "Brain" | null, "comment": "..."}]`."""
    if value in (None, ""):
        return []
    if not isinstance(value, list):
        raise ValidationError({"parameters": "Expected a list of comments."})
    cleaned = []
    for i, entry in enumerate(value, start=1):
        field = f"parameters[{i}]"
        if not isinstance(entry, dict) or set(entry) - {"number", "task", "comment"}:
            raise ValidationError({field: 'Expected {"number", "task", "comment"}.'})
        number = entry.get("number")
        parameter = BY_NUMBER.get(number) if isinstance(number, int) else None
        if parameter is None:
            raise ValidationError(
                {f"{field}.number": f"No parameter {number!r} (1–53)."}
            )
        task = entry.get("task")
        if parameter.level == "task" and task not in task_names:
            raise ValidationError(
                {
                    f"{field}.task": f"Parameter {number} is answered per task; "
                    f"name one of {sorted(task_names)}."
                }
            )
        if parameter.level == "challenge" and task is not None:
            raise ValidationError(
                {f"{field}.task": f"Parameter {number} is a challenge-level parameter."}
            )
        cleaned.append(
            {
                "number": number,
                "task": task,
                "comment": clean_text(
                    entry.get("comment"), f"{field}.comment", required=True
                ),
            }
        )
    return cleaned
