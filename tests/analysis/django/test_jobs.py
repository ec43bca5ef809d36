"""Analysis jobs: synchronous in tests, resumable after a restart."""

import time
from datetime import timedelta

import pytest
from celery import Celery
from django.core.management import call_command
from django.utils import timezone

from analysis import jobs
from analysis.models import AnalysisRun, AnalysisStatus
from analysis.services import execute_analysis, start_analysis
from tests.analysis.django.conftest import EXPLORATORY_SCHEME as SCHEME

pytestmark = pytest.mark.django_db


def test_start_analysis_runs_to_done_synchronously(
    results, chair, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = start_analysis(results=results, actor=chair, scheme=SCHEME)
    run.refresh_from_db()
    assert (run.status, run.progress, run.error) == ("done", 100, "")
    assert set(run.output["rankings"]["DSC"]["tasks"]) == {"Brain"}
    assert run.heartbeat is not None


def test_resume_jobs_finishes_queued_and_stale_running_runs(
    results, chair, capsys, django_capture_on_commit_callbacks
):
    queued = AnalysisRun.objects.create(
        results=results, scheme={"Brain": SCHEME}, seed=7, requested_by=chair
    )
    long_ago = timezone.now() - timedelta(hours=2)

    def running_since_long_ago(heartbeat) -> AnalysisRun:
        return AnalysisRun.objects.create(
            results=results,
            scheme={"Brain": SCHEME},
            seed=7,
            requested_by=chair,
            status=AnalysisStatus.RUNNING,
            started=long_ago,
            heartbeat=heartbeat,
            progress=40,
        )

    stale = running_since_long_ago(heartbeat=long_ago)
    alive = running_since_long_ago(heartbeat=timezone.now())

    with django_capture_on_commit_callbacks(execute=True):
        call_command("resume_jobs", "--stale-minutes", "30")

    statuses = dict(AnalysisRun.objects.values_list("pk", "status"))
    assert statuses == {queued.pk: "done", stale.pk: "done", alive.pk: "running"}
    assert f"1 stale running run(s) requeued [{stale.pk}]" in capsys.readouterr().out


def test_execute_analysis_twice_runs_once(
    results, chair, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = start_analysis(results=results, actor=chair, scheme=SCHEME)
    run.refresh_from_db()
    finished = run.finished
    execute_analysis(run.pk)
    run.refresh_from_db()
    assert (run.status, run.finished) == ("done", finished)


def test_celery_task_is_redelivered_when_its_worker_is_lost():
    from analysis.tasks import run_chunk_task, run_job_task
    from config.celery import app

    assert run_job_task.app is app
    for task in (run_job_task, run_chunk_task):
        assert (task.acks_late, task.reject_on_worker_lost) == (True, True)
    assert app.conf.worker_prefetch_multiplier == 1
    # a lost job comes back within minutes (a live run's copy does nothing)
    assert 60 <= app.conf.broker_transport_options["visibility_timeout"] <= 600


def test_publish_to_a_hung_broker_gives_up_within_its_bound(
    settings, monkeypatch, hung_server
):
    """A hung Redis takes the connection and never answers: the message is
    given up on after JOBS_PUBLISH_SECONDS (the run stays queued for the
    watchdog) instead of holding the request until gunicorn kills it."""
    settings.JOBS_PUBLISH_SECONDS = 1
    broker = Celery(broker=f"redis://{hung_server}/0", set_as_current=False)
    monkeypatch.setattr(jobs, "_celery_app", lambda: broker)
    started = time.monotonic()
    assert jobs.publish("analysis.services.execute_analysis", 1) is False
    assert time.monotonic() - started < 2
