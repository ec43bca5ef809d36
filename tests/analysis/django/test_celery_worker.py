"""Real Celery workers (subprocesses) run analyses queued through Redis: one
whole, and one split into a group of bootstrap chunks over two workers.

Needs PostgreSQL (the worker must see the test database, so the test commits:
`transaction=True`) and a Redis broker URL in CELERY_TEST_BROKER, e.g.
redis://127.0.0.1:6379/9. `.ci/run` sets both for its PostgreSQL leg.
"""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from analysis.models import AnalysisRun
from analysis.services import compute_output, results_frame, start_analysis
from config.celery import app
from tests.analysis.django.conftest import EXPLORATORY_SCHEME as SCHEME
from tests.faults.conftest import worker_command
from tests.processes import stop_processes

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


def start_workers(tmp_path, *, count: int = 1, env: dict[str, str] | None = None):
    """Workers started with compose.yaml's own worker command (prefork, as in
    production) on a private queue; yields [(process, log path)] and stops
    (and reaps) them afterwards."""
    queue = f"test-{os.getpid()}-{time.monotonic_ns()}"
    worker_env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(),  # the test database, not the main one
        "CELERY_BROKER_URL": BROKER,
        "CELERY_TASK_DEFAULT_QUEUE": queue,  # what a worker fans out stays here
        **(env or {}),
    }
    workers = []
    for index in range(count):
        log = tmp_path / f"worker-{index}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [
                    *worker_command(),
                    *("--without-heartbeat", "--without-gossip", "--without-mingle"),
                    *("-Q", queue, f"--hostname=test-{index}@%h"),
                ],
                cwd=ROOT,
                env=worker_env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        workers.append((process, log))
    previous = (app.conf.broker_url, app.conf.task_default_queue)
    app.conf.broker_url, app.conf.task_default_queue = BROKER, queue
    try:
        yield workers
    finally:
        app.conf.broker_url, app.conf.task_default_queue = previous
        stop_processes(process for process, _ in workers)


@pytest.fixture
def worker(tmp_path):
    """One worker: (process, log path)."""
    for workers in start_workers(tmp_path):
        yield workers[0]


@pytest.fixture
def chunk_workers(tmp_path):
    """Two workers that split every analysis into chunks of 100 replicates."""
    env = {
        "JOBS_SYNCHRONOUS": "0",  # fan out to Celery, as in production
        "ANALYSIS_CHUNK_THRESHOLD": "1",
        "ANALYSIS_CHUNK_REPLICATES": "100",
    }
    yield from start_workers(tmp_path, count=2, env=env)


def wait_until_finished(run_id: int, workers, *, seconds: float = 90) -> str:
    deadline = time.monotonic() + seconds
    status = "queued"
    while time.monotonic() < deadline and status in ("queued", "running"):
        for process, log in workers:
            assert process.poll() is None, log.read_text()
        time.sleep(0.5)
        status = AnalysisRun.objects.get(pk=run_id).status
    return status


@pytest.mark.django_db(transaction=True)
def test_celery_worker_runs_queued_analysis_to_done(worker, results, chair):
    _, log = worker
    with override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL=BROKER):
        run = start_analysis(results=results, actor=chair, scheme=SCHEME)

    wait_until_finished(run.pk, [worker])

    run.refresh_from_db()
    assert (run.status, run.progress, run.error) == ("done", 100, ""), log.read_text()
    assert set(run.output["rankings"]["DSC"]["tasks"]) == {"Brain"}
    assert "analysis.run_job" in log.read_text()


@pytest.mark.django_db(transaction=True)
def test_celery_workers_run_chunked_analysis_like_one_process(
    chunk_workers, results, chair
):
    scheme = {**SCHEME, "uncertainty": {"bootstrap": 350, "seed": 7}}
    with override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL=BROKER):
        run = start_analysis(results=results, actor=chair, scheme=scheme)

    wait_until_finished(run.pk, chunk_workers)

    run.refresh_from_db()
    logs = "".join(log.read_text() for _, log in chunk_workers)
    assert (run.status, run.progress, run.error) == ("done", 100, ""), logs
    assert sorted(run.chunks.values_list("first_block", "stop_block")) == [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
    ]
    assert logs.count("Task analysis.run_job[") >= 6  # run, 4 chunks, merge
    expected = compute_output(results_frame(results), run.scheme, seed=run.seed)
    assert json.dumps(run.output, sort_keys=True) == json.dumps(
        expected, sort_keys=True
    )
