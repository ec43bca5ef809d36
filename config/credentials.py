"""API tokens remembered for a database outage (issue 33).

While PostgreSQL is hung or stopped no request can be authenticated: tokens
live in it. So that an analysis start can still be accepted provisionally
(``analysis.outage``), every successful token authentication leaves in the
shared cache a *fingerprint* of the token (its SHA-256, never the key) → the
user id, for ``OUTAGE_CREDENTIAL_SECONDS``. The entry only says "this token
belonged to this user a short while ago": whatever is accepted on its word
is checked again, token included, when the database is back.

The cache is an aid, never a dependency: a cache that fails costs nothing
but the remembering. Deleting a token or deactivating its user forgets it
(receivers connected in ``accounts.apps``).
"""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache
from rest_framework.authentication import TokenAuthentication

logger = logging.getLogger(__name__)

CACHE_PREFIX = "outage-credential:"


def fingerprint(key: str) -> str:
    """The SHA-256 (hex) of a token key: what is remembered instead of it."""
    return hashlib.sha256(key.encode()).hexdigest()


def _cache_key(key: str) -> str:
    return CACHE_PREFIX + fingerprint(key)


def remember(key: str, user_id: int) -> None:
    """Remember that token ``key`` authenticated ``user_id`` (one round trip;
    an entry already there is left as it is, so its TTL counts from the first
    use in the window)."""
    try:
        cache.add(_cache_key(key), user_id, timeout=settings.OUTAGE_CREDENTIAL_SECONDS)
    except Exception:  # a cache outage must not fail an authenticated request
        logger.warning("could not remember an API token for outages", exc_info=True)


def remembered_user_id(key: str) -> int | None:
    """The user the token ``key`` authenticated recently, or None (never seen,
    expired, forgotten, or the cache does not answer)."""
    try:
        user_id = cache.get(_cache_key(key))
    except Exception:
        logger.warning("could not read remembered API tokens", exc_info=True)
        return None
    return user_id if isinstance(user_id, int) else None


def forget(keys) -> None:
    """Forget the tokens ``keys`` (deleted, or their user deactivated)."""
    try:
        cache.delete_many([_cache_key(key) for key in keys])
    except Exception:
        logger.warning("could not forget API tokens", exc_info=True)


def token_key_of(request) -> str | None:
    """The key of an ``Authorization: Token <key>`` header, read without the
    database; None for any other (or no) credential."""
    header = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(header) != 2 or header[0].lower() != TokenAuthentication.keyword.lower():
        return None
    return header[1]


class RememberingTokenAuthentication(TokenAuthentication):
    """DRF's token authentication that remembers what it authenticated."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        remember(key, user.pk)
        return user, token
