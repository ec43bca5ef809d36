"""A run's files — its PDF report and the page's two forest plots — drawn once
from the stored output and served from storage (issues 28 and 30).

They had been drawn on every GET: 1–14 s for the PDF, 3 s for the figures of
the demo's run page. The fit's job now draws them when it stores the output
(:func:`draw_files`, :func:`keep_files`); a run finished before that, or whose
job could not draw them, gets each file drawn at its first GET
(:func:`stored_file`), never again. ``DRAWN`` counts the drawings of this
process, so tests can see that a GET drew nothing.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.http import FileResponse
from django.utils import timezone

from analysis import run_state
from registry.canonical import sha256_hex
from registry.stored_files import remove_file, store_file

from .models import CaseModelFile, CaseModelFileKind, CaseModelRun

logger = logging.getLogger(__name__)

PLOT_DPI = 110
DRAWN: Counter[str] = Counter()  # kind → drawings in this process
CONTENT_TYPES = {
    CaseModelFileKind.REPORT: "application/pdf",
    CaseModelFileKind.GLOBAL: "image/png",
    CaseModelFileKind.PER_ALGORITHM: "image/png",
}
SUFFIXES = {"application/pdf": "pdf", "image/png": "png"}


@dataclass(frozen=True)
class DrawnFile:
    """A file written to storage, not yet recorded (see :func:`keep_files`)."""

    kind: str
    name: str
    sha256: str


def kinds_of(run: CaseModelRun) -> list[str]:
    """The files a run with output has (the per-algorithm figure only when it
    fitted per-algorithm models)."""
    models = (run.output or {}).get("models", [])
    kinds = [CaseModelFileKind.REPORT, CaseModelFileKind.GLOBAL]
    if any(m.get("scope") == "algorithm" for m in models):
        kinds.append(CaseModelFileKind.PER_ALGORITHM)
    return [str(k) for k in kinds]


def report_pdf(run: CaseModelRun) -> bytes:
    """The run's own PDF report (deterministic for a stored output)."""
    from .report import CaseModelReport, render_case_model_pdf

    version = run.metadata
    results = version.results
    return render_case_model_pdf(
        CaseModelReport(
            challenge=results.registration.challenge.name,
            registration=results.registration.identifier,
            results_version=results.number,
            metadata_version=version.number,
            metadata_sha256=version.sha256,
            run_id=run.pk,
            date=timezone.localdate(run.finished or run.created).isoformat(),
            output=run.output,
        )
    )


def draw(run: CaseModelRun, kind: str) -> bytes:
    """The bytes of one of the run's files, drawn from its output."""
    if kind == CaseModelFileKind.REPORT:
        content = report_pdf(run)
    else:
        from analysis.plots import figure_png

        from .plots import forest_global, forest_per_algorithm

        plot = {
            CaseModelFileKind.GLOBAL: forest_global,
            CaseModelFileKind.PER_ALGORITHM: forest_per_algorithm,
        }[kind]
        content = figure_png(plot(run.output), dpi=PLOT_DPI)
    DRAWN[kind] += 1
    return content


def _write(run: CaseModelRun, kind: str, content: bytes) -> DrawnFile:
    field = CaseModelFile(run=run, kind=kind).file
    suffix = SUFFIXES[CONTENT_TYPES[kind]]
    name = store_file(field, f"case-model-{run.pk}-{kind}.{suffix}", content)
    return DrawnFile(kind, name, sha256_hex(content))


def _remove(drawn: list[DrawnFile]) -> None:
    field = CaseModelFile().file
    for item in drawn:
        remove_file(field, item.name)


def draw_files(run: CaseModelRun) -> list[DrawnFile]:
    """Draw and write every file of a run whose output is in hand (the fit's
    job, before it marks the run done). A drawing that fails is logged and
    left to the first GET, so the stored numbers are never held back by it."""
    drawn: list[DrawnFile] = []
    try:
        for kind in kinds_of(run):
            try:
                content = draw(run, kind)
            except (OSError, MemoryError, *run_state.DATABASE_ERRORS):
                raise
            except Exception:
                logger.exception("case model run %s: drawing %s failed", run.pk, kind)
                continue
            drawn.append(_write(run, kind, content))
    except BaseException:
        _remove(drawn)
        raise
    return drawn


def keep_files(run: CaseModelRun, drawn: list[DrawnFile]) -> None:
    """Record written files on a run that is now done (inside its transaction)."""
    CaseModelFile.objects.bulk_create(
        CaseModelFile(run=run, kind=d.kind, file=d.name, sha256=d.sha256) for d in drawn
    )


def discard_files(drawn: list[DrawnFile]) -> None:
    """Remove written files that were not recorded (the run was lost)."""
    _remove(drawn)


def stored_file(run: CaseModelRun, kind: str) -> CaseModelFile:
    """The run's stored file of ``kind``: drawn and stored at the first call if
    the job did not, and again only if its file went missing from storage."""
    found = run.files.filter(kind=kind).first()
    if found is not None and found.file.storage.exists(found.file.name):
        return found
    drawn = [_write(run, kind, draw(run, kind))]
    try:
        with transaction.atomic():
            if found is not None:  # its file is gone: replace the record
                CaseModelFile.objects.filter(pk=found.pk).delete()
            keep_files(run, drawn)
    except IntegrityError:  # a concurrent GET stored it first
        _remove(drawn)
        return run.files.get(kind=kind)
    except BaseException:
        _remove(drawn)
        raise
    return run.files.get(kind=kind)


def file_response(run: CaseModelRun, kind: str, **kwargs) -> FileResponse:
    """The run's stored file of ``kind`` (drawn first if it never was), with its
    SHA-256 as a strong ETag: pages and API alike (``kwargs``: FileResponse's)."""
    stored = stored_file(run, kind)
    response = FileResponse(
        stored.file.open("rb"), content_type=CONTENT_TYPES[kind], **kwargs
    )
    response["ETag"] = f'"{stored.sha256}"'
    return response
