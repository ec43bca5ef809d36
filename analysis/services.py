"""ORM → DataFrame → engine → stored outputs, and the permissions around them."""

from __future__ import annotations

import io
import json
import logging
import random
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import pandas as pd
from celery import group as celery_group
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from ranking import run_analysis, scheme_to_dict
from ranking.version import ENGINE_VERSION
from registry.canonical import sha256_hex
from registry.models import Registration
from registry.permissions import is_chair, is_organizer
from registry.schemes import check_run_limits, parse_bounded_scheme

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
from .ingest import validated
from .jobs import enqueue, uses_celery
from .models import AnalysisChunk, AnalysisRun, AnalysisStatus, ResultsVersion
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


def results_frame(results: ResultsVersion) -> pd.DataFrame:
    raw = pd.read_csv(io.StringIO(results.content), dtype=str, keep_default_na=False)
    return validated(raw)


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
    """Queue the registered analysis, or an exploratory one when a scheme is given."""
    if not can_see_results(actor, results.registration):
        raise PermissionDenied("You cannot analyse these results.")
    frame = results_frame(results)
    tasks = sorted(frame["task"].unique())
    exploratory = scheme is not None or schemes is not None
    if exploratory:
        by_task = _clean_exploratory(scheme, schemes, tasks)
    else:
        by_task = _registered_schemes(registered_design(results), tasks)
    if not by_task:
        raise ValidationError({"scheme": "No task of the results is registered."})
    check_run_limits(by_task, frame)
    run = AnalysisRun.objects.create(
        results=results,
        scheme=by_task,
        exploratory=exploratory,
        seed=_seed_of(by_task),
        requested_by=actor,
        engine_version=ENGINE_VERSION,
    )
    enqueue("analysis.services.execute_analysis", run.pk)
    return run


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
    if len(outputs) == 1:
        return outputs[0]
    merged: dict[str, Any] = {"schemes": dict(sorted(schemes.items())), "rankings": {}}
    for output in outputs:
        for key, ranking in output["rankings"].items():
            merged["rankings"].setdefault(key, {"tasks": {}})["tasks"].update(
                ranking["tasks"]
            )
    return merged


def _progress_recorder(run_id: int, *, start: int = 0):
    """A callback storing the finished fraction as percent (fewer writes)."""
    last = [start]

    def progress(fraction: float) -> None:
        percent = min(99, int(fraction * 100))
        if percent - last[0] >= PROGRESS_STEP:
            last[0] = percent
            AnalysisRun.objects.filter(pk=run_id).update(
                progress=percent, heartbeat=timezone.now()
            )

    return progress


def execute_analysis(run_id: int) -> None:
    """The background job: run, store outputs and deviations, record progress.

    A run whose bootstrap work reaches ``ANALYSIS_CHUNK_THRESHOLD`` is split
    into chunks (:func:`run_chunk`), a Celery group when Celery is configured,
    one after another in this process otherwise; the last chunk to finish
    queues :func:`merge_chunks`, which finishes the run.
    """
    claimed = AnalysisRun.objects.filter(
        pk=run_id, status=AnalysisStatus.QUEUED
    ).update(
        status=AnalysisStatus.RUNNING,
        started=timezone.now(),
        heartbeat=timezone.now(),
        progress=0,
        merge_started=None,
    )
    if not claimed:
        return  # already running or finished: jobs are idempotent
    run = AnalysisRun.objects.select_related("results__registration").get(pk=run_id)
    progress = _progress_recorder(run_id)
    try:
        frame = results_frame(run.results)
        chunks = plan_chunks(
            frame,
            run.scheme,
            seed=run.seed,
            threshold=settings.ANALYSIS_CHUNK_THRESHOLD,
            replicates=settings.ANALYSIS_CHUNK_REPLICATES,
        )
        if chunks:
            _start_chunks(run_id, chunks)
            return
        output = compute_output(
            frame,
            run.scheme,
            seed=run.seed,
            progress=lambda f: progress(f * ANALYSIS_SHARE),
        )
    except (ValueError, ValidationError) as exc:
        _fail(run_id, str(exc))
        return
    _finish(run, frame, output)


def _start_chunks(run_id: int, chunks: list[ChunkSpec]) -> None:
    """Store the chunk rows (finished ones of an earlier attempt are kept) and
    run the unfinished chunks: a Celery group, or here one after another."""
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
    pending = [
        (run_id, c.group, c.key, c.task, c.first_block, c.stop_block)
        for c in AnalysisChunk.objects.filter(run_id=run_id, finished=None)
    ]
    if not pending:
        _chunk_finished(run_id)  # a resumed run whose chunks were all done
    elif uses_celery():
        from .tasks import run_chunk_task

        signatures = [run_chunk_task.si(*args) for args in pending]
        transaction.on_commit(lambda: celery_group(signatures).apply_async())
    else:
        for args in pending:
            run_chunk(*args)


def _chunk_spec(chunk: AnalysisChunk) -> ChunkSpec:
    return ChunkSpec(
        chunk.group, chunk.key, chunk.task, chunk.first_block, chunk.stop_block
    )


