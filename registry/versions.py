"""Lost-update protection: every editable object (challenge, task, answer)
carries a version that each save increments. A save made from a stale copy is
refused with :class:`StaleEditError`, which says what the other person changed,
with their name and time; the API maps versions to ETags (``If-Match``, 412).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, Model

PREVIEW_CHARACTERS = 200


@dataclass(frozen=True)
class OtherChange:
    """What someone else saved since the copy being saved was read."""

    what: str
    by: str
    at: datetime | None
    now: str

    def describe(self) -> str:
        when = f" at {self.at:%Y-%m-%d %H:%M:%S} UTC" if self.at else ""
        return f"{self.what} was changed by {self.by}{when}; it is now: {self.now}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.what,
            "changed_by": self.by,
            "changed_at": self.at.isoformat() if self.at else None,
            "now": self.now,
        }


class StaleEditError(Exception):
    """A save from a stale copy; nothing was saved (the API answers 412)."""

    def __init__(self, changes: list[OtherChange], *, detail: str = ""):
        self.changes = changes
        super().__init__(
            f"Not saved: {detail}"
            if detail
            else "Not saved: someone else changed this since you opened it. "
            + " ".join(c.describe() + "." for c in changes)
            + " Check their change, then save again."
        )


def preview(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > PREVIEW_CHARACTERS:
        return text[: PREVIEW_CHARACTERS - 1] + "…"
    return text or "(empty)"


def check(expected: int | None, current: int, change) -> None:
    """Refuse when ``expected`` (None: not checked) differs from ``current``;
    ``change()`` describes what the other person did."""
    if expected is not None and expected != current:
        raise StaleEditError([change()])


def bump(instance: Model) -> None:
    """The next version, written with the instance's next save of ``version``."""
    instance.version = F("version") + 1


def etag(instance: Model) -> str:
    return f'"{type(instance).__name__.lower()}-{instance.pk}-v{instance.version}"'


def version_from_if_match(
    header: str | None, instance_kind: str, ids: set[str]
) -> int | None:
    """The version an ``If-Match`` header names (None: no header or ``*``).

    Strict when sent (issue 30): every tag of a list is read and must be a
    strong ETag (no ``W/``) of this object (kind and one of `ids`: its primary
    key, or "new" for an answer not yet given), and all must name one version.
    Raises ValueError otherwise (the API answers 412)."""
    if not header or header.strip() == "*":
        return None
    tags = [tag.strip() for tag in header.split(",")]
    versions = {_tag_version(tag, instance_kind, ids) for tag in tags}
    if len(versions) > 1:
        raise ValueError(
            f"If-Match names {len(versions)} versions of this {instance_kind}; "
            "send the ETag of your copy."
        )
    return versions.pop()


def _tag_version(tag: str, instance_kind: str, ids: set[str]) -> int:
    if tag.startswith("W/"):
        raise ValueError(
            f"If-Match {tag!r} is a weak ETag; a change needs the strong ETag of a GET."
        )
    quoted = len(tag) >= 2 and tag[0] == tag[-1] == '"'
    name, _, version = tag[1:-1].rpartition("-v") if quoted else ("", "", "")
    kind, _, ident = name.partition("-")
    if kind != instance_kind or ident not in ids or not version.isdigit():
        raise ValueError(f"If-Match {tag!r} is not an ETag of this {instance_kind}.")
    return int(version)
