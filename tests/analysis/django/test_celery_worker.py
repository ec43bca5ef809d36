"""A real Celery worker (subprocess) runs an analysis queued through Redis.

Needs PostgreSQL (the worker must see the test database, so the test commits:
`transaction=True`) and a Redis broker URL in CELERY_TEST_BROKER, e.g.
redis://127.0.0.1:6379/9. `.ci/run` sets both for its PostgreSQL leg.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from analysis.models import AnalysisRun
from analysis.services import start_analysis
from config.celery import app
from tests.analysis.django.conftest import EXPLORATORY_SCHEME as SCHEME

ROOT = Path(__file__).resolve().parents[3]
BROKER = os.environ.get("CELERY_TEST_BROKER", "")

pytestmark = [
    pytest.mark.celery,
    pytest.mark.postgres,
    pytest.mark.skipif(not BROKER, reason="set CELERY_TEST_BROKER to a Redis URL"),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the worker process needs the test database on PostgreSQL",
    ),
]


def database_url() -> str:
    db = connection.settings_dict
    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    host = db["HOST"] or "127.0.0.1"
    port = db["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


@pytest.fixture
def worker(tmp_path):
    """A solo-pool worker on a private queue, stopped (and reaped) afterwards."""
    queue = f"test-{os.getpid()}-{time.monotonic_ns()}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(),  # the test database, not the main one
        "CELERY_BROKER_URL": BROKER,
    }
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "config", "worker"),
                *("--pool=solo", "--loglevel=INFO", "--without-heartbeat"),
                *("--without-gossip", "--without-mingle", "-Q", queue),
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    previous = (app.conf.broker_url, app.conf.task_default_queue)
    app.conf.broker_url, app.conf.task_default_queue = BROKER, queue
    try:
        yield process, log
    finally:
        app.conf.broker_url, app.conf.task_default_queue = previous
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.django_db(transaction=True)
def test_celery_worker_runs_queued_analysis_to_done(worker, results, chair):
    process, log = worker
    with override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL=BROKER):
        run = start_analysis(results=results, actor=chair, scheme=SCHEME)

    deadline = time.monotonic() + 90
    status = "queued"
    while time.monotonic() < deadline and status in ("queued", "running"):
        assert process.poll() is None, log.read_text()
        time.sleep(0.5)
        status = AnalysisRun.objects.get(pk=run.pk).status

    run.refresh_from_db()
    assert (run.status, run.progress, run.error) == ("done", 100, ""), log.read_text()
    assert set(run.output["rankings"]["DSC"]["tasks"]) == {"Brain"}
    assert "analysis.run_job" in log.read_text()
