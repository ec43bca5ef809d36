"""Cache of anonymous, public GET responses (home, registry API, public page).

Only requests without a signed-in user (no session or messages cookie, no
Authorization header) are served from or stored in the cache, and only 200
responses that set no cookie and used no CSRF token, so nothing user-specific
is ever shared. Keys carry a *generation* read from the database on every
request (one SQL statement of index lookups): it changes whenever a
registration version is added (registration, approved amendment), a call is
added, renamed or deleted, or a challenge row is saved, so such a change shows
at once in every web process, even with the per-process memory cache.
``TIMEOUT`` bounds staleness for edits the generation does not see.

The cache is an optimisation, never a dependency: when it fails (Redis down)
pages are rendered as if nothing were cached; the error is counted for
``/ready/`` and logged at most once a minute (``config.health.cache_failed``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse

from config.health import cache_failed

TIMEOUT = 60  # seconds
_HEADERS = ("Content-Type", "Vary", "Allow", "Content-Language")

# Index-only lookups, no count of a large table, so the statement costs the
# same at 100 000 challenges as at 10. Versions are append-only (a database
# trigger refuses updates and deletes), so their highest id changes with every
# new one; anonymous pages show registered challenges only, which are never
# deleted (only drafts are), so inserts and saves of challenges are seen by
# MAX(updated) and the drafts' deletions do not matter. Calls are few: their
# count also sees one deleted, MAX(updated) one renamed.
_GENERATION_SQL = (
    "SELECT (SELECT MAX(id) FROM registry_registrationversion),"
    " (SELECT COUNT(*) FROM registry_call), (SELECT MAX(updated) FROM registry_call),"
    " (SELECT MAX(updated) FROM registry_challenge)"
)


def read_generation(sql: str) -> str:
    """The one row of a generation statement (`sql`), as one string."""
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return "|".join(str(value) for value in row)


def generation() -> str:
    """Changes whenever what the cached pages show may have changed."""
    return read_generation(_GENERATION_SQL)


def _key(request: HttpRequest) -> str:
    raw = "\n".join(
        (
            generation(),
            request.get_full_path(),
            request.META.get("HTTP_ACCEPT", ""),
            request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
        )
    )
    return "public-page:" + hashlib.sha256(raw.encode()).hexdigest()


def _cacheable(request: HttpRequest, response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.cookies
        and not getattr(response, "streaming", False)
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not request.META.get("CSRF_COOKIE_USED")
    )


def _cached(key: str):
    try:
        return cache.get(key)
    except Exception as exc:  # any backend error: serve uncached
        cache_failed(exc, "page cache read")
        return None


def _store(key: str, value) -> None:
    try:
        cache.set(key, value, TIMEOUT)
    except Exception as exc:
        cache_failed(exc, "page cache write")


def cache_public_get(view: Callable) -> Callable:
    """Serve anonymous GETs of ``view`` from the cache (see module docstring)."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        if (
            request.method != "GET"
            or "HTTP_AUTHORIZATION" in request.META  # API token: not anonymous
            # A session or pending messages may change the page (navbar, alerts).
            or settings.SESSION_COOKIE_NAME in request.COOKIES
            or "messages" in request.COOKIES
            or request.user.is_authenticated
        ):
            return view(request, *args, **kwargs)
        key = _key(request)
        stored = _cached(key)
        if stored is not None:
            status, headers, content = stored
            response = HttpResponse(content, status=status)
            for name, value in headers.items():
                response[name] = value
            return response
        response = view(request, *args, **kwargs)
        if hasattr(response, "render") and not response.is_rendered:
            response = response.render()
        if _cacheable(request, response):
            headers = {h: response[h] for h in _HEADERS if response.has_header(h)}
            _store(key, (response.status_code, headers, response.content))
        return response

    return wrapper
