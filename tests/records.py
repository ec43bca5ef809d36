"""Assertions on append-only records (registration versions, the audit log)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction


def assert_orm_refuses_changes(record, error: type[Exception], **change) -> None:
    """Saving or deleting `record`, and updating (with `change`) or deleting its
    model's rows in bulk, each raise `error`. Set a changed field on `record`
    first, so that a save that went through would change it."""
    rows = type(record).objects
    attempts = (
        record.save,
        record.delete,
        lambda: rows.filter(pk=record.pk).update(**change),
        lambda: rows.all().delete(),
    )
    for attempt in attempts:
        with pytest.raises(error):
            attempt()


def assert_sql_refused(match: str, *statements: str) -> None:
    """Each raw SQL statement, run in its own transaction, is refused by the
    database (a trigger) with an error matching `match`."""
    for statement in statements:
        with (
            pytest.raises(DatabaseError, match=match),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
