"""An analysis start while the database cannot be reached (issue 33): accepted
provisionally (202) from a recently seen API token into a bounded Redis spool,
decided in full by ``resume_jobs`` when the database is back (analysis/outage.py,
config/credentials.py).

The database is made unreachable for real (tests/test_database_unavailable.py:
a closed port on PostgreSQL, a file in a missing directory on SQLite), so the
request fails where it fails in production: authenticating. The spool needs a
Redis: CELERY_TEST_BROKER (e.g. redis://127.0.0.1:6379/11); without it the
spool tests are skipped. The hung-server case through gunicorn runs in the
fault suite (tests/faults/test_production_web.py).
"""

from __future__ import annotations

import io
import os
import uuid

import pytest
import redis
from django.core.cache import cache
from django.core.management import call_command
from django.db import OperationalError, connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analysis import outage
from analysis.api import ACCEPTED_WHILE_DOWN, SpoolUnavailable
from analysis.models import AnalysisRun, StartRequest
from config import credentials
from config.unavailable import DETAIL
from tests.analysis.django.conftest import SCHEME
from tests.factories import UserFactory
from tests.faults.stack import free_port  # a port nothing listens on
from tests.test_database_unavailable import database_at, unreachable

pytestmark = pytest.mark.django_db(transaction=True)

REDIS_URL = os.environ.get("CELERY_TEST_BROKER", "")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="set CELERY_TEST_BROKER to a Redis URL for the spool"
)
BODY = {"scheme": SCHEME}


@pytest.fixture
def spool(settings, monkeypatch):
    """The spool in the test Redis, under a key of this test's own."""
    settings.OUTAGE_SPOOL_URL = REDIS_URL
    monkeypatch.setattr(outage, "SPOOL_KEY", f"test-spool:{uuid.uuid4()}")
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.delete(outage.SPOOL_KEY)


def token_client(user) -> tuple[APIClient, str]:
    key = Token.objects.create(user=user).key
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api, key


def seen(user) -> tuple[APIClient, str]:
    """A token client whose token authenticated once with the database up."""
    api, key = token_client(user)
    assert api.get("/api/v1/me/").status_code == 200
    return api, key


def start(api: APIClient, results, body=BODY):
    return api.post(f"/api/v1/results/{results.pk}/analyses/", body, format="json")


def start_while_down(api: APIClient, results, body=BODY):
    with database_at(**unreachable()):
        return start(api, results, body)


def drain() -> str:
    out = io.StringIO()
    call_command("resume_jobs", stdout=out)
    return out.getvalue()


def assert_unavailable(response) -> None:
    assert (response.status_code, response.json()) == (503, {"detail": DETAIL})
    assert response["Retry-After"] == "10"


# --- remembering tokens --------------------------------------------------------


def test_token_authentication_remembers_the_fingerprint_never_the_key(organizer):
    _, key = seen(organizer)
    assert credentials.remembered_user_id(key) == organizer.pk
    stored = cache._cache  # LocMemCache: {key: pickled value}
    assert [k for k in stored if key in k] == []
    assert [k for k in stored if credentials.fingerprint(key) in k] != []
    assert [v for v in stored.values() if key.encode() in v] == []


def test_a_cache_outage_at_authentication_does_not_fail_the_request(
    organizer, settings
):
    dead = f"redis://127.0.0.1:{free_port()}/0"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": dead,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    api, key = token_client(organizer)
    response = api.get("/api/v1/me/")
    assert response.status_code == 200
    assert credentials.remembered_user_id(key) is None


def test_deleting_a_token_forgets_it(organizer):
    _, key = seen(organizer)
    Token.objects.filter(key=key).delete()
    assert credentials.remembered_user_id(key) is None


def test_deactivating_a_user_forgets_their_token(organizer):
    _, key = seen(organizer)
    organizer.is_active = False
    organizer.save()
    assert credentials.remembered_user_id(key) is None


def test_only_a_connection_failure_counts_as_the_database_unreachable(organizer):
    connection.ensure_connection()  # the database answers
    refused_statement = OperationalError("could not serialize access")
    assert outage.database_unreachable(refused_statement) is False
    with database_at(**unreachable()):
        with pytest.raises(OperationalError) as failed:
            connection.ensure_connection()
        assert outage.database_unreachable(failed.value) is True


# --- accepting while the database is down -------------------------------------


