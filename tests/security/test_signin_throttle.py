"""Attack: lock someone else out of their account, or dodge the throttle."""

import pytest
from django.core import mail
from django.test import override_settings

from accounts import throttle
from accounts.models import ThrottleCounter
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.1"
RIGHT = "pw-for-tests-1"


def sign_in(client, password, *, address="192.0.2.1", forwarded=None, user="olga"):
    extra = {"REMOTE_ADDR": address}
    if forwarded:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return client.post(
        "/accounts/login/", {"username": user, "password": password}, **extra
    )


def signed_in(response) -> bool:
    return response.status_code == 302


@pytest.fixture
def clock(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(throttle, "_now", lambda: now[0])
    return now


@override_settings(TRUSTED_PROXIES=[PROXY])
def test_behind_a_trusted_proxy_an_attacker_cannot_lock_out_the_owner(client, clock):
    UserFactory(username="olga")
    assert signed_in(sign_in(client, RIGHT, address=PROXY, forwarded="198.51.100.7"))
    client.logout()
    for _ in range(20):
        sign_in(client, "guess", address=PROXY, forwarded="203.0.113.5")
    # The owner, from her usual address behind the same proxy: straight in.
    assert signed_in(sign_in(client, RIGHT, address=PROXY, forwarded="198.51.100.7"))


def test_per_username_failures_only_slow_down_and_notify(client, clock):
    UserFactory(username="olga", email="olga@dkfz.de")
    for number in range(8):  # from addresses the owner never used, patiently
        clock[0] += 100
        sign_in(client, "guess", address=f"203.0.113.{number}")
    [notice] = mail.outbox
    assert notice.to == ["olga@dkfz.de"]
    assert "203.0.113.4" in notice.body
    # From another new address: slowed (8 failures, 5 allowed: 2**3 = 8 s)...
    slowed = sign_in(client, RIGHT, address="198.51.100.99")
    assert "wait 8 seconds" in slowed.text
    # ...but never locked out: after the wait the right password works.
    clock[0] += 8
    assert signed_in(sign_in(client, RIGHT, address="198.51.100.99"))


@override_settings(SIGNIN_MAX_DELAY_SECONDS=60)
def test_the_delay_is_exponential_and_bounded(settings):
    assert [throttle.username_delay(n) for n in (4, 5, 6, 7, 8, 20)] == [
        0,
        1,
        2,
        4,
        8,
        60,
    ]


@override_settings(SIGNIN_MAX_FAILURES_PER_ADDRESS=10, SIGNIN_MAX_FAILURES=1000)
def test_one_address_trying_many_usernames_is_refused(client):
    UserFactory(username="olga")
    for number in range(10):
        sign_in(client, "guess", user=f"user{number}", address="203.0.113.5")
    refused = sign_in(client, RIGHT, address="203.0.113.5")
    assert "Too many failed sign-ins from your address" in refused.text
    assert signed_in(sign_in(client, RIGHT, address="198.51.100.7"))


def test_forwarded_header_is_ignored_without_trusted_proxies(rf):
    request = rf.get("/", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert throttle.client_address(request) == "203.0.113.5"


@override_settings(TRUSTED_PROXIES=["10.0.0.0/8"])
def test_forwarded_header_from_a_trusted_proxy_names_the_client(rf):
    request = rf.get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 1.2.3.4, 10.0.0.3"
    )
    assert throttle.client_address(request) == "1.2.3.4"  # 6.6.6.6 is spoofable


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens: Redis is down
        }
    },
    SIGNIN_MAX_FAILURES=3,
)
def test_sign_in_works_and_throttles_when_redis_is_down(client):
    UserFactory(username="olga")
    for _ in range(3):
        assert sign_in(client, "guess").status_code == 200
    assert ThrottleCounter.objects.exists()
    locked = sign_in(client, RIGHT)
    assert "try again in 15 minutes" in locked.text
    assert signed_in(sign_in(client, RIGHT, address="198.51.100.7"))
