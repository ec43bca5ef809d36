"""Security headers, sign-in throttling, request size limits, error pages."""

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import path

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def boom(request):
    raise RuntimeError("secret-internal-detail in /srv/app/settings.py")


urlpatterns = [path("boom/", boom)]


@pytest.fixture(autouse=True)
def clear_cache():
    cache.clear()
    yield
    cache.clear()


def test_pages_carry_csp_and_security_headers(client):
    response = client.get("/")
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp
    assert "script-src 'self';" in csp
    assert "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "camera=()" in response.headers["Permissions-Policy"]


def sign_in(client, username, password):
    return client.post(
        "/accounts/login/",
        {"username": username, "password": password},
        REMOTE_ADDR="203.0.113.7",
    )


@override_settings(SIGNIN_MAX_FAILURES=3, SIGNIN_LOCK_SECONDS=600)
def test_sign_in_is_locked_after_repeated_failures(client):
    UserFactory(username="olga")
    for _ in range(3):
        response = sign_in(client, "olga", "wrong")
        assert "Please enter a correct username and password" in response.text

    locked = sign_in(client, "olga", "pw-for-tests-1")  # right password, too late
    assert locked.status_code == 200
    assert "Too many failed sign-ins for this account; try again in 10 minutes" in (
        locked.text
    )
    assert "_auth_user_id" not in client.session

    other_address = client.post(
        "/accounts/login/",
        {"username": "olga", "password": "pw-for-tests-1"},
        REMOTE_ADDR="198.51.100.9",
    )
    assert other_address.status_code == 302


@override_settings(SIGNIN_MAX_FAILURES=3)
def test_successful_sign_in_clears_the_failure_count(client):
    UserFactory(username="olga")
    sign_in(client, "olga", "wrong")
    sign_in(client, "olga", "wrong")
    assert sign_in(client, "olga", "pw-for-tests-1").status_code == 302
    client.logout()
    sign_in(client, "olga", "wrong")
    sign_in(client, "olga", "wrong")
    assert sign_in(client, "olga", "pw-for-tests-1").status_code == 302


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000, DEBUG=False)
def test_oversized_request_body_is_refused_with_413(organizer_api, call):
    response = organizer_api.post(
        "/api/v1/challenges/",
        {"call": call.slug, "name": "Fine", "padding": "x" * 5000},
        format="json",
    )
    assert response.status_code == 413
    assert "larger than the limit (1,000 bytes)" in response.json()["detail"]
    assert "RequestDataTooBig" not in response.content.decode()
    assert call.challenges.count() == 0


@override_settings(DEBUG=False, ROOT_URLCONF="tests.test_security")
def test_server_error_page_shows_no_traceback(client):
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    assert "Something went wrong" in response.text
    assert "secret-internal-detail" not in response.text
    assert "Traceback" not in response.text


@override_settings(DEBUG=False)
def test_missing_page_uses_the_registry_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Page not found" in response.text
    assert "Back to the registry" in response.text
