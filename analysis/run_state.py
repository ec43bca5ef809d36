"""The life of a run in a worker (any :class:`~analysis.models.JobRun`:
analyses, case-model fits): claim, heartbeat, failure reasons, the watchdog,
and report files that appear only when complete.

A run is claimed by one job at a time (``attempt`` counts claims). While it
works, a thread beats every ``JOBS_HEARTBEAT_SECONDS``; a run whose heartbeat is
older than ``JOBS_STALE_SECONDS`` (or whose worker process is gone) may be
claimed again by a re-delivered job or put back in the queue by the watchdog.
Every write of a job is filtered on its attempt, so a job that lost its run
changes nothing.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from .jobs import JobFunction, RetryLater, enqueue, uses_celery
from .models import AnalysisRun, AnalysisStatus, JobRun

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
QUEUE_DOWN_NOTE = "Queued; it starts when the job queue is back."
_ACTIVE: set[tuple[str, int, int]] = set()  # (model, run, attempt) held here
R = TypeVar("R", bound=JobRun)


class RunLost(Exception):  # noqa: N818 - a state, not an error
    """The run was claimed again, failed or retried elsewhere: stop quietly."""


class WallTimeExceeded(Exception):  # noqa: N818
    def __init__(self, limit: int, noun: str = "analysis"):
        super().__init__(
            f"The {noun} exceeded its wall-time limit of {limit} s "
            "(ANALYSIS_WALL_TIME_SECONDS) and was stopped; lower the bootstrap "
            "replicates or raise the limit, then retry."
        )


def worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def max_attempts() -> int:
    return settings.JOBS_MAX_ATTEMPTS


def retry_delay(attempt: int) -> int:
    """Seconds before attempt ``attempt + 1`` (doubling, at most 10 minutes)."""
    return min(600, settings.JOBS_RETRY_SECONDS * 2 ** max(0, attempt - 1))


def database_retry_note(attempt: int) -> str:
    return (
        f"The database restarted or could not be reached; retrying in "
        f"{retry_delay(attempt)} s (attempt {attempt + 1} of {max_attempts()})."
    )


def _worker_gone(run: JobRun) -> bool:
    """Whether the job that claimed ``run`` has certainly ended: its process on
    this host is gone, or it is this process and no job here holds the run."""
    host, _, pid = run.worker.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return (run._meta.label, run.pk, run.attempt) not in _ACTIVE
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def is_stale(run: JobRun, now: datetime) -> bool:
    cutoff = now - timedelta(seconds=settings.JOBS_STALE_SECONDS)
    return run.heartbeat is None or run.heartbeat < cutoff or _worker_gone(run)


@dataclass(frozen=True)
class Claim:
    run_id: int
    attempt: int
    started: datetime
    model: type[JobRun] = AnalysisRun

    def runs(self):
        """This claim's run, only while it is still ours."""
        return self.model.objects.filter(
            pk=self.run_id, attempt=self.attempt, status=AnalysisStatus.RUNNING
        )

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.model._meta.label, self.run_id, self.attempt)


def give_up_message(run: JobRun) -> str:
    cause = run.note or (
        "the worker running it stopped each time (killed, or out of memory)"
    )
    return (
        f"Gave up after {run.attempt} attempts: {cause.rstrip('.')}. "
        "Retry it once the cause is fixed."
    )


def claim(run_id: int, model: type[JobRun] = AnalysisRun) -> Claim | None:
    """Claim a queued run, or a running one whose job is gone; None when the
    run is finished or another job holds it."""
    now = timezone.now()
    with transaction.atomic():
        run = model.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status not in (
            AnalysisStatus.QUEUED,
            AnalysisStatus.RUNNING,
        ):
            return None
        if run.status == AnalysisStatus.RUNNING and not is_stale(run, now):
            return None
        if run.attempt >= max_attempts():
            fail(run.pk, give_up_message(run), model=model)
            return None
        note = run.note
        if run.status == AnalysisStatus.RUNNING:
            note = (
                f"The worker running it stopped at {run.progress} %; "
                f"resumed (attempt {run.attempt + 1} of {max_attempts()})."
            )
        elif note == QUEUE_DOWN_NOTE:
            note = ""
        started = run.started or now
        model.objects.filter(pk=run_id).update(
            status=AnalysisStatus.RUNNING,
            attempt=run.attempt + 1,
            worker=worker_identity(),
            started=started,
            heartbeat=now,
            progress=0,
            note=note,
            **model.claim_resets(),
        )
    return Claim(run_id, run.attempt + 1, started, model)


def current_claim(run: JobRun) -> Claim:
    """The claim of a running run, for its chunk and merge jobs."""
    return Claim(run.pk, run.attempt, run.started or timezone.now(), type(run))


