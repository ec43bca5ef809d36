"""Sign-in throttling that an attacker cannot turn against the account owner.

Failed sign-ins are counted three ways (defaults in brackets, all settings):

- per client address: after `SIGNIN_MAX_FAILURES_PER_ADDRESS` [100] failures
  within `SIGNIN_ADDRESS_WINDOW_SECONDS` [1 h], that address is refused;
- per username + address: after `SIGNIN_MAX_FAILURES` [5] failures within
  `SIGNIN_LOCK_SECONDS` [15 min], that username is refused from that address;
- per username, from any address: after `SIGNIN_USERNAME_SLOW_AFTER` [5]
  failures within `SIGNIN_USERNAME_WINDOW_SECONDS` [1 h], each further attempt
  must wait 1, 2, 4 … seconds (at most `SIGNIN_MAX_DELAY_SECONDS` [60]) after
  the last failure, and the owner is told by e-mail. Never a lock-out: the wait
  is bounded, and addresses the owner signed in from before
  (`SIGNIN_KNOWN_ADDRESS_SECONDS` [30 days]) are not slowed at all.

The client address is `REMOTE_ADDR`, unless that is one of `TRUSTED_PROXIES`
(addresses or networks); then it is the right-most address of
`X-Forwarded-For` that is not a trusted proxy. Without the setting the header
is ignored, so nobody can pick an address by sending it.

Counts live in Django's cache (Redis in production, shared by every web
process); when the cache fails they live in the database
(`accounts.ThrottleCounter`), so a Redis outage never turns sign-in into 500s.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from .models import ThrottleCounter

logger = logging.getLogger(__name__)
_now = time.time  # tests move the clock by replacing this
_last_cache_warning = [0.0]


# --- the client address ------------------------------------------------------


def _networks(entries) -> list:
    networks = []
    for entry in entries or ():
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            logger.warning("TRUSTED_PROXIES: %r is not an address or network", entry)
    return networks


def _is_trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(request) -> str:
    if request is None:
        return "unknown"
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    trusted = _networks(getattr(settings, "TRUSTED_PROXIES", ()))
    if not trusted or not _is_trusted(remote, trusted):
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for hop in reversed([h.strip() for h in forwarded.split(",") if h.strip()]):
        if not _is_trusted(hop, trusted):
            return hop
    return remote


# --- counters: the cache, or the database when the cache is down -------------


def _cache_failed(exc: Exception) -> None:
    if _now() - _last_cache_warning[0] > 60:  # once a minute, not per request
        _last_cache_warning[0] = _now()
        logger.warning("Sign-in throttling falls back to the database: %s", exc)


def _get(key: str) -> int:
    try:
        return int(cache.get(key, 0))
    except Exception as exc:  # any cache backend error: Redis down, timeouts
        _cache_failed(exc)
    row = ThrottleCounter.objects.filter(key=key, expires__gt=timezone.now()).first()
    return row.value if row else 0


def _set(key: str, value: int, timeout: int) -> None:
    try:
        cache.set(key, value, timeout=timeout)
        return
    except Exception as exc:
        _cache_failed(exc)
    ThrottleCounter.objects.update_or_create(
        key=key,
        defaults={
            "value": value,
            "expires": timezone.now() + timedelta(seconds=timeout),
        },
    )


def _incr(key: str, timeout: int) -> int:
    try:
        cache.add(key, 0, timeout=timeout)
        try:
            return cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=timeout)
            return 1
    except Exception as exc:
        _cache_failed(exc)
    now = timezone.now()
    with transaction.atomic():
        ThrottleCounter.objects.filter(expires__lte=now).delete()
        row, _ = ThrottleCounter.objects.select_for_update().get_or_create(
            key=key, defaults={"expires": now + timedelta(seconds=timeout)}
        )
        row.value += 1
        row.save(update_fields=["value"])
        return row.value


def _delete(key: str) -> None:
    try:
        cache.delete(key)
        return
    except Exception as exc:
        _cache_failed(exc)
    ThrottleCounter.objects.filter(key=key).delete()


def _key(kind: str, *parts: str) -> str:
    raw = "|".join(parts).encode()
    return f"signin-{kind}:" + hashlib.sha256(raw).hexdigest()


def _username(username: str) -> str:
    return (username or "").strip().lower()


# --- the checks ----------------------------------------------------------------


def refusal(username: str, request) -> str | None:
    """Why this sign-in attempt must not even be checked, or None."""
    address = client_address(request)
    name = _username(username)
    if _get(_key("address", address)) >= settings.SIGNIN_MAX_FAILURES_PER_ADDRESS:
        minutes = max(1, settings.SIGNIN_ADDRESS_WINDOW_SECONDS // 60)
        return (
            "Too many failed sign-ins from your address; try again in "
            f"{minutes} minutes."
        )
    if _get(_key("pair", name, address)) >= settings.SIGNIN_MAX_FAILURES:
        return (
            "Too many failed sign-ins for this account; try again in "
            f"{lock_minutes()} minutes."
        )
    wait = seconds_to_wait(name, address)
    if wait > 0:
        return (
            "Too many failed sign-ins for this account; wait "
            f"{wait} second{'s' if wait != 1 else ''} and try again."
        )
    return None


def is_locked(username: str, request) -> bool:
    return refusal(username, request) is not None


def lock_minutes() -> int:
    return max(1, settings.SIGNIN_LOCK_SECONDS // 60)


def username_delay(failures: int) -> int:
    """Seconds between attempts after `failures` failed ones (0, 1, 2, 4 …)."""
    over = failures - settings.SIGNIN_USERNAME_SLOW_AFTER
    if over < 0:
        return 0
    return min(settings.SIGNIN_MAX_DELAY_SECONDS, 2 ** min(over, 30))


def seconds_to_wait(username: str, address: str) -> int:
    if _get(_key("known", username, address)):
        return 0
    delay = username_delay(_get(_key("user", username)))
    if delay == 0:
        return 0
    elapsed = _now() - _get(_key("user-last", username))
    return max(0, int(delay - elapsed + 0.999))


@receiver(user_login_failed)
def count_failure(sender, credentials, request=None, **kwargs) -> None:
    address = client_address(request)
    name = _username(str(credentials.get("username", "")))
    _incr(_key("address", address), settings.SIGNIN_ADDRESS_WINDOW_SECONDS)
    _incr(_key("pair", name, address), settings.SIGNIN_LOCK_SECONDS)
    window = settings.SIGNIN_USERNAME_WINDOW_SECONDS
    failures = _incr(_key("user", name), window)
    _set(_key("user-last", name), int(_now()), window)
    if failures == settings.SIGNIN_USERNAME_SLOW_AFTER:
        _notify_owner(name, address)


def _notify_owner(username: str, address: str) -> None:
    user = get_user_model().objects.filter(username__iexact=username).first()
    if user is None or not user.email:
        return
    send_mail(
        "Failed sign-ins to your account",
        f"There were {settings.SIGNIN_USERNAME_SLOW_AFTER} failed sign-ins to your "
        f"account {user.get_username()!r}, the last from {address}. Further "
        "attempts from unfamiliar addresses are slowed down; you can still sign "
        "in. If this was not you, consider changing your password.",
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
        fail_silently=True,
    )


@receiver(user_logged_in)
def clear_failures(sender, user, request=None, **kwargs) -> None:
    address = client_address(request)
    name = _username(user.get_username())
    _delete(_key("pair", name, address))
    _set(_key("known", name, address), 1, settings.SIGNIN_KNOWN_ADDRESS_SECONDS)


# --- sign-up and verification mails --------------------------------------------
# The same counters (cache, else database) bound how many accounts one address
# creates (`SIGNUP_MAX_PER_ADDRESS` per `SIGNUP_ADDRESS_WINDOW_SECONDS`) and how
# many verification mails one account is sent (`EMAIL_VERIFICATION_MAX_SENDS`
# per the same window).


def signup_refusal(request) -> str | None:
    """Why no account may be created from this client address now, or None."""
    address = client_address(request)
    if _get(_key("signup", address)) >= settings.SIGNUP_MAX_PER_ADDRESS:
        hours = max(1, settings.SIGNUP_ADDRESS_WINDOW_SECONDS // 3600)
        return (
            "Too many accounts were created from your address; try again in "
            f"{hours} hour{'s' if hours != 1 else ''}, or ask the registry's staff."
        )
    return None


def count_signup(request) -> None:
    _incr(
        _key("signup", client_address(request)),
        settings.SIGNUP_ADDRESS_WINDOW_SECONDS,
    )


def take_verification_send(username: str) -> bool:
    """Count one verification mail to `username`; False past the limit."""
    sent = _incr(
        _key("verify-mail", _username(username)),
        settings.SIGNUP_ADDRESS_WINDOW_SECONDS,
    )
    return sent <= settings.EMAIL_VERIFICATION_MAX_SENDS
