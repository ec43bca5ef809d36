"""Files written to storage atomically (a reader never sees a partial file):
analysis reports, case-model figures, pilot tables of test-set plans."""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path

from .canonical import file_sha256

logger = logging.getLogger(__name__)


def store_file(field_file, name: str, content: bytes) -> str:
    """Write ``content`` under a temporary name in the storage directory, then
    move it into place: a reader never sees a partial file, and a failed write
    (disk full) leaves nothing behind. Returns the stored name."""
    storage = field_file.storage
    target = storage.get_available_name(
        field_file.field.generate_filename(field_file.instance, name)
    )
    final = Path(storage.path(target))
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(f".{final.name}.{uuid.uuid4().hex}.part")
    try:
        with partial.open("wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, final)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return target


def stored_file_problem(field_file, sha256: str) -> str | None:
    """Why the stored file is not the one recorded with ``sha256``, or None."""
    try:
        actual = file_sha256(field_file)
    except OSError:
        return f"{field_file.name} is missing"
    if actual != sha256:
        return f"{field_file.name} does not match its recorded SHA-256"
    return None


def remove_file(field_file, name: str) -> None:
    if name:
        try:
            field_file.storage.delete(name)
        except OSError:
            logger.warning("could not remove %s", name)
