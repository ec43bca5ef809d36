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

    def __init__(self, changes: list[OtherChange]):
        self.changes = changes
        super().__init__(
            "Not saved: someone else changed this since you opened it. "
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


def version_from_if_match(header: str | None, instance_kind: str) -> int | None:
    """The version an ``If-Match`` header names (None: no header or ``*``).

    Raises ValueError for a header that names no version of this kind."""
    if not header or header.strip() == "*":
        return None
    tag = header.split(",")[0].strip().removeprefix("W/").strip('"')
    prefix, _, version = tag.rpartition("-v")
    if not prefix.startswith(f"{instance_kind}-") or not version.isdigit():
        raise ValueError(f"If-Match {header!r} is not an ETag of this {instance_kind}.")
    return int(version)
