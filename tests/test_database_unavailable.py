"""A database that cannot be reached or does not answer: 503 with Retry-After
(config/unavailable.py), in time (config/postgresql/base.py, the connection
options); never a 500. The hung-server cases with persistent connections run
in the fault suite (tests/faults/test_production_web.py)."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection

from config.unavailable import DETAIL

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def database_at(**changes) -> Iterator[None]:
    """The default connection pointed elsewhere (``changes`` to its settings)
    until the block ends."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(changes)
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def unreachable() -> dict:
    """Settings of a database nothing can open: a closed port on PostgreSQL,
    a file in a missing directory on SQLite."""
    if connection.vendor == "postgresql":
        with socket.socket() as probe:  # a port nothing listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        return {"HOST": "127.0.0.1", "PORT": str(port)}
    return {"NAME": "/nonexistent-directory/registry.sqlite3"}


def test_api_answers_503_with_retry_after_when_the_database_is_unreachable(client):
    with database_at(**unreachable()):
        response = client.get("/api/v1/registrations/")
    assert (response.status_code, response.json()) == (503, {"detail": DETAIL})
    assert response["Retry-After"] == "10"


def test_a_page_answers_503_saying_so_when_the_database_is_unreachable(client):
    with database_at(**unreachable()):
        response = client.get("/registry/")
    assert response.status_code == 503
    assert b"The registry cannot reach its database" in response.content
    assert DETAIL.encode() in response.content
    assert response["Retry-After"] == "10"


def test_health_still_answers_200_when_the_database_is_unreachable(client):
    with database_at(**unreachable()):
        response = client.get("/health/")
    assert response.status_code == 200


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung server: the
    kernel completes the handshake, nobody reads)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_a_silent_postgresql_answers_503_within_the_connect_timeout(
    client, silent_server
):
    if connection.vendor != "postgresql":
        pytest.skip("libpq's connect_timeout: PostgreSQL only")
    started = time.monotonic()
    with database_at(HOST="127.0.0.1", PORT=str(silent_server)):
        response = client.get("/api/v1/registrations/")
    seconds = time.monotonic() - started
    assert response.status_code == 503
    assert settings.DATABASE_CONNECT_TIMEOUT <= seconds < 5


def test_postgresql_connections_carry_the_timeouts_and_keepalives():
    if connection.vendor != "postgresql":
        pytest.skip("libpq options: PostgreSQL only")
    connection.ensure_connection()
    parameters = connection.connection.info.get_parameters()
    assert {
        name: parameters.get(name)
        for name in (
            "connect_timeout",
            "keepalives",
            "keepalives_idle",
            "keepalives_interval",
            "keepalives_count",
            "tcp_user_timeout",
        )
    } == {
        "connect_timeout": str(settings.DATABASE_CONNECT_TIMEOUT),
        "keepalives": "1",
        "keepalives_idle": "10",
        "keepalives_interval": "5",
        "keepalives_count": "3",
        "tcp_user_timeout": "15000",
    }
