"""What the registered design says about case characteristics.

The parameter catalogue has no structured field for a case-characteristics
analysis; its text answers about the test cases do name them (the roles
*context information* and *test case characteristics*). These answers are shown
beside the metadata and prefill the specification form. A run counts as
announced when those registered answers name every characteristic and grouping
it models (as words, case-insensitive, ``_`` read as a space); otherwise it is
exploratory and labelled so everywhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from registry.parameters import Role

ROLES = (Role.CONTEXT_INFORMATION, Role.TEST_CASE_CHARACTERISTICS)
# Where the registered design describes the case characteristics, in words.
SOURCES = "the registered context information and test case characteristics"


@dataclass(frozen=True)
class RegisteredAnswer:
    number: int
    name: str
    text: str
    task: str | None = None  # None: a challenge-level answer


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_text(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(_text(v) for v in value)
    return str(value)


def characteristics_answers(canonical: str, task: str | None) -> list[RegisteredAnswer]:
    """The registered answers of the ROLES for `task` (or for every task when
    `task` is None), challenge-level answers included."""
    design = json.loads(canonical)["design"]
    entries = [(None, e) for e in design.get("answers", [])]
    for block in design.get("tasks", []):
        if task is None or block.get("name") == task:
            entries += [(block.get("name"), e) for e in block.get("answers", [])]
    wanted = {role.number: role.parameter for role in ROLES}
    out = []
    for task_name, entry in entries:
        parameter = wanted.get(entry.get("number"))
        if parameter is not None and entry.get("value") is not None:
            text = _text(entry["value"]).strip()
            if text:
                out.append(
                    RegisteredAnswer(parameter.number, parameter.name, text, task_name)
                )
    return out


def _words(name: str) -> re.Pattern[str]:
    phrase = re.escape(name.replace("_", " ").strip()).replace(r"\ ", r"[\s_-]+")
    return re.compile(rf"(?<![\w-]){phrase}(?![\w-])", re.IGNORECASE)


def named_columns(answers: list[RegisteredAnswer], columns: list[str]) -> list[str]:
    """The metadata columns that the registered answers name."""
    text = "\n".join(a.text for a in answers)
    return [c for c in columns if _words(c).search(text)]


def announcement(
    answers: list[RegisteredAnswer], columns: list[str]
) -> tuple[bool, str]:
    """(exploratory, reason): announced when the answers name every column."""
    if not answers:
        return True, (
            f"The registered design does not describe case characteristics "
            f"({SOURCES} are unanswered)."
        )
    missing = [c for c in columns if c not in named_columns(answers, columns)]
    if missing:
        return True, (
            "The registered design does not name "
            + ", ".join(repr(c) for c in missing)
            + f" in {SOURCES}."
        )
    return False, (
        "Announced: the registered design names every modelled characteristic "
        f"and grouping in {SOURCES}."
    )
