"""The site as compose runs it (gunicorn, production settings: persistent
database connections with health checks, the Redis cache) while PostgreSQL or
Redis is hung by SIGSTOP or PostgreSQL is shut down, and the Celery workers
as compose starts them while one of them is killed in a chunked run.

Run with `make faults`; docs/operations.md states each outcome and its bound.
"""

from __future__ import annotations

import time

import pytest
from rest_framework.authtoken.models import Token

from analysis.models import AnalysisChunk, AnalysisRun
from analysis.services import start_analysis
from tests.analysis.django.conftest import SCHEME
from tests.factories import UserFactory
from tests.faults.conftest import (
    SLOW_SCHEME,
    STALE_SECONDS,
    compose_web_command,
    kill_group,
    wait_for,
)
from tests.faults.test_faults import assert_finished_like_uninterrupted, wait_finished

pytestmark = pytest.mark.django_db(transaction=True)

UNAVAILABLE = (
    "The database did not answer; the request was not completed. "
    "Try again in a few seconds."
)
QUEUED = "queued; it starts when the job queue is back"
BODY = {"scheme": SCHEME}


def test_the_site_is_started_with_composes_gunicorn_command():
    command = compose_web_command()
    assert command[:2] == ["gunicorn", "config.wsgi:application"]
    assert "--timeout" in command


def start_url(results) -> str:
    return f"/api/v1/results/{results.pk}/analyses/"


def test_postgres_hung_or_stopped_analysis_start_202_in_time_and_the_run_completes(
    stack, workers, web, watchdog, big_results, organizer, media
):
    """A start from a token the site saw recently is accepted into the spool
    (202) while PostgreSQL is hung or stopped; an unknown token is refused
    (503, nothing stored); the watchdog starts the run once it answers."""
    workers.start()
    token = Token.objects.create(user=organizer).key
    unseen = Token.objects.create(user=UserFactory(username="unseen")).key
    site = web.start()
    warm = site.request("GET", "/api/v1/me/", token=token)
    assert warm.status == 200, warm.content  # remembered; a kept connection

    with stack.hung(stack.postgres_pids()):
        # the kept connection's health check is given up, a new one times out
        accepted = site.request("POST", start_url(big_results), token=token, body=BODY)
        unknown = site.request("POST", start_url(big_results), token=unseen, body=BODY)
        ready = site.request("GET", "/ready/")
    assert (accepted.status, accepted.json()["status"]) == (202, "accepted")
    assert accepted.seconds < 5, accepted.seconds
    check = accepted.json()["check"]
    assert accepted.headers["Location"] == check
    assert (unknown.status, unknown.json()) == (503, {"detail": UNAVAILABLE})
    assert unknown.seconds < 5, unknown.seconds
    assert (ready.status, ready.seconds < 2) == (503, True), ready.content

    run_id = started_run(site, check, token)  # the watchdog's pass after SIGCONT
    assert AnalysisRun.objects.count() == 1
    wait_finished(run_id, what="the run accepted while PostgreSQL hung finishes")
    assert_finished_like_uninterrupted(run_id, media)

    # stopped (connections refused at once): accepted the same way
    with stack.postgres_stopped():
        stopped = site.request("POST", start_url(big_results), token=token, body=BODY)
    assert (stopped.status, stopped.seconds < 5) == (202, True), stopped.content
    again = started_run(site, stopped.json()["check"], token)
    wait_finished(again, what="the run accepted while PostgreSQL was stopped")
    assert_finished_like_uninterrupted(again, media)
    assert AnalysisRun.objects.count() == 2  # the first had finished: a new run
    print(
        f"\nPostgreSQL hung: 202 after {accepted.seconds:.2f} s, "
        f"503 (unknown token) after {unknown.seconds:.2f} s; "
        f"stopped: 202 after {stopped.seconds:.2f} s"
    )


def started_run(site, check: str, token: str) -> int:
    """The run the watchdog started for the spooled request ``check``."""
    answer = wait_for(
        lambda: _decided(site, check, token),
        seconds=60,
        what=f"the watchdog decides {check}",
    )
    assert answer["status"] == "started", answer
    return answer["run"]


def _decided(site, check: str, token: str) -> dict | None:
    answer = site.request("GET", check, token=token)
    if answer.status != 200 or answer.json()["status"] == "pending":
        return None
    return answer.json()


def test_redis_hung_analysis_start_202_in_time_and_the_run_completes(
    stack, workers, web, watchdog, big_results, organizer, media
):
    workers.start()
    token = Token.objects.create(user=organizer).key
    site = web.start()
    assert site.request("GET", "/api/v1/me/", token=token).status == 200

    with stack.hung(stack.redis_pids()):
        started = site.request("POST", start_url(big_results), token=token, body=BODY)
        ready = site.request("GET", "/ready/")
    assert (started.status, started.json()["detail"]) == (202, QUEUED)
    assert started.seconds < 5, started.seconds
    assert (ready.status, ready.json()["status"]) == (200, "degraded")
    assert ready.json()["checks"]["broker"]["ok"] is False
    assert ready.seconds < 2, ready.seconds

    run_id = started.json()["id"]
    wait_finished(run_id, what="the run queued while Redis hung completes")
    assert_finished_like_uninterrupted(run_id, media)
    assert AnalysisRun.objects.count() == 1
    print(f"\nRedis hung: 202 after {started.seconds:.2f} s")


CHUNKED = {"ANALYSIS_CHUNK_THRESHOLD": "1", "ANALYSIS_CHUNK_REPLICATES": "1000"}


def test_worker_killed_mid_chunked_run_the_other_finishes_it_unchanged(
    workers, watchdog, big_results, chair, media
):
    doomed = workers.start(**CHUNKED)
    survivor = workers.start(**CHUNKED)
    run = start_analysis(results=big_results, actor=chair, scheme=SLOW_SCHEME)
    chunks = AnalysisChunk.objects.filter(run_id=run.pk)
    wait_for(
        lambda: chunks.filter(finished__isnull=False).exists(),
        seconds=120,
        what="the first chunk is stored",
    )

    kill_group(doomed)  # the worker and its pool processes, mid-chunk
    killed = time.monotonic()
    left = chunks.filter(finished=None).count()
    assert left > 4, left  # both workers' pool processes were busy

    wait_finished(run.pk, what="the chunked run finishes after a worker was killed")
    assert time.monotonic() - killed < STALE_SECONDS + 90
    assert chunks.count() > 10  # it did run in chunks
    assert_finished_like_uninterrupted(run.pk, media)
    assert survivor.poll() is None
    assert len(workers.processes) == 2  # no worker started by hand
