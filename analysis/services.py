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
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from analysis.ranking import SchemeError, parse_scheme, run_analysis, scheme_to_dict
from analysis.ranking.version import ENGINE_VERSION
from registry.canonical import sha256_hex
from registry.models import Registration
from registry.permissions import is_chair, is_organizer

from .design import RegisteredDesign, design_from_canonical
from .deviations import find_deviations
from .ingest import validated
from .jobs import enqueue
from .models import AnalysisRun, AnalysisStatus, ResultsVersion
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
        try:
            cleaned[task] = scheme_to_dict(parse_scheme(data))
        except SchemeError as exc:
            raise ValidationError({"scheme": f"scheme.{exc}"}) from None
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
    tasks = sorted(results_frame(results)["task"].unique())
    exploratory = scheme is not None or schemes is not None
    if exploratory:
        by_task = _clean_exploratory(scheme, schemes, tasks)
    else:
        by_task = _registered_schemes(registered_design(results), tasks)
    if not by_task:
        raise ValidationError({"scheme": "No task of the results is registered."})
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


def _scheme_groups(schemes: Mapping[str, dict[str, Any]]) -> list[list[str]]:
    """Tasks that share one scheme are ranked together (consensus across them)."""
    groups: dict[str, list[str]] = {}
    for task, scheme in sorted(schemes.items()):
        groups.setdefault(json.dumps(scheme, sort_keys=True), []).append(task)
    return list(groups.values())


def compute_output(
    frame: pd.DataFrame,
    schemes: Mapping[str, dict[str, Any]],
    *,
    seed: int,
    progress=None,
) -> dict[str, Any]:
    """Engine output for all tasks; one engine run per distinct scheme."""
    groups = _scheme_groups(schemes)
    outputs = []
    for index, tasks in enumerate(groups):

        def scaled(fraction: float, index=index) -> None:
            if progress is not None:
                progress((index + fraction) / len(groups))

        subset = frame[frame["task"].isin(tasks)]
        subset.attrs["validated"] = True
        result = run_analysis(subset, schemes[tasks[0]], seed=seed, progress=scaled)
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


def execute_analysis(run_id: int) -> None:
    """The background job: run, store outputs and deviations, record progress."""
    claimed = AnalysisRun.objects.filter(
        pk=run_id, status=AnalysisStatus.QUEUED
    ).update(
        status=AnalysisStatus.RUNNING,
        started=timezone.now(),
        heartbeat=timezone.now(),
        progress=0,
    )
    if not claimed:
        return  # already running or finished: jobs are idempotent
    run = AnalysisRun.objects.select_related("results__registration").get(pk=run_id)
    last = [0]

    def progress(fraction: float) -> None:
        percent = min(99, int(fraction * 100))
        if percent - last[0] >= PROGRESS_STEP:
            last[0] = percent
            AnalysisRun.objects.filter(pk=run_id).update(
                progress=percent, heartbeat=timezone.now()
            )

    try:
        frame = results_frame(run.results)
        output = compute_output(
            frame,
            run.scheme,
            seed=run.seed,
            progress=lambda f: progress(f * ANALYSIS_SHARE),
        )
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
    `execute_analysis` claims a run once, so enqueuing twice is harmless.
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
            status=AnalysisStatus.QUEUED, progress=0, heartbeat=None
        )
        queued = list(
            AnalysisRun.objects.filter(status=AnalysisStatus.QUEUED)
            .order_by("created")
            .values_list("pk", flat=True)
        )
        for run_id in queued:
            enqueue("analysis.services.execute_analysis", run_id)
    return stale, queued
