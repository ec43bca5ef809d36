"""ORM → DataFrame → engine → stored outputs, and the permissions around them."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import pandas as pd
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from ranking import run_analysis, scheme_to_dict
from ranking.version import ENGINE_VERSION
from registry.canonical import sha256_hex
from registry.models import Registration
from registry.permissions import is_chair, is_organizer
from registry.schemes import check_run_limits, parse_bounded_scheme
from registry.stored_files import remove_file, store_file

from . import ingest, run_state
from .admission import admit_run
from .chunking import (
    ChunkSpec,
    chunk_ranks,
    group_frame,
    merged_ranks,
    plan_chunks,
    ranks_from_bytes,
    ranks_to_bytes,
    scheme_groups,
)
from .design import RegisteredDesign, design_from_canonical
from .deviations import find_deviations
from .jobs import enqueue, job, publish_many, uses_celery
from .models import AnalysisChunk, AnalysisRun, AnalysisStatus, ResultsVersion
from .output import merged_output
from .run_report import render_run_report

PROGRESS_STEP = 2  # percent; fewer writes while a long job runs
ANALYSIS_SHARE = 0.6  # of the progress bar; the report's figures take the rest
logger = logging.getLogger(__name__)


# --- permissions ---------------------------------------------------------------


def can_upload_results(user, registration: Registration) -> bool:
    return is_organizer(user, registration.challenge)


def can_see_results(user, registration: Registration) -> bool:
    challenge = registration.challenge
    return user.is_authenticated and (
        user.is_staff or is_organizer(user, challenge) or is_chair(user, challenge)
    )


# --- reads -----------------------------------------------------------------------


def results_table(
    results: ResultsVersion, *, in_hand: ingest.CheckedResults | None = None
) -> ingest.CheckedResults:
    """The checked table of a results version (its stored normalised CSV read
    back); read it once per job or request and pass it on.

    ``in_hand``: the table a caller already read (the request that queued an
    in-process job hands it over), returned when it is this version's.
    """
    if in_hand is not None and in_hand.content == results.content:
        return in_hand
    return ingest.read_normalised(results.content)


def results_frame(results: ResultsVersion) -> pd.DataFrame:
    """The checked rows of a results version (:func:`results_table`'s frame)."""
    return results_table(results).frame


def latest_design(registration: Registration) -> RegisteredDesign:
    """The design as registered now (for previews before anything is stored)."""
    version = registration.versions.order_by("-number").first()
    return design_from_canonical(version.canonical, sha256=version.sha256)


def registered_design(results: ResultsVersion) -> RegisteredDesign:
    """The design in force when these results were uploaded."""
    version = results.registration_version
    post_hoc = tuple(
        results.registration.versions.filter(
            post_hoc=True, number__lte=version.number
        ).values_list("number", flat=True)
    )
    return design_from_canonical(
        version.canonical, sha256=version.sha256, post_hoc_versions=post_hoc
    )


# --- writes ----------------------------------------------------------------------


def _clean_exploratory(
    scheme: Any, schemes: Any, tasks: list[str]
) -> dict[str, dict[str, Any]]:
    if schemes is not None:
        if not isinstance(schemes, dict):
            raise ValidationError({"schemes": "Expected an object task → scheme."})
        unknown = sorted(set(schemes) - set(tasks))
        if unknown:
            raise ValidationError({"schemes": f"Unknown task(s) {unknown}."})
        by_task = {t: schemes.get(t, scheme) for t in tasks}
    else:
        by_task = dict.fromkeys(tasks, scheme)
    cleaned = {}
    for task, data in by_task.items():
        if data is None:
            raise ValidationError({"scheme": f"No scheme given for task {task!r}."})
        cleaned[task] = scheme_to_dict(parse_bounded_scheme(data))
    return cleaned


def _registered_schemes(
    design: RegisteredDesign, tasks: list[str]
) -> dict[str, dict[str, Any]]:
    missing = [t for t in tasks if t in design.tasks and not design.tasks[t].scheme]
    if missing:
        raise ValidationError(
            {
                "scheme": f"Task(s) {missing} have no registered ranking scheme; "
                "run an exploratory analysis with a scheme instead."
            }
        )
    return {t: design.tasks[t].scheme for t in tasks if t in design.tasks}


def _seed_of(schemes: Mapping[str, dict[str, Any]]) -> int:
    seeds = {s.get("uncertainty", {}).get("seed") for s in schemes.values()}
    seeds.discard(None)
    return min(seeds) if seeds else random.SystemRandom().randrange(2**31)


@transaction.atomic
def start_analysis(
    *, results: ResultsVersion, actor, scheme: Any = None, schemes: Any = None
) -> AnalysisRun:
    """Queue the registered analysis, or an exploratory one when a scheme is given.

    Identical to a queued or running run: that run is returned; past the
    work caps (:mod:`analysis.admission`) BusyError. When the job
    queue is down the run stays queued with a note and the watchdog sends it
    later (``run.note`` says so once the transaction has committed).
    """
    if not can_see_results(actor, results.registration):
        raise PermissionDenied("You cannot analyse these results.")
    table = results_table(results)
    tasks = table.tasks
    exploratory = scheme is not None or schemes is not None
    if exploratory:
        by_task = _clean_exploratory(scheme, schemes, tasks)
    else:
        by_task = _registered_schemes(registered_design(results), tasks)
    if not by_task:
        raise ValidationError({"scheme": "No task of the results is registered."})
    check_run_limits(by_task, table.frame)
    ResultsVersion.objects.select_for_update().filter(pk=results.pk).first()
    existing = run_state.identical_pending_run(
        AnalysisRun.objects.filter(results=results, exploratory=exploratory),
        lambda run: run.scheme == by_task,
    )
    if existing is not None:
        return existing
    admit_run(actor)
    run = AnalysisRun.objects.create(
        results=results,
        scheme=by_task,
        exploratory=exploratory,
        seed=_seed_of(by_task),
        requested_by=actor,
        engine_version=ENGINE_VERSION,
    )
    send_analysis(run.pk, table=table)
    return run


def can_retry_analysis(user, run: AnalysisRun) -> bool:
    challenge = run.results.registration.challenge
    return user.is_authenticated and (
        user.is_staff or is_organizer(user, challenge) or is_chair(user, challenge)
    )


class NotRetryableError(Exception):
    """Only a failed run can be retried (the API answers 409)."""


@transaction.atomic
def retry_analysis(*, run: AnalysisRun, actor=None) -> AnalysisRun:
    """Queue a failed run again from the start (finished bootstrap chunks are
    kept: they are deterministic). ``actor`` None: an operator's command."""
    if actor is not None and not can_retry_analysis(actor, run):
        raise PermissionDenied("Only organizers and chairs retry an analysis.")
    run = AnalysisRun.objects.select_for_update().get(pk=run.pk)
    if run.status != AnalysisStatus.FAILED:
        raise NotRetryableError(
            f"Analysis {run.pk} is {run.get_status_display().lower()}; "
            "only a failed analysis can be retried."
        )
    old_report = run.report.name
    who = actor.get_username() if actor is not None else "an operator"
    AnalysisRun.objects.filter(pk=run.pk).update(
        status=AnalysisStatus.QUEUED,
        attempt=0,
        progress=0,
        note=f"Retried by {who} after: {run.error}",
        error="",
        output=None,
        deviations=[],
        report="",
        report_sha256="",
        started=None,
        heartbeat=None,
        finished=None,
        merge_started=None,
        worker="",
    )
    transaction.on_commit(lambda: remove_file(run.report, old_report))
    send_analysis(run.pk)
    run.refresh_from_db()
    return run


def send_analysis(run_id: int, *, table: ingest.CheckedResults | None = None) -> None:
    """Send the run's job to the queue, recording whether it got there.

    ``table``: the run's results table, already read; a job run in this process
    (no Celery) gets it instead of reading the stored text again.
    """
    run_state.send_run(
        execute_analysis, AnalysisRun, run_id, in_process={"table": table}
    )


def compute_output(
    frame: pd.DataFrame,
    schemes: Mapping[str, dict[str, Any]],
    *,
    seed: int,
    progress=None,
    bootstrap_ranks: Mapping[int, Mapping[tuple[str, str], Any]] | None = None,
) -> dict[str, Any]:
    """Engine output for all tasks; one engine run per distinct scheme.

    ``bootstrap_ranks`` gives precomputed bootstrap rankings per scheme group
    (the merged chunks of a chunked run); groups without them compute their own.
    """
    groups = scheme_groups(schemes)
    outputs = []
    for index, tasks in enumerate(groups):

        def scaled(fraction: float, index=index) -> None:
            if progress is not None:
                progress((index + fraction) / len(groups))

        result = run_analysis(
            group_frame(frame, tasks),
            schemes[tasks[0]],
            seed=seed,
            progress=scaled,
            bootstrap_ranks=(bootstrap_ranks or {}).get(index),
        )
        outputs.append(result.output)
    return merged_output(outputs, schemes)


def _progress_recorder(beat: run_state.Heartbeat, *, start: int = 0):
    """A callback storing the finished fraction as percent (fewer writes); it
    also stops the job when its run was lost or its wall time is spent."""
    last = [start]

    def progress(fraction: float) -> None:
        beat.check()
        percent = min(99, int(fraction * 100))
        if percent - last[0] >= PROGRESS_STEP:
            last[0] = percent
            beat.beat(progress=percent)

    return progress


@job
def execute_analysis(
    run_id: int, *, table: ingest.CheckedResults | None = None
) -> None:
    """The background job: run, store outputs and deviations, record progress.

    Claims a queued run, or a running one whose job is gone (a re-delivered
    message after a lost worker). A run whose bootstrap work reaches
    ``ANALYSIS_CHUNK_THRESHOLD`` is split into chunks (:func:`run_chunk`), sent
    to all workers when Celery is configured, one after another in this process
    otherwise; the last chunk to finish queues :func:`merge_chunks`, which
    finishes the run. ``table``: the results table handed over in-process
    (:func:`send_analysis`); passed on to the chunks and the merge run here.
    """
    claim = run_state.claim(run_id)
    if claim is None:
        return  # finished, or another job holds it: jobs are idempotent
    run_state.run_claimed(claim, lambda beat: _analyse(claim, beat, table))


def _analyse(
    claim: run_state.Claim,
    beat: run_state.Heartbeat,
    table: ingest.CheckedResults | None,
) -> None:
    run = AnalysisRun.objects.select_related("results__registration").get(
        pk=claim.run_id
    )
    progress = _progress_recorder(beat)
    table = results_table(run.results, in_hand=table)
    frame = table.frame
    chunks = plan_chunks(
        frame,
        run.scheme,
        seed=run.seed,
        threshold=settings.ANALYSIS_CHUNK_THRESHOLD,
        replicates=settings.ANALYSIS_CHUNK_REPLICATES,
    )
    if chunks:
        _start_chunks(run.pk, chunks, table)
        return
    output = compute_output(
        frame,
        run.scheme,
        seed=run.seed,
        progress=lambda f: progress(f * ANALYSIS_SHARE),
    )
    _finish(claim, beat, run, frame, output)


def store_chunks(run_id: int, chunks: list[ChunkSpec]) -> None:
    """The chunk rows of a run; rows an earlier attempt stored (finished or
    not) are kept."""
    AnalysisChunk.objects.bulk_create(
        [
            AnalysisChunk(
                run_id=run_id,
                group=c.group,
                key=c.key,
                task=c.task,
                first_block=c.first_block,
                stop_block=c.stop_block,
            )
            for c in chunks
        ],
        ignore_conflicts=True,
    )


def _start_chunks(
    run_id: int, chunks: list[ChunkSpec], table: ingest.CheckedResults
) -> None:
    """Store the chunk rows and run the unfinished ones: on all workers, or
    here one after another (with the `table` already read)."""
    store_chunks(run_id, chunks)
    unfinished = AnalysisChunk.objects.filter(run_id=run_id, finished=None)
    unfinished.update(heartbeat=None)  # sent now: not stalled
    pending = [_chunk_args(c) for c in unfinished]
    if not pending:
        _chunk_finished(run_id, table)  # a resumed run whose chunks were all done
    elif uses_celery():
        publish_many(run_chunk, pending)
    else:
        for args in pending:
            run_chunk(*args, table=table)


def _chunk_args(chunk: AnalysisChunk) -> tuple:
    """The arguments of `run_chunk` (the job's message) for `chunk`."""
    return (
        chunk.run_id,
        chunk.group,
        chunk.key,
        chunk.task,
        chunk.first_block,
        chunk.stop_block,
    )


def resend_stalled_chunks(stale_after: timedelta) -> list[int]:
    """Send again every started chunk of a running run whose job has been
    silent for `stale_after` (its worker died), now (the watchdog, each pass).
    The run's other chunks keep its own heartbeat fresh, so without this the
    lost chunks waited until all the others had finished and the whole run
    went stale. Returns their ids; a chunk computed twice stores once."""
    stalled = list(
        AnalysisChunk.objects.filter(
            finished=None,
            heartbeat__lt=timezone.now() - stale_after,
            run__status=AnalysisStatus.RUNNING,
            run__merge_started=None,
        )
    )
    AnalysisChunk.objects.filter(pk__in=[c.pk for c in stalled]).update(heartbeat=None)
    for chunk in stalled:
        enqueue(run_chunk, *_chunk_args(chunk))
    return [c.pk for c in stalled]


def _chunk_spec(chunk: AnalysisChunk) -> ChunkSpec:
    return ChunkSpec(
        chunk.group, chunk.key, chunk.task, chunk.first_block, chunk.stop_block
    )


@job
def run_chunk(
    run_id: int,
    group: int,
    key: str,
    task: str,
    first_block: int,
    stop_block: int,
    *,
    table: ingest.CheckedResults | None = None,
) -> None:
    """Compute and store one chunk of a running run (idempotent: a chunk that
    is already stored, or of a run no longer running, is left alone);
    ``table``: the results table when the run's job runs here."""
    chunk = (
        AnalysisChunk.objects.select_related("run__results")
        .filter(
            run_id=run_id,
            group=group,
            key=key,
            task=task,
            first_block=first_block,
            stop_block=stop_block,
        )
        .first()
    )
    if chunk is None or chunk.run.status != AnalysisStatus.RUNNING:
        return
    run = chunk.run
    if chunk.finished is None and run.merge_started is None:
        claim = run_state.current_claim(run)
        mine = AnalysisChunk.objects.filter(pk=chunk.pk, finished=None)
        mine.update(heartbeat=timezone.now())
        with run_state.Heartbeat(
            claim, on_beat=lambda: mine.update(heartbeat=timezone.now())
        ) as beat:
            try:
                beat.check()
                ranks = chunk_ranks(
                    lambda: results_table(run.results, in_hand=table).frame,
                    run.scheme,
                    _chunk_spec(chunk),
                    seed=run.seed,
                    cache_key=(run.pk, run.results.sha256, json.dumps(run.scheme)),
                )
            except run_state.RunLost:
                return
            except run_state.DATABASE_ERRORS:
                raise  # the task retries with backoff (idempotent)
            except Exception as exc:
                logger.exception("chunk %s failed", chunk)
                reason = run_state.failure_reason(exc, run_id)
                run_state.fail(run_id, f"Bootstrap chunk {chunk} failed: {reason}")
                return
        AnalysisChunk.objects.filter(pk=chunk.pk, finished=None).update(
            ranks=ranks_to_bytes(ranks), finished=timezone.now()
        )
    _chunk_finished(run_id, table)


def _chunk_finished(run_id: int, table: ingest.CheckedResults | None) -> None:
    """Progress = finished chunks / all chunks; the last one queues the merge
    (handing it `table` if it runs here)."""
    counts = AnalysisChunk.objects.filter(run_id=run_id).aggregate(
        total=Count("pk"), done=Count("pk", filter=Q(finished__isnull=False))
    )
    total, done = counts["total"], counts["done"]
    AnalysisRun.objects.filter(pk=run_id, status=AnalysisStatus.RUNNING).update(
        progress=int(100 * ANALYSIS_SHARE * 0.9 * done / max(1, total)),
        heartbeat=timezone.now(),
    )
    if total and done == total:
        enqueue(merge_chunks, run_id, in_process={"table": table})


@job
def merge_chunks(run_id: int, *, table: ingest.CheckedResults | None = None) -> None:
    """Merge a run's chunks in block order and finish it (runs once: the merge
    is claimed by setting ``merge_started``; later calls return at once);
    ``table``: the results table when the run's job ran here."""
    if AnalysisChunk.objects.filter(run_id=run_id, finished=None).exists():
        return
    claimed = AnalysisRun.objects.filter(
        pk=run_id, status=AnalysisStatus.RUNNING, merge_started=None
    ).update(merge_started=timezone.now(), heartbeat=timezone.now())
    if not claimed:
        return
    run = AnalysisRun.objects.select_related("results__registration").get(pk=run_id)
    claim = run_state.current_claim(run)
    run_state.run_claimed(claim, lambda beat: _merge(claim, beat, run, table))


def _merge(
    claim: run_state.Claim,
    beat: run_state.Heartbeat,
    run: AnalysisRun,
    table: ingest.CheckedResults | None,
) -> None:
    chunks = [
        (_chunk_spec(c), ranks_from_bytes(c.ranks))
        for c in AnalysisChunk.objects.filter(run_id=run.pk)
    ]
    progress = _progress_recorder(beat, start=run.progress)
    share = 0.9 * ANALYSIS_SHARE
    frame = results_table(run.results, in_hand=table).frame
    output = compute_output(
        frame,
        run.scheme,
        seed=run.seed,
        progress=lambda f: progress(share + f * (ANALYSIS_SHARE - share)),
        bootstrap_ranks=merged_ranks(chunks),
    )
    if _finish(claim, beat, run, frame, output):
        AnalysisChunk.objects.filter(run_id=run.pk).update(ranks=None)


def _finish(
    claim: run_state.Claim,
    beat: run_state.Heartbeat,
    run: AnalysisRun,
    frame: pd.DataFrame,
    output: dict[str, Any],
) -> bool:
    """Deviations, stored output and the report: the run is done (False when
    the run was no longer this claim's)."""
    design = registered_design(run.results)
    deviations = find_deviations(
        design=design,
        executed=run.scheme,
        frame=frame,
        output=output,
        team_affiliations=run.results.teams,
    )
    beat.check()
    claim.runs().update(
        output=output,
        deviations=[d.to_dict() for d in deviations],
        progress=int(100 * ANALYSIS_SHARE),
        heartbeat=timezone.now(),
    )
    run.refresh_from_db()
    try:
        pdf = render_run_report(
            run, frame=frame, design=design, figures=settings.ANALYSIS_REPORT_FIGURES
        )
    except (OSError, MemoryError, *run_state.DATABASE_ERRORS):
        raise
    except Exception as exc:  # the report must not hide the stored numbers
        logger.exception("report of analysis %s failed", run.pk)
        reason = run_state.failure_reason(exc, run.pk)
        raise ReportError(
            f"The analysis finished but its report failed: {reason}"
        ) from exc
    beat.check()
    name = store_file(run.report, f"analysis-{run.pk}.pdf", pdf)
    try:
        done = claim.runs().update(
            report=name,
            report_sha256=sha256_hex(pdf),
            status=AnalysisStatus.DONE,
            progress=100,
            finished=timezone.now(),
            heartbeat=timezone.now(),
        )
    except BaseException:
        remove_file(run.report, name)
        raise
    if not done:
        remove_file(run.report, name)
    return bool(done)


class ReportError(ValueError):
    """The numbers are stored; drawing their report failed."""
