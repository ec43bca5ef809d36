"""The registry's Ed25519 key, which signs the published chain-heads lists.

The private key is a PEM file at `settings.CHAIN_HEADS_SIGNING_KEY`, created
(mode 0600) on first use when missing; its public key is served at
``/registry/chain-heads.pub`` so that anyone holding a list can check that the
registry published it, byte for byte (docs/security.md).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from django.conf import settings

ALGORITHM = "ed25519"


class SigningKeyError(ValueError):
    """The key file is missing (when it must exist) or is not an Ed25519 key."""


def _key_path() -> Path:
    return Path(settings.CHAIN_HEADS_SIGNING_KEY)


def signing_key() -> Ed25519PrivateKey:
    """The private key, created when its file does not exist yet."""
    path = _key_path()
    if not path.exists():
        _create_key_file(path)
    return _read_private_key(path)


def public_key() -> Ed25519PublicKey:
    """The public half of the configured key (which must exist)."""
    path = _key_path()
    if not path.exists():
        raise SigningKeyError(
            f"no signing key at {path} (nothing was signed here yet): "
            "give the registry's public key with --public-key"
        )
    return _read_private_key(path).public_key()


def public_key_pem(key: Ed25519PublicKey | None = None) -> str:
    key = signing_key().public_key() if key is None else key
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def read_public_key(pem: bytes) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError as exc:
        raise SigningKeyError(f"not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError("not an Ed25519 public key")
    return key


def key_id(key: Ed25519PublicKey) -> str:
    """A short name of a public key: the first 16 hex digits of the SHA-256 of
    its 32 raw bytes."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def sign(data: bytes) -> str:
    """The base64 Ed25519 signature of `data` by the registry's key."""
    return base64.b64encode(signing_key().sign(data)).decode("ascii")


def signature_valid(key: Ed25519PublicKey, data: bytes, signature: str) -> bool:
    try:
        key.verify(base64.b64decode(signature, validate=True), data)
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True


def _read_private_key(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path}: not a PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path}: not an Ed25519 private key")
    return key


def _create_key_file(path: Path) -> None:
    """Write a new key to `path` unless another process wrote one first (the
    complete file appears at once, by a hard link, or not at all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".new-key-")
    try:
        with os.fdopen(descriptor, "wb") as handle:  # mode 0600 (mkstemp)
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process won: its key
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
