"""On SQLite, the record's tables refuse UPDATE and DELETE too (issue 30).

PostgreSQL has row triggers in plpgsql; SQLite has no session settings and its
triggers cannot read TEMP objects, but they can call a function the
application registers on each connection. ``record_guard_lifted()`` returns 1
only inside ``record_guard_lifted(connection)`` below (the test flush and
``manage.py restore``), 0 otherwise; the triggers of audit migration 0006 and
registry migration 0018 refuse UPDATE and DELETE of registrations, their
versions, the chain-heads lists and audit events (but Django's ``actor`` set
to NULL when a user is deleted) unless it says 1. ``QuerySet.update()`` and
``.delete()`` on ``_base_manager`` and raw SQL through Django's connection meet
them like any other statement. A connection that lacks the function (the
``sqlite3`` shell, another program) is refused with "no such function".

Whoever holds the database file still has full power over it (they can drop
the triggers); the guard stops the application's own code paths. Production
runs on PostgreSQL with two roles (docs/security.md).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager

GUARD_FUNCTION = "record_guard_lifted"
_DEPTH = "_record_guard_lifted_depth"


def install_guard_function(sender, connection, **kwargs) -> None:
    """``connection_created`` receiver: give each SQLite connection the
    function the triggers ask (per connection, so per thread)."""
    if connection.vendor != "sqlite":
        return
    wrapper = weakref.ref(connection)

    def lifted() -> int:
        owner = wrapper()
        return int(owner is not None and getattr(owner, _DEPTH, 0) > 0)

    connection.connection.create_function(GUARD_FUNCTION, 0, lifted)


@contextmanager
def record_guard_lifted(connection) -> Iterator[None]:
    """Let this connection's statements past the SQLite triggers for a while:
    for emptying every table (the test flush, a restore), never for a change
    of the record. No effect on PostgreSQL, whose triggers do not ask."""
    depth = getattr(connection, _DEPTH, 0)
    setattr(connection, _DEPTH, depth + 1)
    try:
        yield
    finally:
        setattr(connection, _DEPTH, depth)