@needs_redis
def test_start_while_the_database_is_down_is_202_then_started_by_the_drain(
    spool, results, organizer
):
    api, _ = seen(organizer)
    accepted = start_while_down(api, results)
    body = accepted.json()
    request_id = body["request"]
    check = f"/api/v1/analysis-requests/{request_id}/"
    assert accepted.status_code == 202
    assert body == {
        "status": "accepted",
        "request": request_id,
        "detail": ACCEPTED_WHILE_DOWN,
        "check": check,
    }
    assert accepted["Location"] == check
    assert "Retry-After" not in accepted
    assert AnalysisRun.objects.count() == 0
    pending = api.get(check).json()
    assert (pending["status"], pending["run"]) == ("pending", None)

    assert "1 started, 0 refused" in drain()

    run = AnalysisRun.objects.get()
    assert (run.requested_by, run.results, run.exploratory, run.seed) == (
        organizer,
        results,
        True,
        SCHEME["uncertainty"]["seed"],
    )
    assert api.get(check).json() == {
        "request": request_id,
        "status": "started",
        "run": run.pk,
        "detail": f"analysis {run.pk} was started",
    }
    assert spool.hlen(outage.SPOOL_KEY) == 0


@needs_redis
def test_start_while_down_with_an_unknown_token_is_503_nothing_spooled(
    spool, results, organizer
):
    api, _ = token_client(organizer)  # never authenticated with the database up
    assert_unavailable(start_while_down(api, results))
    assert spool.hlen(outage.SPOOL_KEY) == 0


@needs_redis
def test_start_while_down_anonymous_is_401_as_always(spool, results):
    """No credential needs no database to be refused."""
    assert start_while_down(APIClient(), results).status_code == 401
    assert spool.hlen(outage.SPOOL_KEY) == 0


def test_start_while_down_without_a_spool_answering_is_503(
    settings, results, organizer
):
    settings.OUTAGE_SPOOL_URL = f"redis://127.0.0.1:{free_port()}/0"
    api, _ = seen(organizer)
    assert_unavailable(start_while_down(api, results))


@needs_redis
def test_another_route_while_down_is_503_not_spooled(spool, results, organizer):
    api, _ = seen(organizer)
    with database_at(**unreachable()):
        response = api.post(f"/api/v1/analyses/{results.pk}/retry/")
    assert_unavailable(response)
    assert spool.hlen(outage.SPOOL_KEY) == 0


@needs_redis
def test_start_while_down_with_a_body_not_an_object_is_refused_not_spooled(
    spool, results, organizer
):
    api, _ = seen(organizer)
    with database_at(**unreachable()):
        response = api.post(
            f"/api/v1/results/{results.pk}/analyses/", [1], format="json"
        )
    assert response.status_code == 400
    assert spool.hlen(outage.SPOOL_KEY) == 0


@needs_redis
def test_past_the_per_user_bound_a_start_while_down_is_503(
    spool, settings, results, organizer
):
    settings.OUTAGE_SPOOL_MAX_PER_USER = 2
    api, _ = seen(organizer)
    answers = [start_while_down(api, results).status_code for _ in range(3)]
    assert answers == [202, 202, 503]
    assert spool.hlen(outage.SPOOL_KEY) == 2


@needs_redis
def test_past_the_total_bound_a_start_while_down_is_503(
    spool, settings, results, organizer, chair
):
    settings.OUTAGE_SPOOL_MAX = 2
    organizer_api, _ = seen(organizer)
    chair_api, _ = seen(chair)
    answers = [start_while_down(organizer_api, results).status_code for _ in "ab"]
    answers.append(start_while_down(chair_api, results).status_code)
    assert answers == [202, 202, 503]
    assert spool.hlen(outage.SPOOL_KEY) == 2


# --- draining -------------------------------------------------------------------


@needs_redis
def test_draining_twice_starts_one_run(spool, results, organizer):
    api, _ = seen(organizer)
    start_while_down(api, results)
    drain()
    drain()
    assert (AnalysisRun.objects.count(), StartRequest.objects.count()) == (1, 1)


@needs_redis
def test_an_entry_left_in_the_spool_after_its_commit_starts_no_second_run(
    spool, results, organizer
):
    """As after a crash between the commit and the entry's removal."""
    api, _ = seen(organizer)
    start_while_down(api, results)
    left = spool.hgetall(outage.SPOOL_KEY)
    drain()
    spool.hset(outage.SPOOL_KEY, mapping=left)  # the removal never happened

    assert "1 started, 0 refused" in drain()
    assert (AnalysisRun.objects.count(), StartRequest.objects.count()) == (1, 1)
    assert spool.hlen(outage.SPOOL_KEY) == 0


