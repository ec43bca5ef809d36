"""Rate-limited sign-in: failed attempts per username and client address.

After `SIGNIN_MAX_FAILURES` failures within `SIGNIN_LOCK_SECONDS`, sign-in for
that username from that address is refused until the window passes (counted in
Django's cache, so several web processes share the count when the cache is
Redis). A successful sign-in clears the count.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.dispatch import receiver


def client_address(request) -> str:
    return (request.META.get("REMOTE_ADDR") or "unknown") if request else "unknown"


def _key(username: str, address: str) -> str:
    raw = f"{username.strip().lower()}|{address}".encode()
    return "signin-failures:" + hashlib.sha256(raw).hexdigest()


def is_locked(username: str, request) -> bool:
    failures = cache.get(_key(username or "", client_address(request)), 0)
    return failures >= settings.SIGNIN_MAX_FAILURES


def lock_minutes() -> int:
    return max(1, settings.SIGNIN_LOCK_SECONDS // 60)


@receiver(user_login_failed)
def count_failure(sender, credentials, request=None, **kwargs) -> None:
    key = _key(str(credentials.get("username", "")), client_address(request))
    cache.add(key, 0, timeout=settings.SIGNIN_LOCK_SECONDS)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=settings.SIGNIN_LOCK_SECONDS)


@receiver(user_logged_in)
def clear_failures(sender, user, request=None, **kwargs) -> None:
    cache.delete(_key(user.get_username(), client_address(request)))
