"""Assertions on append-only records (registration versions, the audit log)."""

from __future__ import annotations

import pytest


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