@needs_redis
def test_an_unreadable_entry_is_set_aside_and_the_others_are_decided(
    spool, results, organizer
):
    api, _ = seen(organizer)
    start_while_down(api, results)
    spool.hset(outage.SPOOL_KEY, "7:not-json", b"{truncated")

    assert "1 started, 0 refused" in drain()
    assert AnalysisRun.objects.count() == 1
    assert spool.hlen(outage.SPOOL_KEY) == 0
    unreadable = spool.hgetall(f"{outage.SPOOL_KEY}:unreadable")
    spool.delete(f"{outage.SPOOL_KEY}:unreadable")
    assert unreadable == {b"7:not-json": b"{truncated"}


@needs_redis
def test_a_start_failing_unexpectedly_is_refused_once_and_leaves_no_run(
    spool, results, organizer, monkeypatch
):
    real_start = outage.services.start_analysis

    def start_then_fail(**kwargs):
        real_start(**kwargs)  # the run is stored, then something breaks
        raise RuntimeError("a bug")

    monkeypatch.setattr(outage.services, "start_analysis", start_then_fail)
    api, _ = seen(organizer)
    request_id = start_while_down(api, results).json()["request"]

    assert "0 started, 1 refused" in drain()
    assert AnalysisRun.objects.count() == 0  # rolled back with the failure
    assert StartRequest.objects.get(pk=request_id).refusal == outage.UNDECIDABLE
    assert spool.hlen(outage.SPOOL_KEY) == 0  # not retried every pass


def refusal_after(api, results, change) -> dict:
    request_id = start_while_down(api, results).json()["request"]
    change()
    assert "0 started, 1 refused" in drain()
    assert AnalysisRun.objects.count() == 0
    return StartRequest.objects.get(pk=request_id)


@needs_redis
def test_a_token_revoked_before_the_drain_is_refused(spool, results, organizer):
    api, key = seen(organizer)
    decided = refusal_after(api, results, Token.objects.filter(key=key).delete)
    assert decided.refusal == outage.REVOKED


@needs_redis
def test_a_user_deactivated_before_the_drain_is_refused(spool, results, organizer):
    api, _ = seen(organizer)

    def deactivate():
        organizer.is_active = False
        organizer.save()

    assert refusal_after(api, results, deactivate).refusal == outage.INACTIVE


@needs_redis
def test_results_not_visible_at_the_drain_are_refused_and_the_check_says_why(
    spool, results
):
    stranger = UserFactory(username="stranger")
    api, _ = seen(stranger)
    decided = refusal_after(api, results, lambda: None)
    assert decided.refusal == outage.NO_RESULTS
    answer = api.get(f"/api/v1/analysis-requests/{decided.pk}/").json()
    assert (answer["status"], answer["run"], answer["detail"]) == (
        "refused",
        None,
        outage.NO_RESULTS,
    )


@needs_redis
def test_an_invalid_scheme_is_refused_with_the_validation_message(
    spool, results, organizer
):
    api, _ = seen(organizer)
    request_id = start_while_down(api, results, {"scheme": "fastest"}).json()["request"]
    drain()
    refusal = StartRequest.objects.get(pk=request_id).refusal
    assert refusal != ""
    assert AnalysisRun.objects.count() == 0


def test_a_spool_that_does_not_answer_leaves_the_watchdog_its_other_work(
    settings,
):
    settings.OUTAGE_SPOOL_URL = f"redis://127.0.0.1:{free_port()}/0"
    out = drain()
    assert "0 started, 0 refused; the spool does not answer" in out
    assert "analysis chunks:" in out  # the rest of the pass ran


# --- the check endpoint ---------------------------------------------------------


@needs_redis
def test_another_user_cannot_see_a_request_pending_or_decided(
    spool, results, organizer, chair
):
    api, _ = seen(organizer)
    chair_api, _ = seen(chair)
    check = start_while_down(api, results).json()["check"]
    assert chair_api.get(check).status_code == 404
    drain()
    assert chair_api.get(check).status_code == 404
    assert api.get(check).json()["status"] == "started"


def test_the_check_answers_503_when_the_spool_does_not_answer(settings, organizer):
    settings.OUTAGE_SPOOL_URL = f"redis://127.0.0.1:{free_port()}/0"
    api, _ = seen(organizer)
    response = api.get(f"/api/v1/analysis-requests/{uuid.uuid4()}/")
    assert response.status_code == 503
    assert response.json() == {"detail": SpoolUnavailable.default_detail}


@needs_redis
def test_an_unknown_request_is_404(spool, organizer):
    api, _ = seen(organizer)
    assert api.get(f"/api/v1/analysis-requests/{uuid.uuid4()}/").status_code == 404
