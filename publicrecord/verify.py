"""`manage.py verify_registrations` also checks every published result: the
results table, the analysis output and the report are still the bytes whose
SHA-256 was published (registered in PublicRecordConfig.ready)."""

from __future__ import annotations

from django.db.models import QuerySet

from analysis.output import output_bytes
from registry.canonical import file_sha256, sha256_hex
from registry.models import Registration
from registry.registration import ChainProblem

from .models import Publication


def _report_sha256(publication: Publication) -> str | None:
    report = publication.run.report
    if not report:
        return None
    try:
        return file_sha256(report)
    except OSError:
        return None


def publication_problems(publication: Publication) -> list[str]:
    """What no longer matches the hashes printed on the results page."""
    run = publication.run
    found = []
    if sha256_hex(run.results.content.encode()) != publication.results_sha256:
        found.append("the results table differs from the published SHA-256")
    if sha256_hex(output_bytes(run.output or {})) != publication.output_sha256:
        found.append("the analysis output differs from the published SHA-256")
    report = _report_sha256(publication)
    if report is None:
        found.append("the report file is missing")
    elif report != publication.report_sha256:
        found.append("the report differs from the published SHA-256")
    return found


def verify_publications(
    registrations: QuerySet[Registration] | None,
) -> tuple[int, list[ChainProblem]]:
    """Every publication (public or embargoed) of ``registrations`` (None: all)."""
    publications = Publication.objects.select_related(
        "registration", "version", "run__results"
    ).order_by("registration_id", "number")
    if registrations is not None:
        publications = publications.filter(registration__in=registrations)
    problems = []
    count = 0
    for publication in publications.iterator(chunk_size=100):
        count += 1
        problems += [
            ChainProblem(
                publication.registration.identifier,
                publication.version.number,
                f"published result {publication.number}: {message}",
            )
            for message in publication_problems(publication)
        ]
    return count, problems
