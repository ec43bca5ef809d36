"""One door for registered data: only an approved amendment changes it.

Once a challenge is registered, its answers, tasks and schemes (and its name
and planning) are refused by the models (`registry.models`) and, on
PostgreSQL, by triggers (migration `0006_registered_design_lock`), unless the
change runs inside `registered_changes_allowed()`, which only
`registry.amendments.approve_amendment` enters. The context is a ContextVar for
the ORM and a transaction-local setting (`registry.amending`) for the triggers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection

_amending: ContextVar[bool] = ContextVar("registry_amending", default=False)
AMENDING_SETTING = "registry.amending"


class RegisteredDataError(Exception):
    """A change to a registered design outside an approved amendment (HTTP 409).

    `recorded` tells whether the attempt is already in the audit log; the
    request layer records it otherwise, after the transaction rolled back.
    """

    def __init__(self, target, what: str, message: str = ""):
        self.target = target
        self.what = what
        self.recorded = False
        super().__init__(
            message
            or f"{what} belongs to a registered challenge; it changes only "
            "through an approved amendment."
        )


def amending() -> bool:
    return _amending.get()


def _set_database_flag(value: str) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config(%s, %s, true)", [AMENDING_SETTING, value])


@contextmanager
def registered_changes_allowed() -> Iterator[None]:
    """Open the door for the changes of one approved amendment (atomic caller)."""
    token = _amending.set(True)
    _set_database_flag("on")
    try:
        yield
    finally:
        _set_database_flag("off")
        _amending.reset(token)


def record_refusal(error: RegisteredDataError, *, actor=None) -> None:
    """Write the refused attempt to the audit log, once.

    Call it where the refused change has already been rolled back (the request
    layer does), or in autocommit (a shell), so the record is not undone too.
    """
    if error.recorded:
        return
    from audit.services import record

    record(
        actor=actor,
        action="registration.change_refused",
        target=error.target,
        what=error.what,
    )
    error.recorded = True
