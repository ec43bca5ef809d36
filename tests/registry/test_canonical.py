import hashlib
import io

import pytest
from django.core.files import File

from registry.canonical import (
    HASH_BLOCK_BYTES,
    canonical_json_bytes,
    canonical_sha256,
    file_sha256,
)


def test_canonical_json_bytes_sorts_keys_and_has_no_whitespace():
    data = {"b": 1, "a": [1, {"d": "ü ≥", "c": None}], "e": True}
    assert canonical_json_bytes(data) == (
        '{"a":[1,{"c":null,"d":"ü ≥"}],"b":1,"e":true}'.encode()
    )


def test_canonical_json_bytes_is_independent_of_key_order():
    assert canonical_json_bytes({"x": 1, "y": {"b": 2, "a": 3}}) == (
        canonical_json_bytes({"y": {"a": 3, "b": 2}, "x": 1})
    )


def test_canonical_json_bytes_refuses_nan():
    with pytest.raises(ValueError, match="not JSON compliant"):
        canonical_json_bytes({"x": float("nan")})


def test_canonical_sha256_is_the_hash_of_the_bytes():
    assert canonical_sha256({}) == (
        "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    )


class _Recorded(io.BytesIO):
    """A stream that remembers how much each read asked for."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size=-1):
        self.asked.append(size)
        return super().read(size)


class _Stored:
    """A stored file that opens onto `stream` (as a FieldFile does)."""

    def __init__(self, stream):
        self.stream = stream

    def open(self, mode):
        assert mode == "rb"
        return File(self.stream)


def test_file_sha256_reads_a_path_in_bounded_blocks(tmp_path):
    data = bytes(range(256)) * (HASH_BLOCK_BYTES // 128 + 3)  # > 2 blocks
    path = tmp_path / "report.pdf"
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()
    stream = _Recorded(data)
    assert file_sha256(_Stored(stream)) == hashlib.sha256(data).hexdigest()
    assert stream.asked == [HASH_BLOCK_BYTES] * 4


def test_file_sha256_of_a_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        file_sha256(tmp_path / "gone.pdf")
