"""A database that does not answer is a 503 with Retry-After, never a 500.

When PostgreSQL is hung, restarting or refusing connections, a request cannot
be authenticated (sessions and tokens live in it), cannot read what it names
and cannot store anything: the answer is "not now, try again", fast. One
operation answers otherwise, before this middleware sees the error: starting
an analysis with an API token seen recently is accepted provisionally (202)
into a bounded spool and decided in full when the database is back
(analysis/outage.py; docs/operations.md "Starting an analysis while
PostgreSQL is down"). How fast is bounded by the connection settings
(``DATABASE_CONNECT_TIMEOUT``, ``DATABASE_HEALTH_CHECK_SECONDS``;
config/postgresql/base.py): about 4 s against a hung server, at once against
a stopped one. The page is rendered without the request, so no context
processor touches the database again.
"""

from __future__ import annotations

import logging

from django.db import OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 10
DETAIL = (
    "The database did not answer; the request was not completed. "
    "Try again in a few seconds."
)


def database_unavailable(request) -> HttpResponse:
    """The 503 for ``request``: JSON under /api/, a plain page elsewhere."""
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": DETAIL}, status=503)
    else:
        page = render_to_string("503.html", {"detail": DETAIL})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Turns a database that failed to answer a view (connect timeout, a kept
    connection given up, a restart under way) into :func:`database_unavailable`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError):
            return None
        logger.warning("database unavailable for %s: %s", request.path, exception)
        return database_unavailable(request)
