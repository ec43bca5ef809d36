"""Chain heads: the latest version and SHA-256 of every registration, as text.

A copy kept outside the database (`manage.py export_hashes`, the public
`chain-heads.txt`, an archive, a mailing list) is what catches a history that
was rewritten with the triggers disabled and the chain recomputed:
`verify_registrations --against FILE` compares the database with it.

One line per registration: ``identifier version sha256 created`` (ISO 8601),
separated by single spaces; lines starting with ``#`` are comments.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from .models import RegistrationVersion
from .registration import ChainProblem

HEADER = "# challenge registry chain heads: identifier version sha256 created"


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
    versions = RegistrationVersion.objects.select_related("registration").order_by(
        "registration__identifier", "number"
    )
    for version in versions:
        latest[version.registration.identifier] = version
    return [
        ChainHead(identifier, v.number, v.sha256, v.created.isoformat())
        for identifier, v in latest.items()
    ]


def chain_heads_text(heads: list[ChainHead] | None = None) -> str:
    heads = chain_heads() if heads is None else heads
    stamp = timezone.now().replace(microsecond=0).isoformat()
    lines = [HEADER, f"# exported {stamp}", *(h.line() for h in heads)]
    return "\n".join(lines) + "\n"


class ChainHeadsFormatError(ValueError):
    """The file is not a chain-heads export."""


def parse_chain_heads(text: str) -> list[ChainHead]:
    heads = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
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
        heads.append(ChainHead(parts[0], int(parts[1]), parts[2], parts[3]))
    return heads


def compare_with_heads(heads: list[ChainHead]) -> list[ChainProblem]:
    """Each exported head must still be in the database, byte for byte.

    Versions added after the export are fine (the chain grows); a version whose
    hash changed, a missing version or a missing registration is a problem.
    """
    stored = {
        (v.registration.identifier, v.number): v
        for v in RegistrationVersion.objects.select_related("registration")
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
