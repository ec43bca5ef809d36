"""A published analysis arranged for its public results page and API.

Reads only what :mod:`publicrecord.selectors` lets the reader see; the
numbers come from the run's stored output, the deviations and their labels
from the analysis app (the ones its page and report use), so the public page
says what the organizers' page says.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import Http404
from django.urls import reverse
from django.utils.safestring import mark_safe

from analysis.output import AnalysisOutput, output_bytes
from analysis.present import ranking_sections, sorted_deviations
from analysis.reports import RANK_CI_MEANINGS
from registry.models import Registration, RegistrationVersion

from .models import Publication
from .selectors import is_public, visible_publications


def publication_or_404(
    user, registration: Registration, number: int | None = None
) -> Publication:
    """Publication ``number`` (default: the latest result ``user`` may read),
    404 with the same words whether it is missing, unpublished or embargoed."""
    found = visible_publications(user, registration)
    if number is None:
        current = [p for p in found if not p.exploratory]
        publication = current[-1] if current else None
    else:
        publication = found.filter(number=number).first()
    if publication is None:
        raise Http404("No published results.")
    return publication


def download_url(publication: Publication, name: str) -> str:
    return reverse(
        "publicrecord:results-download",
        args=[publication.registration.identifier, publication.number, name],
    )


def figure_url(publication: Publication):
    """The public SVG address of a publication's figure (kind, key, task)."""
    base = reverse(
        "publicrecord:results-figure",
        args=[publication.registration.identifier, publication.number],
    )

    def url(kind: str, key: str, task: str | None) -> str:
        query = {"kind": kind, "key": key} | ({"task": task} if task else {})
        return f"{base}?{urlencode(query)}"

    return url


def reproducible_scheme(publication: Publication) -> dict[str, Any] | None:
    """The one scheme the run used for every task (what ``python -m ranking``
    takes), or None when its tasks were ranked with different schemes."""
    schemes = list(publication.run.scheme.values())
    if not schemes or any(s != schemes[0] for s in schemes):
        return None
    return schemes[0]


def interval_sentences(block: Mapping[str, Any]) -> list[str]:
    """Each algorithm's rank and its rank intervals in plain words, e.g.
    "B ranks 2. Rank interval by bootstrap (…): anywhere from rank 1 to rank 3."
    """
    ranks = block["ranks"]
    intervals = block.get("rank_ci") or {}
    sentences = []
    for algorithm in sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)):
        rank = ranks[algorithm]
        if rank is None:
            sentences.append(f"{algorithm} is not ranked.")
            continue
        words = [f"{algorithm} ranks {rank:g}."]
        for method, bounds in intervals.items():
            lower, upper = bounds.get(algorithm, [None, None])
            if lower is None or upper is None:
                continue
            span = (
                f"rank {lower:g} only"
                if lower == upper
                else f"anywhere from rank {lower:g} to rank {upper:g}"
            )
            meaning = RANK_CI_MEANINGS.get(method, "")
            label = f"{method} ({meaning})" if meaning else method
            words.append(f"Rank interval by {label}: {span}.")
        sentences.append(" ".join(words))
    return sentences


def _task_sentences(output: Mapping[str, Any]) -> dict[tuple[str, str], list[str]]:
    """(ranking key, task) → sentences of the task, then of each target."""
    reader = AnalysisOutput.of(output)
    found = {}
    for key in reader.keys:
        for task, block in reader.tasks(key).items():
            sentences = interval_sentences(block)
            for target, inner in (block.get("targets") or {}).items():
                sentences += [
                    f"Target {target}: {s}" for s in interval_sentences(inner)
                ]
            found[(key, task)] = sentences
    return found


def amendments_between(publication: Publication) -> list[RegistrationVersion]:
    """Versions made by amendments after registration, up to the publication."""
    return list(
        publication.registration.versions.filter(
            number__gt=1, created__lte=publication.created
        ).order_by("number")
    )


@dataclass(frozen=True)
class Download:
    name: str
    label: str
    url: str
    sha256: str


def downloads(publication: Publication) -> list[Download]:
    files = [
        Download(
            "results.csv",
            "Results table (CSV)",
            download_url(publication, "results.csv"),
            publication.results_sha256,
        ),
        Download(
            "report.pdf",
            "Report (PDF)",
            download_url(publication, "report.pdf"),
            publication.report_sha256,
        ),
        Download(
            "output.json",
            "Analysis output (JSON)",
            download_url(publication, "output.json"),
            publication.output_sha256,
        ),
    ]
    if reproducible_scheme(publication) is not None:
        files.append(
            Download(
                "scheme.json",
                "Ranking scheme (JSON)",
                download_url(publication, "scheme.json"),
                "",
            )
        )
    return files


