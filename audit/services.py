"""The one writer of audit events.

Call `record(...)` inside the transaction of the action it describes, so the
event is stored exactly when the action is.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from .models import ANONYMOUS_ACTOR, SYSTEM_ACTOR, AuditEvent


def record(*, actor, action: str, target: models.Model, **details: Any) -> AuditEvent:
    """Store that `actor` did `action` (e.g. "review.decide") to `target`."""
    person = getattr(actor, "pk", None) is not None
    return AuditEvent.objects.create(
        actor=actor if person else None,
        actor_name=actor.get_username() if person else _marker(actor),
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        details={key: _plain(value) for key, value in details.items()},
    )


def _marker(actor) -> str:
    """The actor name of an event no signed-in person caused."""
    return ANONYMOUS_ACTOR if getattr(actor, "is_anonymous", False) else SYSTEM_ACTOR


def _plain(value: Any) -> Any:
    if isinstance(value, models.Model):
        return str(value.pk)
    if isinstance(value, str | int | float | bool | type(None) | list | dict):
        return value
    return str(value)
