"""Faults injected into a running stack (private PostgreSQL and Redis, real
Celery workers): each must end with nothing lost, doubled or corrupted.

Run with `make faults`; docs/operations.md describes each fault.
"""

from __future__ import annotations

import hashlib
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from analysis.services import start_analysis
from tests.faults.conftest import (
    SLOW_SCHEME,
    STALE_SECONDS,
    expected_output,
    kill,
    kill_group,
    media_files,
    output_of,
    pool_children,
    run_state,
    wait_for,
)

pytestmark = pytest.mark.django_db(transaction=True)

TWO_MINUTES = 120


def start_slow_run(results, actor) -> AnalysisRun:
    run = start_analysis(results=results, actor=actor, scheme=SLOW_SCHEME)
    wait_for(
        lambda: run_state(run.pk).status == "running",
        seconds=60,
        what="the run starts",
    )
    time.sleep(1)  # well into the bootstrap (about 10 s on one core)
    return run


def wait_finished(run_id: int, *, what: str) -> float:
    """Seconds until the run is done or failed (at most two minutes), printed
    as a recovery time (`make faults PYTEST_ARGS=-s`; docs/operations.md)."""
    started = time.monotonic()
    wait_for(
        lambda: run_state(run_id).status in ("done", "failed"),
        seconds=TWO_MINUTES,
        what=what,
    )
    seconds = time.monotonic() - started
    print(f"\nrecovery: {what}: {seconds:.1f} s")
    return seconds


def assert_finished_like_uninterrupted(run_id: int, media: Path) -> AnalysisRun:
    run = run_state(run_id)
    assert (run.status, run.error) == ("done", ""), run.note
    assert output_of(run) == expected_output(run)
    report = media / run.report.name
    assert hashlib.sha256(report.read_bytes()).hexdigest() == run.report_sha256
    reports = {n for n in media_files(media) if n.startswith("reports/")}
    finished = set(
        AnalysisRun.objects.exclude(report="").values_list("report", flat=True)
    )
    assert reports == finished  # no partial or orphan file
    return run


def test_pool_process_killed_mid_run_continues_at_once(
    workers, big_results, chair, media
):
    master = workers.start()
    run = start_slow_run(big_results, chair)
    child = int(run_state(run.pk).worker.rpartition(":")[2])  # host:pid
    assert child in pool_children(master.pid)

    kill(child)
    killed = time.monotonic()

    wait_finished(run.pk, what="the run finishes after its pool process was killed")
    assert time.monotonic() - killed < TWO_MINUTES
    finished = assert_finished_like_uninterrupted(run.pk, media)
    assert finished.attempt == 2, workers.logs()


def test_whole_worker_killed_run_is_resumed_by_the_watchdog(
    workers, watchdog, big_results, chair, media
):
    first = workers.start()
    run = start_slow_run(big_results, chair)
    kill_group(first)
    killed = time.monotonic()
    workers.start()  # compose restarts the worker

    wait_finished(run.pk, what="the run finishes after its worker was killed")
    assert time.monotonic() - killed < STALE_SECONDS + 60
    finished = assert_finished_like_uninterrupted(run.pk, media)
    assert finished.attempt == 2, workers.logs()[-2000:]
    assert finished.note.startswith("The worker running it stopped at")


def test_postgres_restart_during_a_run_completes_without_anyone_acting(
    stack, workers, watchdog, big_results, chair, media
):
    workers.start()
    run = start_slow_run(big_results, chair)

    stack.restart_postgres()

    wait_finished(run.pk, what="the run finishes after PostgreSQL restarted")
    assert_finished_like_uninterrupted(run.pk, media)
    assert AnalysisRun.objects.count() == 1


