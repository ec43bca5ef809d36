"""/health/ and /ready/, and the site without its cache (Redis down)."""

import logging
import time

import pytest
from django.test import override_settings
from rest_framework.authtoken.models import Token

from config import health
from tests.registry import test_registration_pages as pages

accepted, registration = pages.accepted, pages.registration  # fixtures

pytestmark = pytest.mark.django_db

DEAD_REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
}


def test_health_answers_without_touching_anything(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/health/")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_ready_reports_every_check(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    # What is reported, not how fast: on a loaded machine a thread may wait
    # past the 1.5 s bound to be scheduled (the bound has tests of its own).
    settings.READY_CHECK_SECONDS = 30
    body = client.get("/ready/").json()
    assert body["status"] == "ok", body  # the body names the failing check
    assert set(body["checks"]) == {"database", "cache", "broker", "media", "worker"}
    assert all(check["ok"] for check in body["checks"].values())


def test_ready_is_unavailable_when_media_is_not_writable(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "file"
    (tmp_path / "file").write_text("not a directory")
    response = client.get("/ready/")
    assert response.status_code == 503
    assert response.json()["checks"]["media"]["ok"] is False


def test_ready_sees_a_stopped_broker_and_a_silent_worker(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    body = client.get("/ready/")
    assert body.status_code == 200  # the site still serves: degraded
    checks = body.json()["checks"]
    assert (body.json()["status"], checks["broker"]["ok"]) == ("degraded", False)
    assert checks["worker"] == {**checks["worker"], "ok": False}
    assert checks["worker"]["heartbeat_age_seconds"] is None

    beat = health.worker_beat_dir() / "worker-w1"
    beat.parent.mkdir(parents=True)
    beat.touch()
    worker = client.get("/ready/").json()["checks"]["worker"]
    assert worker["ok"] is True
    assert 0 <= worker["heartbeat_age_seconds"] < 5


def test_ready_answers_within_2_s_when_redis_hangs(client, settings, hung_server):
    """A hung Redis (accepting, never answering) as broker and cache: /ready/
    answers within 2 s, degraded as for a stopped Redis, with the reasons."""
    settings.CELERY_BROKER_URL = f"redis://{hung_server}/0"
    settings.CACHES = {
        "default": {**DEAD_REDIS["default"], "LOCATION": f"redis://{hung_server}/1"}
    }
    client.get("/health/")  # the URLs imported: time the checks alone
    started = time.monotonic()
    response = client.get("/ready/")
    assert time.monotonic() - started < 2
    body = response.json()
    assert (response.status_code, body["status"]) == (200, "degraded")
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["broker"]["error"]
    assert body["checks"]["cache"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


def test_a_check_that_does_not_answer_fails_with_the_bound_as_reason(
    client, settings, monkeypatch
):
    settings.READY_CHECK_SECONDS = 0.3
    monkeypatch.setitem(health.CHECKS, "database", lambda: time.sleep(3))
    client.get("/health/")  # the URLs imported: time the checks alone
    started = time.monotonic()
    response = client.get("/ready/")
    assert time.monotonic() - started < 1
    database = response.json()["checks"]["database"]
    assert response.status_code == 503
    assert (database["ok"], database["error"]) == (False, "no answer within 0.3 s")


@override_settings(CACHES=DEAD_REDIS)
def test_without_the_cache_public_pages_and_token_api_answer_200(
    client, api, registration, organizer, caplog
):
    before = health.cache_error_count()
    health._cache_errors["last_logged"] = 0.0
    with caplog.at_level(logging.WARNING, logger="config.health"):
        for url in ("/", "/api/v1/registrations/", pages.detail()):
            assert client.get(url).status_code == 200, url
    assert health.cache_error_count() >= before + 6  # a read and a write each
    logged = [r for r in caplog.records if "cache unavailable" in r.message]
    assert len(logged) == 1  # once a minute, not once a request

    token = Token.objects.create(user=organizer)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/v1/registrations/").status_code == 200

    ready = client.get("/ready/").json()
    assert ready["status"] == "degraded"
    assert ready["checks"]["cache"]["ok"] is False