def run_chunk(
    run_id: int, group: int, key: str, task: str, first_block: int, stop_block: int
) -> None:
    """Compute and store one chunk of a running run (idempotent: a chunk that
    is already stored, or of a run no longer running, is left alone)."""
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
        try:
            ranks = chunk_ranks(
                lambda: results_frame(run.results),
                run.scheme,
                _chunk_spec(chunk),
                seed=run.seed,
                cache_key=(run.pk, run.results.sha256, json.dumps(run.scheme)),
            )
        except (ValueError, ValidationError) as exc:
            _fail(run_id, f"Bootstrap chunk {chunk} failed: {exc}")
            return
        AnalysisChunk.objects.filter(pk=chunk.pk, finished=None).update(
            ranks=ranks_to_bytes(ranks), finished=timezone.now()
        )
    _chunk_finished(run_id)


def _chunk_finished(run_id: int) -> None:
    """Progress = finished chunks / all chunks; the last one queues the merge."""
    counts = AnalysisChunk.objects.filter(run_id=run_id).aggregate(
        total=Count("pk"), done=Count("pk", filter=Q(finished__isnull=False))
    )
    total, done = counts["total"], counts["done"]
    AnalysisRun.objects.filter(pk=run_id, status=AnalysisStatus.RUNNING).update(
        progress=int(100 * ANALYSIS_SHARE * 0.9 * done / max(1, total)),
        heartbeat=timezone.now(),
    )
    if total and done == total:
        enqueue("analysis.services.merge_chunks", run_id)


def merge_chunks(run_id: int) -> None:
    """Merge a run's chunks in block order and finish it (runs once: the merge
    is claimed by setting ``merge_started``; later calls return at once)."""
    if AnalysisChunk.objects.filter(run_id=run_id, finished=None).exists():
        return
    claimed = AnalysisRun.objects.filter(
        pk=run_id, status=AnalysisStatus.RUNNING, merge_started=None
    ).update(merge_started=timezone.now(), heartbeat=timezone.now())
    if not claimed:
        return
    run = AnalysisRun.objects.select_related("results__registration").get(pk=run_id)
    chunks = [
        (_chunk_spec(c), ranks_from_bytes(c.ranks))
        for c in AnalysisChunk.objects.filter(run_id=run_id)
    ]
    progress = _progress_recorder(run_id, start=run.progress)
    share = 0.9 * ANALYSIS_SHARE
    try:
        frame = results_frame(run.results)
        output = compute_output(
            frame,
            run.scheme,
            seed=run.seed,
            progress=lambda f: progress(share + f * (ANALYSIS_SHARE - share)),
            bootstrap_ranks=merged_ranks(chunks),
        )
    except (ValueError, ValidationError) as exc:
        _fail(run_id, str(exc))
        return
    _finish(run, frame, output)
    AnalysisChunk.objects.filter(run_id=run_id).update(ranks=None)


def _finish(run: AnalysisRun, frame: pd.DataFrame, output: dict[str, Any]) -> None:
    """Deviations, stored output and the report: the run is done."""
    run_id = run.pk
    try:
        design = registered_design(run.results)
        deviations = find_deviations(
            design=design,
            executed=run.scheme,
            frame=frame,
            output=output,
            team_affiliations=run.results.teams,
        )
    except (ValueError, ValidationError) as exc:
        _fail(run_id, str(exc))
        return
    AnalysisRun.objects.filter(pk=run_id).update(
        output=output,
        deviations=[d.to_dict() for d in deviations],
        progress=int(100 * ANALYSIS_SHARE),
    )
    run.refresh_from_db()
    try:
        pdf = render_run_report(
            run, frame=frame, design=design, figures=settings.ANALYSIS_REPORT_FIGURES
        )
    except Exception as exc:  # the report must not hide the stored numbers
        logger.exception("report of analysis %s failed", run_id)
        _fail(run_id, f"The analysis finished but its report failed: {exc}")
        return
    run.report.save(f"analysis-{run_id}.pdf", ContentFile(pdf), save=False)
    AnalysisRun.objects.filter(pk=run_id).update(
        report=run.report.name,
        report_sha256=sha256_hex(pdf),
        status=AnalysisStatus.DONE,
        progress=100,
        finished=timezone.now(),
    )


def _fail(run_id: int, message: str) -> None:
    AnalysisRun.objects.filter(pk=run_id).update(
        status=AnalysisStatus.FAILED, error=message, finished=timezone.now()
    )


def resume_analyses(*, stale_after: timedelta) -> tuple[list[int], list[int]]:
    """Re-enqueue queued runs and requeue running ones silent for `stale_after`.

    For a restarted web process (in-process jobs die with it) or a lost worker;
    `execute_analysis` claims a run once, so enqueuing twice is harmless. A
    chunked run keeps its finished chunks; only the others run again.
    Returns (ids requeued from running, ids enqueued).
    """
    cutoff = timezone.now() - stale_after
    with transaction.atomic():
        stale = list(
            AnalysisRun.objects.select_for_update()
            .filter(status=AnalysisStatus.RUNNING)
            .filter(Q(heartbeat__lt=cutoff) | Q(heartbeat=None, started__lt=cutoff))
            .values_list("pk", flat=True)
        )
        AnalysisRun.objects.filter(pk__in=stale).update(
            status=AnalysisStatus.QUEUED, progress=0, heartbeat=None, merge_started=None
        )
        queued = list(
            AnalysisRun.objects.filter(status=AnalysisStatus.QUEUED)
            .order_by("created")
            .values_list("pk", flat=True)
        )
        for run_id in queued:
            enqueue("analysis.services.execute_analysis", run_id)
    return stale, queued
