"""Canonical JSON: the exact bytes that registrations hash.

UTF-8, keys sorted, separators `,` and `:`, no insignificant whitespace, and
non-ASCII characters kept as they are.
"""

import hashlib
import json
from typing import Any


def canonical_json_bytes(data: Any) -> bytes:
    return json.dumps(
        data,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
