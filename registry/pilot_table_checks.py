"""``verify_registrations`` (and so a restore's verification) also checks
every stored pilot table a registered version's test-set plans name against
its SHA-256 (registered in ``RegistryConfig.ready``; kept apart from
``registry.pilot_tables`` so the design's imports do not reach the
registration module)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.db.models import QuerySet

from .models import PilotTable, Registration, RegistrationVersion
from .pilot_tables import STORED_MARK, table_problem
from .registration import ChainProblem


def _stored_digests(canonical: str) -> Iterator[str]:
    """The SHA-256 of every stored pilot table a registered design names."""
    design = json.loads(canonical).get("design") or {}
    for task in design.get("tasks", ()):
        model = (task.get("plan") or {}).get("model") or {}
        if model.get("kind") == "pilot" and STORED_MARK in model:
            yield model["results_sha256"]


def verify_pilot_tables(
    registrations: QuerySet[Registration] | None,
) -> tuple[int, list[ChainProblem]]:
    """Every stored pilot table named by a version of ``registrations`` (None:
    all) exists and matches its SHA-256 (a ``registry.verifiers`` check)."""
    versions = RegistrationVersion.objects.filter(
        canonical__contains=f'"{STORED_MARK}"'
    ).select_related("registration")
    if registrations is not None:
        versions = versions.filter(registration__in=registrations.values("pk"))
    checked: dict[str, str | None] = {}
    problems: list[ChainProblem] = []
    for version in versions.order_by("registration_id", "number").iterator(
        chunk_size=100
    ):
        for digest in _stored_digests(version.canonical):
            if digest not in checked:
                stored = PilotTable.objects.filter(sha256=digest).first()
                checked[digest] = table_problem(stored, digest)
            if checked[digest]:
                problems.append(
                    ChainProblem(
                        version.registration.identifier,
                        version.number,
                        f"pilot table of a test-set plan: {checked[digest]}",
                    )
                )
    return len(checked), problems
