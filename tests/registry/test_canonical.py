import pytest

from registry.canonical import canonical_json_bytes, canonical_sha256


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