class Heartbeat:
    """Beats for a claim (a thread outside synchronous tests) and tells the job
    when to stop: run lost, or its wall time spent."""

    def __init__(self, claim: Claim, on_beat: Callable[[], Any] | None = None):
        self.claim = claim
        self.on_beat = on_beat  # also a sign of life of a part (a chunk's row)
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        _ACTIVE.add(self.claim.key)
        if not getattr(settings, "JOBS_SYNCHRONOUS", False):
            self._thread = threading.Thread(
                target=self._loop, daemon=True, name=f"heartbeat:{self.claim.run_id}"
            )
            self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=settings.JOBS_HEARTBEAT_SECONDS + 5)
        _ACTIVE.discard(self.claim.key)

    def overdue(self) -> bool:
        limit = timedelta(seconds=settings.ANALYSIS_WALL_TIME_SECONDS)
        return timezone.now() - self.claim.started > limit

    def beat(self, **fields) -> None:
        """Record a sign of life (and ``fields``, e.g. progress)."""
        if not self.claim.runs().update(heartbeat=timezone.now(), **fields):
            self.lost.set()
        elif self.on_beat is not None:
            self.on_beat()

    def check(self) -> None:
        """Raise when the job should stop (called between units of work)."""
        if self.lost.is_set():
            raise RunLost
        if self.overdue():
            limit = settings.ANALYSIS_WALL_TIME_SECONDS
            raise WallTimeExceeded(limit, self.claim.model.job_noun)

    def _loop(self) -> None:
        try:
            while not self._stop.wait(settings.JOBS_HEARTBEAT_SECONDS):
                try:
                    if self.overdue():
                        limit = settings.ANALYSIS_WALL_TIME_SECONDS
                        fail(
                            self.claim.run_id,
                            str(WallTimeExceeded(limit, self.claim.model.job_noun)),
                            model=self.claim.model,
                        )
                        self.lost.set()
                        return
                    self.beat()
                except DATABASE_ERRORS:
                    connection.close()  # reconnect at the next beat
                    logger.warning("heartbeat of run %s missed", self.claim.run_id)
                if self.lost.is_set():
                    return
        finally:
            connection.close()


def failure_reason(exc: BaseException, run_id: int, noun: str = "analysis") -> str:
    """A reason a person can act on."""
    if isinstance(exc, WallTimeExceeded):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return (
            "The disk is full (no space left on device) while writing the "
            "analysis files; nothing partial was kept. Free space, then retry."
        )
    if isinstance(exc, OSError):
        return (
            f"Could not write the analysis files ({exc.strerror or exc}); nothing "
            "partial was kept. Check the media storage, then retry."
        )
    if isinstance(exc, MemoryError):
        return (
            f"The {noun} ran out of memory; lower the bootstrap replicates or "
            "give the worker more memory, then retry."
        )
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    if isinstance(exc, ValueError):
        return str(exc)
    return (
        f"The {noun} failed unexpectedly ({type(exc).__name__}: {exc}). Retry "
        f"it; if it fails again, report it with the {noun} number {run_id}."
    )


def fail(
    run_id: int,
    message: str,
    *,
    attempt: int | None = None,
    model: type[JobRun] = AnalysisRun,
) -> None:
    """Mark the run failed with ``message`` (only while it is still running or
    queued, and, given ``attempt``, only if that claim still holds it)."""
    runs = model.objects.filter(
        pk=run_id, status__in=(AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)
    )
    if attempt is not None:
        runs = runs.filter(attempt=attempt)
    runs.update(
        status=AnalysisStatus.FAILED,
        error=message,
        finished=timezone.now(),
        heartbeat=None,
    )


def requeue_after_database_error(claim: Claim) -> int:
    """Put the run back in the queue with the reason; returns the delay (s).

    Best effort: the database may still be down, then the watchdog finds the
    run by its stopped heartbeat instead."""
    note = database_retry_note(claim.attempt)
    try:
        connection.close()
        claim.runs().update(
            status=AnalysisStatus.QUEUED,
            note=note,
            heartbeat=None,
            **claim.model.claim_resets(),
        )
    except DATABASE_ERRORS:
        logger.warning("run %s: database down; the watchdog resumes it", claim.run_id)
    return retry_delay(claim.attempt)


def run_claimed(claim: Claim, work: Callable[[Heartbeat], None]) -> None:
    """Run ``work(beat)`` for a claimed run: heartbeat while it works; a
    database error puts the run back in the queue and retries with backoff;
    any other failure marks it failed with a reason a person can act on."""
    noun = claim.model.job_noun
    with Heartbeat(claim) as beat:
        try:
            work(beat)
        except RunLost:
            logger.info("%s %s was taken over; this job stops", noun, claim.run_id)
        except DATABASE_ERRORS as exc:
            logger.warning("%s %s: database error %s", noun, claim.run_id, exc)
            delay = requeue_after_database_error(claim)
            raise RetryLater(delay, str(exc)) from exc
        except Exception as exc:
            logger.exception("%s %s failed", noun, claim.run_id)
            reason = failure_reason(exc, claim.run_id, noun)
            fail(claim.run_id, reason, attempt=claim.attempt, model=claim.model)


