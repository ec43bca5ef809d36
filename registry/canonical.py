"""Canonical JSON: the exact bytes that are hashed when a design is registered.

UTF-8, keys sorted at every level, separators ``,`` and ``:``, non-ASCII kept as
is (``ensure_ascii=False``), no insignificant whitespace and no trailing newline.
Two documents with equal content therefore always give equal bytes. NaN and
infinities are refused: they are not JSON and would make the bytes ambiguous.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import AbstractContextManager
from typing import Any, BinaryIO, Protocol

# Files are hashed a block at a time: memory stays bounded whatever their size.
HASH_BLOCK_BYTES = 1 << 20


def canonical_json_bytes(data: Any) -> bytes:
    """The canonical UTF-8 bytes of a JSON-serialisable value."""
    return json.dumps(
        data,
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    ).encode("utf-8")


def canonical_sha256(data: Any) -> str:
    """Hex SHA-256 of `canonical_json_bytes(data)`."""
    return hashlib.sha256(canonical_json_bytes(data)).hexdigest()


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of bytes that are already canonical."""
    return hashlib.sha256(data).hexdigest()


class Openable(Protocol):
    """A stored file that opens for reading: a `pathlib.Path` or a Django
    `FieldFile` (both `.open("rb")`)."""

    def open(self, mode: str) -> AbstractContextManager[BinaryIO]: ...


def file_sha256(file: Openable) -> str:
    """Hex SHA-256 of a stored file's bytes, read in blocks of
    `HASH_BLOCK_BYTES`. Raises OSError when it cannot be read."""
    digest = hashlib.sha256()
    with file.open("rb") as stream:
        for block in iter(lambda: stream.read(HASH_BLOCK_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()
