"""Differences between two versions of a design (proposal export format).

Parameter-level changes for every challenge-level and task-level answer, a
word-level diff for prose, and a field-level diff for ranking schemes, so pages
and PDFs can highlight exactly what an amendment or a revision changed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from .parameters import get_parameter


@dataclass(frozen=True)
class WordChange:
    op: str  # "equal", "insert", "delete"
    text: str


@dataclass(frozen=True)
class Change:
    scope: str | None  # task name, None for challenge level
    number: int | None  # parameter number, None for the scheme or a whole task
    name: str
    before: Any
    after: Any
    words: tuple[WordChange, ...] = ()
    fields: tuple[tuple[str, Any, Any], ...] = ()  # scheme: (dotted field, a, b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.scope,
            "number": self.number,
            "name": self.name,
            "from": self.before,
            "to": self.after,
            "words": [{"op": w.op, "text": w.text} for w in self.words],
            "fields": [{"field": f, "from": a, "to": b} for f, a, b in self.fields],
        }


def _answer_map(entries: list[dict[str, Any]]) -> dict[int, Any]:
    return {
        e["number"]: (
            {"not_applicable": e["not_applicable"]}
            if "not_applicable" in e
            else e.get("value")
        )
        for e in entries
    }


def word_diff(before: str, after: str) -> tuple[WordChange, ...]:
    a, b = before.split(), after.split()
    out: list[WordChange] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(WordChange("equal", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(WordChange("delete", " ".join(a[i1:i2])))
        if j2 > j1:
            out.append(WordChange("insert", " ".join(b[j1:j2])))
    return tuple(out)


def field_diff(before: Any, after: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """Dotted paths of every leaf that differs between two JSON values."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in sorted(set(before) | set(after)):
            path = f"{prefix}.{key}" if prefix else str(key)
            out += field_diff(before.get(key), after.get(key), path)
        return out
    return [] if before == after else [(prefix or "(value)", before, after)]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _answer_changes(
    scope, before: dict[int, Any], after: dict[int, Any]
) -> list[Change]:
    changes = []
    for number in sorted(set(before) | set(after)):
        a, b = before.get(number), after.get(number)
        if a == b:
            continue
        words = ()
        if _text(a) is not None and _text(b) is not None:
            words = word_diff(a, b)
        fields = () if words else tuple(field_diff(a, b))
        changes.append(
            Change(scope, number, get_parameter(number).name, a, b, words, fields)
        )
    return changes


def design_diff(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """Every change from design `before` to `after` (export documents)."""
    changes = _answer_changes(
        None,
        _answer_map(before.get("answers", [])),
        _answer_map(after.get("answers", [])),
    )
    tasks_a = {t["name"]: t for t in before.get("tasks", [])}
    tasks_b = {t["name"]: t for t in after.get("tasks", [])}
    for name in [*tasks_a, *(t for t in tasks_b if t not in tasks_a)]:
        a, b = tasks_a.get(name), tasks_b.get(name)
        if a is None or b is None:
            changes.append(
                Change(
                    name,
                    None,
                    "task added" if a is None else "task removed",
                    a is not None,
                    b is not None,
                )
            )
            continue
        changes += _answer_changes(
            name, _answer_map(a["answers"]), _answer_map(b["answers"])
        )
        if a.get("scheme") != b.get("scheme"):
            changes.append(
                Change(
                    name,
                    None,
                    "Ranking scheme",
                    a.get("scheme"),
                    b.get("scheme"),
                    fields=tuple(field_diff(a.get("scheme"), b.get("scheme"))),
                )
            )
    return changes