@dataclass
class WatchdogReport:
    stale: list[int] = field(default_factory=list)
    queued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def resume_runs(
    model: type[JobRun],
    send: Callable[[int], None],
    *,
    stale_after: timedelta | None = None,
) -> WatchdogReport:
    """The watchdog for one kind of run (every minute): fail runs over their
    wall time, put running runs whose job is gone back in the queue, and send
    every queued run whose message never reached the queue or may have been
    lost. A job claims its run once, so sending it twice is harmless."""
    now = timezone.now()
    stale_after = stale_after or timedelta(seconds=settings.JOBS_STALE_SECONDS)
    limit = settings.ANALYSIS_WALL_TIME_SECONDS
    report = WatchdogReport()
    with transaction.atomic():
        running = model.objects.select_for_update().filter(
            status=AnalysisStatus.RUNNING
        )
        for run in running:
            if run.started and now - run.started > timedelta(seconds=limit):
                message = str(WallTimeExceeded(limit, model.job_noun))
                fail(run.pk, message, model=model)
                report.failed.append(run.pk)
            elif run.heartbeat is None or run.heartbeat < now - stale_after:
                if run.attempt >= max_attempts():
                    fail(run.pk, give_up_message(run), model=model)
                    report.failed.append(run.pk)
                    continue
                model.objects.filter(pk=run.pk).update(
                    status=AnalysisStatus.QUEUED,
                    heartbeat=None,
                    enqueued=None,
                    note=(
                        f"The worker running it stopped at {run.progress} % (no "
                        f"sign of life for {stale_after.total_seconds():.0f} s); "
                        "queued again."
                    ),
                    **model.claim_resets(),
                )
                report.stale.append(run.pk)
        resend_before = now - _requeue_after(stale_after)
        queued = (
            model.objects.filter(status=AnalysisStatus.QUEUED)
            .filter(Q(enqueued=None) | Q(enqueued__lt=resend_before))
            .order_by("created")
            .values_list("pk", flat=True)
        )
        for run_id in queued:
            send(run_id)
            report.queued.append(run_id)
    return report


def _requeue_after(stale_after: timedelta) -> timedelta:
    """A queued run's message may be lost after the broker's visibility timeout
    (Celery); in-process jobs start at once, so after the stale limit."""
    if uses_celery():
        return timedelta(seconds=settings.CELERY_VISIBILITY_TIMEOUT)
    return stale_after


def run_fields(run: JobRun) -> dict:
    """What the API shows of every kind of run: status, progress, the engine,
    error and note, when, the output (each kind adds its own fields)."""
    return {
        "status": run.status,
        "progress": run.progress,
        "engine_version": run.engine_version,
        "error": run.error or None,
        "note": run.note or None,
        "created": run.created.isoformat(),
        "output": run.output,
    }


def identical_pending_run(runs: QuerySet[R], same: Callable[[R], bool]) -> R | None:
    """The oldest queued or running run of `runs` for which `same(run)` holds:
    a double click or a retried request gets it instead of starting a second.
    (Compared here, not in SQL: JSON equality differs between databases.)"""
    pending = runs.filter(
        status__in=(AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)
    ).order_by("created")
    return next((run for run in pending if same(run)), None)


def send_run(
    job: JobFunction,
    model: type[JobRun],
    run_id: int,
    *,
    in_process: Mapping[str, Any] | None = None,
) -> None:
    """Send ``job(run_id)`` to the queue, recording on the run whether it got
    there (the sender of a kind of run, see ``AppConfig.job_runs()``);
    ``in_process`` as for :func:`analysis.jobs.enqueue`."""
    enqueue(
        job, run_id, on_sent=recorder_of_sending(model, run_id), in_process=in_process
    )


def recorder_of_sending(model: type[JobRun], run_id: int) -> Callable[[bool], None]:
    """The ``on_sent`` callback of ``enqueue``: when the job reached its queue,
    or, with the queue down, a note on the still-queued run."""

    def sent(ok: bool) -> None:
        runs = model.objects.filter(pk=run_id)
        if ok:
            # not filtered on QUEUED: a fast worker may have started it already
            runs.update(enqueued=timezone.now())
        else:
            runs.filter(status=AnalysisStatus.QUEUED).update(
                enqueued=None, note=QUEUE_DOWN_NOTE
            )

    return sent
