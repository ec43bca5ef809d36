"""Case metadata versions and model runs: checks, commits, the background job.

Pages, API and demo call these functions; views hold no logic.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from dataclasses import replace
from typing import Any

import pandas as pd
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from analysis import ingest, run_state
from analysis.admission import admit_run
from analysis.jobs import job
from analysis.models import AnalysisStatus, ResultsVersion
from analysis.services import (
    can_see_results,
    can_upload_results,
    registered_design,
    results_table,
)
from analysis.xlsx import TableLimits
from casemodels import (
    ENGINE_VERSION,
    CaseModelError,
    check_metadata,
    fit_case_models,
    parse_spec,
    prepare_model_data,
    validate_metadata,
)

from . import files
from .bounds import case_model_bounds
from .design import announcement, characteristics_answers
from .models import CaseMetadataVersion, CaseModelRun
from .report import section_flowables

logger = logging.getLogger(__name__)


# --- reads -------------------------------------------------------------------------


def metadata_frame(version: CaseMetadataVersion) -> pd.DataFrame:
    raw = pd.read_csv(io.StringIO(version.content), dtype=str, keep_default_na=False)
    return validate_metadata(raw)


def registered_answers(results: ResultsVersion, task: str | None = None):
    """The registered answers that describe case characteristics (in words)."""
    return characteristics_answers(results.registration_version.canonical, task)


def runs_of(results: ResultsVersion):
    return (
        CaseModelRun.objects.filter(metadata__results=results)
        .select_related("metadata", "requested_by")
        .order_by("-created")
    )


# --- metadata ------------------------------------------------------------------------


def read_metadata_upload(name: str, data: bytes) -> pd.DataFrame:
    """Read and shape-check an uploaded metadata table (CSV or XLSX).

    The metadata limits are checked while the file is read (an .xlsx's blank
    and declared rows included), not after. Raises ValidationError with every
    problem named.
    """
    try:
        return validate_metadata(
            ingest.read_upload(name, data, limits=metadata_limits())
        )
    except ingest.UploadError as exc:
        raise ValidationError(exc.errors) from None
    except CaseModelError as exc:
        raise ValidationError(str(exc)) from None


def metadata_limits() -> TableLimits:
    """The bounds of a case metadata table (settings)."""
    return replace(
        TableLimits.for_results(),
        rows=settings.CASE_METADATA_MAX_ROWS,
        columns=settings.CASE_METADATA_MAX_COLUMNS,
    )


def preview_metadata(
    results: ResultsVersion,
    frame: pd.DataFrame,
    *,
    table: ingest.CheckedResults | None = None,
) -> dict[str, Any]:
    """The contract's checks of a metadata table against these results
    (``table``: their table if the caller has read it)."""
    return check_metadata(frame, results_table(results, in_hand=table).frame)


def _normalised_csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, lineterminator="\n")


@transaction.atomic
def commit_metadata(
    *,
    results: ResultsVersion,
    frame: pd.DataFrame,
    original_name: str,
    actor,
    table: ingest.CheckedResults | None = None,
) -> CaseMetadataVersion:
    """Store a checked metadata table as the next (immutable) version
    (``table``: the results' table if the caller has read it)."""
    if not can_upload_results(actor, results.registration):
        raise PermissionDenied("Only the organizers upload case metadata.")
    ResultsVersion.objects.select_for_update().get(pk=results.pk)  # numbering
    content = _normalised_csv(frame)
    number = (results.case_metadata_versions.aggregate(n=Max("number"))["n"] or 0) + 1
    return CaseMetadataVersion.objects.create(
        results=results,
        number=number,
        content=content,
        sha256=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        original_name=original_name[:255],
        row_count=len(frame),
        checks=preview_metadata(results, frame, table=table),
        uploaded_by=actor,
    )


# --- model runs ----------------------------------------------------------------------


def _fit(
    version: CaseMetadataVersion,
    spec: Any,
    progress=None,
    table: ingest.CheckedResults | None = None,
    interrupt=None,
) -> dict[str, Any]:
    """The fit within the settings' bounds (``interrupt``: called between its
    units of work; raises to stop it, e.g. when the job lost its run)."""
    return fit_case_models(
        results_table(version.results, in_hand=table).frame,
        metadata_frame(version),
        spec,
        scheme=_registered_scheme(version.results, spec),
        progress=progress,
        **case_model_bounds(),
        interrupt=interrupt,
    )


def _registered_scheme(results: ResultsVersion, spec: Any) -> dict[str, Any] | None:
    """The registered ranking scheme of the spec's task (orders the algorithms)."""
    design = registered_design(results)
    task = spec.get("task") if isinstance(spec, dict) else None
    if task is None and len(design.tasks) == 1:
        task = next(iter(design.tasks))
    entry = design.tasks.get(task) if task else None
    return entry.scheme if entry and entry.scheme else None


@transaction.atomic
def start_case_model_run(
    *,
    metadata: CaseMetadataVersion,
    spec: Any,
    actor,
    table: ingest.CheckedResults | None = None,
) -> CaseModelRun:
    """Check the specification against the data, then queue the fit.

    ``table``: the results' table if the caller has read it; read here
    otherwise, and handed to the fit when it runs in this process.
    """
    if not can_see_results(actor, metadata.results.registration):
        raise PermissionDenied("You cannot analyse these results.")
    table = results_table(metadata.results, in_hand=table)
    try:
        parsed = parse_spec(spec)
        data = prepare_model_data(
            table.frame,
            metadata_frame(metadata),
            parsed,
            scheme=_registered_scheme(metadata.results, spec),
            max_terms=settings.CASE_MODEL_MAX_TERMS,
            max_groupings=settings.CASE_MODEL_MAX_GROUPINGS,
        )
    except CaseModelError as exc:
        raise ValidationError({"spec": str(exc)}) from None
    answers = registered_answers(metadata.results, data.task)
    exploratory, reason = announcement(answers, parsed.columns)
    # as stored (JSON: tuples become lists), to compare with pending runs
    spec = json.loads(json.dumps(parsed.to_dict() | {"task": data.task}))
    CaseMetadataVersion.objects.select_for_update().filter(pk=metadata.pk).first()
    existing = run_state.identical_pending_run(
        CaseModelRun.objects.filter(metadata=metadata), lambda run: run.spec == spec
    )
    if existing is not None:
        return existing
    admit_run(actor)
    run = CaseModelRun.objects.create(
        metadata=metadata,
        spec=spec,
        exploratory=exploratory,
        announcement=reason,
        requested_by=actor,
        engine_version=ENGINE_VERSION,
    )
    send_case_model_run(run.pk, table=table)
    return run


def send_case_model_run(
    run_id: int, *, table: ingest.CheckedResults | None = None
) -> None:
    """Send the fit's job to the queue, recording whether it got there
    (``table``, already read, goes to a fit run in this process)."""
    run_state.send_run(
        execute_case_model_run, CaseModelRun, run_id, in_process={"table": table}
    )


@job
def execute_case_model_run(
    run_id: int, *, table: ingest.CheckedResults | None = None
) -> None:
    """The background job: claim the run (once; a re-delivered job after a lost
    worker claims it again), fit with a heartbeat, store the output and the
    files drawn from it (``table``: the results' table, handed over
    in-process)."""
    claim = run_state.claim(run_id, CaseModelRun)
    if claim is not None:
        run_state.run_claimed(claim, lambda beat: _fit_claimed(claim, beat, table))


def _fit_claimed(
    claim: run_state.Claim,
    beat: run_state.Heartbeat,
    table: ingest.CheckedResults | None,
) -> None:
    run = CaseModelRun.objects.select_related("metadata__results__registration").get(
        pk=claim.run_id
    )

    def progress(fraction: float) -> None:
        beat.check()
        beat.beat(progress=min(99, int(fraction * 100)))

    try:
        output = _fit(run.metadata, run.spec, progress, table, interrupt=beat.check)
    except (CaseModelError, ValueError) as exc:
        run_state.fail(
            run.pk, str(exc).splitlines()[0], attempt=claim.attempt, model=CaseModelRun
        )
        return
    output["exploratory"] = run.exploratory
    output["announcement"] = run.announcement
    run.output, run.finished = output, timezone.now()
    drawn = files.draw_files(run)  # the PDF and figures, drawn once (issue 30)
    try:
        beat.check()
        with transaction.atomic():
            done = claim.runs().update(
                status=AnalysisStatus.DONE,
                output=output,
                progress=100,
                finished=run.finished,
                heartbeat=timezone.now(),
            )
            if done:
                files.keep_files(run, drawn)
    except BaseException:
        files.discard_files(drawn)
        raise
    if not done:
        files.discard_files(drawn)


def report_section_for(analysis_run):
    """The analysis report's case-characteristics section (hook of
    ``analysis.report_hooks``): the latest finished run on the
    same results version, or None."""
    run = (
        CaseModelRun.objects.filter(
            metadata__results=analysis_run.results, status=AnalysisStatus.DONE
        )
        .order_by("-finished", "-pk")
        .first()
    )
    if run is None:
        return None
    output = run.output
    return lambda width: section_flowables(output, width=width)
