"""`manage.py verify_registrations` (and so a restore's verification) also
checks every stored case-model file — PDF report and forest plots — against
the SHA-256 recorded when it was drawn (registered in CharacteristicsConfig.ready)."""

from __future__ import annotations

from django.db.models import QuerySet

from registry.models import Registration
from registry.registration import ChainProblem
from registry.stored_files import stored_file_problem

from .models import CaseModelFile


def file_problem(stored: CaseModelFile) -> str | None:
    """Why the stored file is not the one recorded, or None."""
    return stored_file_problem(stored.file, stored.sha256)


def verify_case_model_files(
    registrations: QuerySet[Registration] | None,
) -> tuple[int, list[ChainProblem]]:
    """Every stored case-model file of ``registrations`` (None: all)."""
    files = CaseModelFile.objects.select_related(
        "run__metadata__results__registration",
        "run__metadata__results__registration_version",
    ).order_by("run_id", "kind")
    if registrations is not None:
        files = files.filter(run__metadata__results__registration__in=registrations)
    count, problems = 0, []
    for stored in files.iterator(chunk_size=100):
        count += 1
        problem = file_problem(stored)
        if problem:
            results = stored.run.metadata.results
            problems.append(
                ChainProblem(
                    results.registration.identifier,
                    results.registration_version.number,
                    f"case-model run {stored.run_id}: {problem}",
                )
            )
    return count, problems
