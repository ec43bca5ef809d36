"""Canonical JSON: the exact bytes that are hashed when a design is registered.

UTF-8, keys sorted at every level, separators ``,`` and ``:``, non-ASCII kept as
is (``ensure_ascii=False``), no insignificant whitespace and no trailing newline.
Two documents with equal content therefore always give equal bytes. NaN and
infinities are refused: they are not JSON and would make the bytes ambiguous.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


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