def test_postgres_restart_during_requests_no_500_once_it_is_back(
    stack, registration, media
):
    client = Client()
    pages = ("/", "/api/v1/registrations/", f"/registry/{registration.identifier}/")
    answers: list[int] = []
    stop = threading.Event()

    def browse() -> None:
        while not stop.is_set():
            for url in pages:
                try:
                    answers.append(client.get(url).status_code)
                except Exception:  # the test client re-raises server errors
                    answers.append(500)
            connection.close()

    browser = threading.Thread(target=browse)
    browser.start()
    try:
        stack.restart_postgres()
    finally:
        stop.set()
        browser.join(timeout=30)
    after = [Client().get(url).status_code for url in pages * 5]
    assert after == [200] * len(after)
    assert answers  # requests were made during the restart


@pytest.fixture
def redis_cache(stack):
    caches = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": stack.redis_url.replace("/0", "/1"),
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    with override_settings(CACHES=caches):
        yield


def test_redis_down_pages_sign_in_and_api_answer_and_a_started_run_completes(
    stack, workers, watchdog, redis_cache, big_results, organizer, chair, media
):
    workers.start()
    token = Token.objects.create(user=organizer)
    stack.stop_redis()
    try:
        client = Client()
        for url in ("/", "/api/v1/registrations/"):
            assert client.get(url).status_code == 200, url
        identifier = big_results.registration.identifier
        assert client.get(f"/registry/{identifier}/").status_code == 200
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        assert api.get("/api/v1/challenges/").status_code == 200
        started = api.post(
            f"/api/v1/results/{big_results.pk}/analyses/",
            {"scheme": SLOW_SCHEME},
            format="json",
        )
        assert started.status_code == 202, started.content
        detail = started.json()["detail"]
        assert detail == "queued; it starts when the job queue is back"
        run_id = started.json()["id"]
    finally:
        stack.start_redis()
    wait_finished(run_id, what="the queued run completes once Redis is back")
    assert_finished_like_uninterrupted(run_id, media)
    assert AnalysisRun.objects.count() == 1


def first_error(log: str) -> str:
    """The worker log from its first error on (what stopped it)."""
    found = [i for i in (log.find("ERROR/"), log.find("CRITICAL/")) if i >= 0]
    at = min(found, default=0)
    return log[at : at + 4000]


REDIS_OUTAGE = 90  # seconds: longer than any reconnect back-off of kombu's


def test_redis_stopped_90_s_mid_run_no_worker_exits_and_the_run_finishes(
    stack, workers, watchdog, big_results, chair, media
):
    master = workers.start()
    run = start_slow_run(big_results, chair)
    stack.stop_redis()
    try:
        time.sleep(REDIS_OUTAGE)
    finally:
        stack.start_redis()
    seconds = wait_finished(run.pk, what="the run finishes once Redis is back")
    assert seconds < TWO_MINUTES
    assert_finished_like_uninterrupted(run.pk, media)
    assert pool_children(master.pid), first_error(workers.logs())
    assert master.poll() is None, first_error(workers.logs())
    # ... and it still takes jobs: a second run finishes too
    again = start_analysis(results=big_results, actor=chair, scheme=SLOW_SCHEME)
    wait_finished(again.pk, what="a run started after the outage finishes")
    assert_finished_like_uninterrupted(again.pk, media)
    assert master.poll() is None, first_error(workers.logs())


def test_redis_down_sign_in_still_works(stack, redis_cache, organizer):
    """Sign-in throttling falls back to the database (accounts/throttle.py)."""
    organizer.set_password("pw-for-faults-1")
    organizer.save()
    stack.stop_redis()
    try:
        signed_in = Client().post(
            "/accounts/login/",
            {"username": organizer.username, "password": "pw-for-faults-1"},
        )
    finally:
        stack.start_redis()
    assert signed_in.status_code == 302  # signed in, not a 500


def timed_get(client: Client, url: str):
    started = time.monotonic()
    response = client.get(url)
    return response, time.monotonic() - started


