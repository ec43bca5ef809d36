"""Schemathesis against /api/schema/: generated requests to every operation,
in-process through the WSGI app with a staff token; none may get a 5xx."""

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token

from config.wsgi import application
from tests.factories import CallFactory, UserFactory


@pytest.fixture
def token(db):
    staff = UserFactory(username="sam", is_staff=True)
    CallFactory(slug="miccai-2027").chairs.add(staff)
    return Token.objects.create(user=staff).key


@pytest.fixture
def api_schema(token):
    # Like Django's test client: keep the test's database connection (and its
    # transaction) open across the in-process WSGI requests.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi(
            "/api/schema/?format=json",
            application,
            headers={"Authorization": f"Token {token}"},
        )
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


FUZZ = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.slow
def test_api_never_answers_with_a_server_error(api_schema, token):
    headers = {"Authorization": f"Token {token}"}
    server_errors: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 20  # the whole API, not an empty schema

    for operation in operations:

        @FUZZ
        @given(case=operation.as_strategy())
        def check(case):
            response = case.call(headers=headers)
            if response.status_code >= 500:
                server_errors.append(
                    f"{response.status_code} {case.method} {case.formatted_path} "
                    f"{case.body!r:.200}"
                )

        check()
    assert server_errors == []


@pytest.mark.django_db
def test_registration_search_refuses_a_year_out_of_range(api):
    response = api.get("/api/v1/registrations/", {"year": "9" * 30})
    assert response.status_code == 400
    assert "is not a year" in response.json()["year"][0]
    assert api.get("/api/v1/registrations/", {"year": "2027"}).json()["results"] == []