def publication_data(publication: Publication, *, absolute) -> dict[str, Any]:
    """The API's view of a publication (``absolute``: path → full URL)."""
    run = publication.run
    return {
        "registration": publication.registration.identifier,
        "number": publication.number,
        "exploratory": publication.exploratory,
        "registered_version": publication.version.number,
        "registered_version_sha256": publication.version.sha256,
        "results_version": run.results.number,
        "analysis": run.pk,
        "engine_version": run.engine_version,
        "seed": run.seed,
        "published": publication.created.isoformat(),
        "public_from": publication.public_from.isoformat()
        if publication.public_from
        else None,
        "public": is_public(publication),
        "supersedes": publication.supersedes.number
        if publication.supersedes_id
        else None,
        "superseded_by": _superseded_by(publication),
        "note": publication.note,
        "deviations": [
            {key: d.get(key) for key in ("code", "severity", "message", "task")}
            for d in sorted_deviations(run.deviations or [])
        ],
        "downloads": [
            {"name": d.name, "url": absolute(d.url), "sha256": d.sha256 or None}
            for d in downloads(publication)
        ],
        "page": absolute(page_url(publication)),
    }


def _superseded_by(publication: Publication) -> int | None:
    later = Publication.objects.filter(supersedes=publication).first()
    return later.number if later and is_public(later) else None


def page_url(publication: Publication) -> str:
    return reverse(
        "publicrecord:results-version",
        args=[publication.registration.identifier, publication.number],
    )


def page_context(user, publication: Publication, *, absolute) -> dict[str, Any]:
    run = publication.run
    registration = publication.registration
    sentences = _task_sentences(run.output)
    sections = ranking_sections(run.pk, run.output, figure_url=figure_url(publication))
    for section in sections:
        for task in section["tasks"]:
            task["sentences"] = sentences.get((section["key"], task["name"]), [])
    others = list(visible_publications(user, registration))
    later = next((p for p in others if p.supersedes_id == publication.pk), None)
    scheme = reproducible_scheme(publication)
    return {
        "registration": registration,
        "publication": publication,
        "run": run,
        "public": is_public(publication),
        "superseded_by": later,
        "publications": others,
        "deviations": sorted_deviations(run.deviations or []),
        "amendments": amendments_between(publication),
        "sections": sections,
        "downloads": downloads(publication),
        "reproducible": scheme is not None,
        "file_prefix": f"{registration.identifier}-results-{publication.number}",
        # escaped by dataset_json_ld (no "<" survives)
        "json_ld": mark_safe(dataset_json_ld(publication, absolute=absolute)),
    }


def published_output(publication: Publication) -> bytes:
    return output_bytes(publication.run.output)


def dataset_json_ld(publication: Publication, *, absolute) -> str:
    """schema.org Dataset of a publication, as the text of a
    ``<script type="application/ld+json">`` (``<``, ``>``, ``&`` escaped, so
    no user text can close the element)."""
    registration = publication.registration
    name = registration.challenge.name
    kind = "Exploratory analysis" if publication.exploratory else "Results"
    day = publication.public_from or publication.created.date()
    data = {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": f"{kind} of {name} ({registration.identifier}, "
        f"publication {publication.number})",
        "description": (
            f"{kind} of the challenge {name} under its registered design "
            f"(version {publication.version.number}): rankings, rank intervals, "
            "deviations from the registered design, the results table and the "
            "report."
        ),
        "url": absolute(page_url(publication)),
        "identifier": f"{registration.identifier}-results-{publication.number}",
        "version": str(publication.number),
        "datePublished": day.isoformat(),
        "isAccessibleForFree": True,
        "isBasedOn": absolute(
            reverse("registry:public-detail", args=[registration.identifier])
        ),
        "distribution": [
            {
                "@type": "DataDownload",
                "name": d.label,
                "contentUrl": absolute(d.url),
                "encodingFormat": DOWNLOAD_TYPES[d.name],
                **({"description": f"SHA-256 {d.sha256}"} if d.sha256 else {}),
            }
            for d in downloads(publication)
        ],
    }
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


DOWNLOAD_TYPES = {
    "results.csv": "text/csv",
    "report.pdf": "application/pdf",
    "output.json": "application/json",
    "scheme.json": "application/json",
}