def test_postgres_hung_health_at_once_ready_503_within_2_s_then_200(stack, media):
    client = Client()
    assert client.get("/health/").status_code == 200  # warm: the URLs imported
    with stack.hung(stack.postgres_pids()):
        health, seconds = timed_get(client, "/health/")
        assert (health.status_code, seconds < 0.1) == (200, True)
        ready, seconds = timed_get(client, "/ready/")
        assert seconds < 2, ready.content
        assert ready.status_code == 503
        database = ready.json()["checks"]["database"]
        assert database == {**database, "ok": False, "error": "no answer within 1.5 s"}
    wait_for(
        lambda: client.get("/ready/").status_code == 200,
        seconds=15,
        what="/ready/ is 200 once PostgreSQL answers again",
    )


@pytest.fixture
def small_disk(tmp_path, settings):
    """A 2 MB tmpfs as the media storage (root only)."""
    mount = tmp_path / "small-media"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    settings.MEDIA_ROOT = mount
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler.bin"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_disk_full_fails_the_run_with_the_reason_and_retry_finishes_it(
    workers, small_disk, big_results, chair, media
):
    workers.media = small_disk
    workers.start()
    filler = fill(small_disk)
    started = time.monotonic()
    run = start_analysis(results=big_results, actor=chair, scheme=SLOW_SCHEME)

    failed = wait_for(
        lambda: run_state(run.pk).status in ("done", "failed") and run_state(run.pk),
        seconds=60 + 30,
        what="the run fails on the full disk",
    )
    assert failed.status == "failed"
    assert "no space left" in failed.error
    assert time.monotonic() - started < 90
    assert media_files(small_disk) == {"filler.bin"}  # nothing partial
    assert Client().get("/").status_code == 200  # the site keeps serving

    filler.unlink()
    api = APIClient()
    api.force_authenticate(chair)
    assert api.post(f"/api/v1/analyses/{run.pk}/retry/").status_code == 202
    wait_finished(run.pk, what="the retried run finishes")
    assert_finished_like_uninterrupted(run.pk, small_disk)


def test_double_submitted_analysis_start_stores_one_run(
    workers, big_results, organizer
):
    api = APIClient()
    api.force_authenticate(organizer)
    url = f"/api/v1/results/{big_results.pk}/analyses/"
    answers = []

    def submit() -> None:
        answers.append(api.post(url, {"scheme": SLOW_SCHEME}, format="json"))
        connection.close()

    clicks = [threading.Thread(target=submit) for _ in range(2)]
    for click in clicks:
        click.start()
    for click in clicks:
        click.join(timeout=60)
    assert [a.status_code for a in answers] == [202, 202]
    assert len({a.json()["id"] for a in answers}) == 1
    assert AnalysisRun.objects.count() == 1


def test_one_section_saved_from_two_sessions_one_wins_one_is_refused(organizer, call):
    from registry import services
    from tests.factories import UserFactory

    proposal = services.create_challenge(owner=organizer, call=call, name="Race")
    colleague = UserFactory(username="carla")
    proposal.co_organizers.add(colleague)
    url = f"/proposals/{proposal.pk}/edit/challenge-organization/"
    sessions = []
    for user in (organizer, colleague):
        client = Client()
        client.force_login(user)
        sessions.append(client)
    versions = '{"1": 1}'
    answers = []

    def save(client: Client, venue: str) -> None:
        data = {"p01": "Race", "p05": venue, "versions": versions, "save": "Save"}
        answers.append((venue, client.post(url, data)))
        connection.close()

    saves = [
        threading.Thread(target=save, args=(client, venue))
        for client, venue in zip(sessions, ("Venue O", "Venue C"), strict=True)
    ]
    for thread in saves:
        thread.start()
    for thread in saves:
        thread.join(timeout=60)
    codes = sorted(response.status_code for _, response in answers)
    assert codes == [302, 409]
    winner = next(venue for venue, r in answers if r.status_code == 302)
    refused = next(r for _, r in answers if r.status_code == 409)
    assert winner.encode() in refused.content  # the other person's change shown
    stored = proposal.answers.get(number=5, task=None)
    assert (stored.value, stored.version) == (winner, 1)
