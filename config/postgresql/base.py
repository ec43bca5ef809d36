"""Django's PostgreSQL backend whose connection health check has a bound.

With persistent connections (``CONN_MAX_AGE`` > 0) and ``CONN_HEALTH_CHECKS``,
Django runs ``SELECT 1`` on a kept connection before a request reuses it.
Against a hung server (SIGSTOP, a stalled host) that query never returns: the
kernel of a stopped server still acknowledges what is sent, so neither TCP
keepalives nor ``tcp_user_timeout`` end it, and libpq has no client-side query
timeout. Here the check runs in a helper thread (:mod:`config.bounded`); a
connection that has not answered within ``DATABASE_HEALTH_CHECK_SECONDS`` is
handed to that thread (which closes it whenever the server answers or the
socket dies) and the request opens a new one, itself bounded by libpq's
``connect_timeout`` (``DATABASE_CONNECT_TIMEOUT``).
"""

from __future__ import annotations

import contextlib
import threading

from django.conf import settings
from django.db.backends.postgresql import base

from config.bounded import NoAnswerError, result_within, start_call


def _answers(raw_connection) -> bool:
    try:
        with raw_connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except base.Database.Error:
        return False
    return True


def _close_quietly(raw_connection) -> None:
    with contextlib.suppress(base.Database.Error):
        raw_connection.close()


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        raw = self.connection
        if raw is None:
            return False
        lock = threading.Lock()
        state = {"given_up": False, "answered": False}

        def check() -> bool:
            usable = _answers(raw)
            with lock:
                state["answered"] = True
                given_up = state["given_up"]
            if given_up:  # the request went on without it: nobody else will
                _close_quietly(raw)
            return usable

        future = start_call(check, name="database health check")
        try:
            return result_within(future, settings.DATABASE_HEALTH_CHECK_SECONDS)
        except NoAnswerError:
            with lock:
                state["given_up"] = True
                answered = state["answered"]
            if not answered:  # the helper thread owns it now
                self.connection = None
            return False  # Django closes what is still ours and reconnects
