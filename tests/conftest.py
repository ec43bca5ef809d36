import socket

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests import api_contract
from tests.factories import CallFactory, UserFactory


@pytest.fixture(scope="session")
def openapi_spec():
    """The schema drf-spectacular generates, read once per session."""
    return api_contract.validator(api_contract.generate_schema())


@pytest.fixture(autouse=True)
def _api_answers_match_the_schema(request, openapi_spec, monkeypatch):
    """Every answer under /api/v1/ a test client receives is validated against
    the OpenAPI schema (tests/api_contract.py); the first mismatch fails the
    test. Django's client carries DRF's APIClient too."""
    send = Client.request

    def request_and_check(client, **kwargs):
        response = send(client, **kwargs)
        api_contract.check_response(openapi_spec, response.wsgi_request, response)
        return response

    monkeypatch.setattr(Client, "request", request_and_check)


@pytest.fixture
def organizer(db):
    return UserFactory(username="olga")


@pytest.fixture
def call(db):
    return CallFactory(slug="miccai-2027", title="MICCAI 2027")


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def organizer_api(api, organizer):
    api.force_authenticate(organizer)
    return api


@pytest.fixture
def chair(call):
    """A chair of the `call` fixture's call."""
    user = UserFactory(username="chair")
    call.chairs.add(user)
    return user


@pytest.fixture(autouse=True)
def _fresh_cache():
    """No cached page (registry.page_cache) or counter leaks between tests."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def hung_server():
    """The URL authority (host:port) of a server that takes connections and
    never answers, as a PostgreSQL or Redis stopped by SIGSTOP does: the
    kernel completes the handshake into the listen backlog; nothing reads."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield f"127.0.0.1:{server.getsockname()[1]}"
