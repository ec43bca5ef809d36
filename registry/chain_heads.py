"""Chain heads: the latest version and SHA-256 of every registration, as a
signed, append-only list.

A copy kept outside the database (`manage.py export_hashes`, the public
`chain-heads.txt`, an archive, a mailing list) is what catches a history that
was rewritten with the triggers disabled and the chain recomputed:
`verify_registrations --against FILE` compares the database with it.

Each published list is stored as served (`ChainHeadsList`, write-once) and a
new one is published when a head changes. A list reads::

    # challenge registry chain heads: identifier version sha256 created
    # list 3 published 2026-11-27T20:00:00+00:00
    # previous <SHA-256 of list 2's text, or "none">
    # key ed25519 <the signing key's id>
    miccai-2027-001 2 <sha256> 2026-11-20T10:00:00+00:00
    # signature ed25519 <base64 signature of every byte above this line>

One head per line, ``identifier version sha256 created`` (ISO 8601); other
lines starting with ``#`` are comments. The Ed25519 signature proves that the
registry published the copy unaltered; ``previous`` chains each list to the
one before, so the lists in the database must lead from any earlier copy to
the current list, each keeping every head of the one before (at the same
version with the same hash, or at a later version).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.db import IntegrityError, transaction
from django.utils import timezone

from . import chain_signing
from .models import ChainHeadsList, RegistrationVersion
from .registration import ChainProblem

HEADER = "# challenge registry chain heads: identifier version sha256 created"
SIGNATURE_PREFIX = f"# signature {chain_signing.ALGORITHM} "
LIST = "chain-heads list"  # the identifier of problems found in the lists


@dataclass(frozen=True)
class ChainHead:
    identifier: str
    version: int
    sha256: str
    created: str

    def line(self) -> str:
        return f"{self.identifier} {self.version} {self.sha256} {self.created}"


def chain_heads() -> list[ChainHead]:
    """The latest version of every registration, by identifier."""
    latest: dict[str, RegistrationVersion] = {}
    versions = (
        RegistrationVersion.objects.select_related("registration")
        .only("number", "sha256", "created", "registration__identifier")
        .order_by("registration__identifier", "number")
    )
    for version in versions:  # without the canonical texts: asked on every GET
        latest[version.registration.identifier] = version
    return [
        ChainHead(identifier, v.number, v.sha256, v.created.isoformat())
        for identifier, v in latest.items()
    ]


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def published_list() -> ChainHeadsList:
    """The current list, published first when a head changed since the last."""
    heads = chain_heads()
    latest = ChainHeadsList.objects.order_by("-number").first()
    if latest is not None and read_list(latest.text).heads == heads:
        return latest
    try:
        with transaction.atomic():
            return _publish(heads, after=latest)
    except IntegrityError:  # another process published this number first
        return ChainHeadsList.objects.order_by("-number").first()


def _publish(heads: list[ChainHead], *, after: ChainHeadsList | None):
    number = 1 if after is None else after.number + 1
    now = timezone.now().replace(microsecond=0)
    key = chain_signing.signing_key().public_key()
    lines = [
        HEADER,
        f"# list {number} published {now.isoformat()}",
        f"# previous {after.sha256 if after else 'none'}",
        f"# key {chain_signing.ALGORITHM} {chain_signing.key_id(key)}",
        *(h.line() for h in heads),
    ]
    body = "\n".join(lines) + "\n"
    text = body + SIGNATURE_PREFIX + chain_signing.sign(body.encode()) + "\n"
    return ChainHeadsList.objects.create(
        number=number, text=text, sha256=sha256_text(text), created=now
    )


def chain_heads_text() -> str:
    """The text of the current list (`published_list`), as served."""
    return published_list().text


class ChainHeadsFormatError(ValueError):
    """The file is not a chain-heads export."""


@dataclass(frozen=True)
class PublishedList:
    """A list read back from its text. An export made before lists were
    numbered and signed has no number, previous hash or signature."""

    heads: list[ChainHead]
    body: str  # the signed text: everything before the signature line
    signature: str | None
    number: int | None
    previous: str | None  # None for the first list (and unnumbered exports)
    sha256: str  # of the whole text, as the next list names it


def read_list(text: str) -> PublishedList:
    body, signature = text, None
    marker = text.rfind("\n" + SIGNATURE_PREFIX)
    if marker >= 0:
        body = text[: marker + 1]
        signature = text[marker + 1 + len(SIGNATURE_PREFIX) :].strip()
    heads, meta = [], {}
    for number, raw in enumerate(body.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            words = line[1:].split()
            if len(words) >= 2 and words[0] in ("list", "previous"):
                meta[words[0]] = words[1]
            continue
        if line:
            heads.append(_head(number, line))
    listed = meta.get("list")
    if listed is not None and not listed.isdigit():
        raise ChainHeadsFormatError(f"{listed!r} is not a list number.")
    previous = meta.get("previous")
    return PublishedList(
        heads=heads,
        body=body,
        signature=signature,
        number=int(listed) if listed else None,
        previous=None if previous in (None, "none") else previous,
        sha256=sha256_text(text),
    )


def _head(number: int, line: str) -> ChainHead:
    parts = line.split(" ")
    if len(parts) != 4 or not parts[1].isdigit() or len(parts[2]) != 64:
        raise ChainHeadsFormatError(
            f"line {number}: expected 'identifier version sha256 created'."
        )
    try:
        datetime.fromisoformat(parts[3])
    except ValueError:
        raise ChainHeadsFormatError(
            f"line {number}: {parts[3]!r} is not an ISO 8601 time."
        ) from None
    return ChainHead(parts[0], int(parts[1]), parts[2], parts[3])


def parse_chain_heads(text: str) -> list[ChainHead]:
    return read_list(text).heads


def compare_with_heads(heads: list[ChainHead]) -> list[ChainProblem]:
    """Each exported head must still be in the database, byte for byte.

    Versions added after the export are fine (the chain grows); a version whose
    hash changed, a missing version or a missing registration is a problem.
    """
    stored = {
        (v.registration.identifier, v.number): v
        for v in RegistrationVersion.objects.select_related("registration").only(
            "number", "sha256", "registration__identifier"
        )
    }
    problems = []
    for head in heads:
        version = stored.get((head.identifier, head.version))
        if version is None:
            problems.append(
                ChainProblem(head.identifier, head.version, "missing from the database")
            )
        elif version.sha256 != head.sha256:
            problems.append(
                ChainProblem(
                    head.identifier,
                    head.version,
                    f"SHA-256 {version.sha256} differs from the exported "
                    f"{head.sha256}: the history was rewritten",
                )
            )
    return problems


def compare_with_copy(
    copy: PublishedList, key: Ed25519PublicKey, *, allow_unsigned: bool = False
) -> list[ChainProblem]:
    """What keeps the database from extending `copy`, a list published earlier.

    The copy must carry the registry's signature (`key`); a copy that does not
    verify is refused before anything else is compared. The lists stored from
    the copy's number on must begin with the copy itself and each name the one
    before and keep its heads; and every head of the copy must still be in the
    database (`compare_with_heads`).
    """
    if copy.signature is None:
        if not allow_unsigned:
            return [ChainProblem(LIST, 0, "the copy is not signed")]
    elif not chain_signing.signature_valid(key, copy.body.encode(), copy.signature):
        return [
            ChainProblem(
                LIST,
                copy.number or 0,
                "the signature does not verify with the registry's key "
                f"{chain_signing.key_id(key)}: the copy was altered or is not "
                "the registry's",
            )
        ]
    problems = [] if copy.number is None else _lists_from(copy, key)
    return problems + compare_with_heads(copy.heads)


def _lists_from(copy: PublishedList, key: Ed25519PublicKey) -> list[ChainProblem]:
    stored = list(ChainHeadsList.objects.filter(number__gte=copy.number))
    if not stored or stored[0].number != copy.number:
        return [
            ChainProblem(
                LIST,
                copy.number,
                "not in the database: the published lists were removed",
            )
        ]
    problems = []
    if sha256_text(stored[0].text) != copy.sha256:  # the text, not its column
        problems.append(
            ChainProblem(
                LIST,
                copy.number,
                "the database holds another text under this number: the "
                "published lists were rewritten",
            )
        )
    earlier = copy
    for row in stored[1:]:
        later = read_list(row.text)
        problems += [
            ChainProblem(LIST, row.number, message)
            for message in _extension_problems(earlier, later, key)
        ]
        earlier = later
    return problems


def _extension_problems(
    earlier: PublishedList, later: PublishedList, key: Ed25519PublicKey
) -> list[str]:
    """Why `later`, the list published after `earlier`, does not extend it."""
    problems = []
    if later.number != (earlier.number or 0) + 1:
        problems.append(f"follows list {earlier.number}")
    if later.previous != earlier.sha256:
        problems.append(f"does not name the SHA-256 of list {earlier.number}")
    if later.signature is None or not chain_signing.signature_valid(
        key, later.body.encode(), later.signature
    ):
        problems.append("its signature does not verify")
    now = {head.identifier: head for head in later.heads}
    for head in earlier.heads:
        kept = now.get(head.identifier)
        if kept is None:
            problems.append(f"drops {head.identifier}")
        elif kept.version < head.version or (
            kept.version == head.version and kept.sha256 != head.sha256
        ):
            problems.append(
                f"rewrites {head.identifier} v{head.version} of list {earlier.number}"
            )
    return problems
