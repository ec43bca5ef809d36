"""Pilot tables of test-set plans, stored once as files by their SHA-256.

A plan from a pilot table used to carry the whole table (up to
``PLAN_PILOT_MAX_BYTES``) in its model, and so in the design JSON of every
review snapshot and registered version. An attached plan now keeps only
``results_sha256`` (the table's SHA-256, which is also the reference to the
stored file), ``table_bytes`` and ``cases``; the table itself is a
:class:`~registry.models.PilotTable` file. Plans attached before keep the
table inline (``model.table``) and are read as they are: registered versions
are append-only and are never rewritten.

``verify_registrations`` checks every stored table a registered version names
(``registry.pilot_table_checks``); backups copy it with the other media files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from .canonical import sha256_hex
from .models import PilotTable
from .stored_files import remove_file, store_file, stored_file_problem

#: The model field that marks a plan whose table is a stored file.
STORED_MARK = "table_bytes"


def store_pilot_table(text: str) -> PilotTable:
    """The stored table of ``text``, written now unless already stored (the
    same table attached twice is one file)."""
    data = text.encode("utf-8")
    digest = sha256_hex(data)
    found = PilotTable.objects.filter(sha256=digest).first()
    if found is not None:
        return found
    table = PilotTable(sha256=digest, size=len(data))
    table.file.name = store_file(table.file, f"{digest}.csv", data)
    try:
        with transaction.atomic():
            table.save()
    except IntegrityError:  # stored meanwhile by another request: theirs
        remove_file(table.file, table.file.name)
        return PilotTable.objects.get(sha256=digest)
    return table


def with_stored_table(plan: dict[str, Any]) -> dict[str, Any]:
    """``plan`` with its pilot table (if inline) stored as a file and replaced
    by its size; the SHA-256 already in the model is the reference."""
    model = plan.get("model") or {}
    if model.get("kind") != "pilot" or "table" not in model:
        return plan
    stored = store_pilot_table(model["table"])
    kept = {k: v for k, v in model.items() if k != "table"}
    return {**plan, "model": {**kept, STORED_MARK: stored.size}}


def pilot_table_text(model: Mapping[str, Any]) -> str:
    """The CSV text of a pilot plan's table: inline (plans attached before
    tables were stored) or read from storage and checked against its hash.

    Raises
    ------
    ValidationError
        The stored table is missing or does not match its SHA-256.
    """
    if "table" in model:
        return model["table"]
    digest = model["results_sha256"]
    stored = PilotTable.objects.filter(sha256=digest).first()
    problem = table_problem(stored, digest)
    if problem:
        raise ValidationError({"model.table": f"the pilot table: {problem}"})
    assert stored is not None
    with stored.file.open("rb") as handle:
        return handle.read().decode("utf-8")


def table_problem(stored: PilotTable | None, digest: str) -> str | None:
    """Why the stored table of ``digest`` cannot be trusted, or None."""
    if stored is None:
        return f"no stored pilot table has SHA-256 {digest}"
    return stored_file_problem(stored.file, digest)
