"""Health of the site for the orchestrator and the operator.

``GET /health/`` (liveness): the process answers; touches nothing else.
``GET /ready/`` (readiness): database, cache, job queue (broker), media storage
writable, and the age of the newest worker heartbeat. Only the database and the
media storage are required (503 without them): without Redis the site keeps
serving (no page cache, jobs wait in the database), so it reports "degraded".
The checks run at once, each in a thread; a server that does not answer within
``READY_CHECK_SECONDS`` (hung, not stopped) fails its check with that reason, so
``/ready/`` answers within that bound whatever hangs.

Cache failures anywhere are counted here (per process) and logged at most once
a minute (:func:`cache_failed`).
"""

from __future__ import annotations

import functools
import logging
import tempfile
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.bounded import NoAnswerError, result_within, start_call

logger = logging.getLogger(__name__)

LOG_EVERY = 60.0  # seconds between two log lines about the cache
WORKER_BEAT_SECONDS = 10.0

_lock = threading.Lock()
_cache_errors = {"count": 0, "last_logged": 0.0, "last_error": ""}


def cache_failed(exc: Exception, where: str) -> None:
    """Count a cache error; log it, at most once a minute per process."""
    now = time.monotonic()
    with _lock:
        _cache_errors["count"] += 1
        _cache_errors["last_error"] = f"{where}: {type(exc).__name__}: {exc}"
        if now - _cache_errors["last_logged"] < LOG_EVERY:
            return
        _cache_errors["last_logged"] = now
        count = _cache_errors["count"]
    logger.warning(
        "cache unavailable (%s: %s); serving without it (%d errors so far)",
        where,
        exc,
        count,
    )


def cache_error_count() -> int:
    return _cache_errors["count"]


# --- worker heartbeat (written by Celery workers, read by /ready/) ------------


def worker_beat_dir() -> Path:
    return Path(getattr(settings, "JOBS_HEALTH_DIR", "") or settings.MEDIA_ROOT) / (
        ".health"
    )


def start_worker_beat(hostname: str) -> None:
    """Touch ``.health/worker-<hostname>`` every few seconds (a daemon thread)."""
    path = worker_beat_dir() / f"worker-{hostname}"

    def beat() -> None:
        while True:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
            except OSError as exc:  # a full disk must not stop the worker
                logger.warning("worker heartbeat file %s: %s", path, exc)
            time.sleep(WORKER_BEAT_SECONDS)

    threading.Thread(target=beat, daemon=True, name="worker-beat").start()


def worker_heartbeat_age() -> float | None:
    """Seconds since the newest worker heartbeat, None when none was seen."""
    try:
        times = [p.stat().st_mtime for p in worker_beat_dir().glob("worker-*")]
    except OSError:
        return None
    return round(time.time() - max(times), 1) if times else None


# --- checks -------------------------------------------------------------------


def _timed(check) -> dict:
    start = time.monotonic()
    try:
        result = check() or {}
        ok = result.pop("ok", True)
    except Exception as exc:  # a check reports, it never raises
        result, ok = {"error": f"{type(exc).__name__}: {exc}"}, False
    return {"ok": ok, "ms": round(1000 * (time.monotonic() - start), 1), **result}


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _cache() -> dict:
    cache.set("health:ready", "1", 10)
    ok = cache.get("health:ready") == "1"
    return {"ok": ok, "errors_counted": cache_error_count()}


def _broker() -> dict:
    url = settings.CELERY_BROKER_URL
    if not url:
        return {"ok": True, "detail": "no broker: jobs run in the web process"}
    from kombu import Connection

    # bounded as a whole by READY_CHECK_SECONDS; these free the socket sooner
    options = {"socket_timeout": 1, "socket_connect_timeout": 1}
    with Connection(url, connect_timeout=1, transport_options=options) as broker:
        broker.ensure_connection(max_retries=1)
    return {}


def _media() -> None:
    root = Path(settings.MEDIA_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=root, prefix=".ready-") as probe:
        probe.write(b"ok")
        probe.flush()


def _worker() -> dict:
    age = worker_heartbeat_age()
    if not settings.CELERY_BROKER_URL:
        return {"ok": True, "heartbeat_age_seconds": None}
    return {
        "ok": age is not None and age < 3 * WORKER_BEAT_SECONDS,
        "heartbeat_age_seconds": age,
    }


REQUIRED = ("database", "media")
CHECKS = {
    "database": _database,
    "cache": _cache,
    "broker": _broker,
    "media": _media,
    "worker": _worker,
}


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _run_checks(seconds: float) -> dict[str, dict]:
    """Every check at once, each in its own thread; one that has not answered
    within ``seconds`` of the start (a hung server) fails with that reason."""
    started = time.monotonic()
    pending = {
        name: start_call(functools.partial(_timed, check), name=f"ready:{name}")
        for name, check in CHECKS.items()
    }
    checks = {}
    for name, future in pending.items():
        try:
            checks[name] = result_within(future, started + seconds - time.monotonic())
        except NoAnswerError:
            elapsed = round(1000 * (time.monotonic() - started), 1)
            error = f"no answer within {seconds:g} s"
            checks[name] = {"ok": False, "ms": elapsed, "error": error}
    return checks


@never_cache
@require_GET
def ready(request: HttpRequest) -> JsonResponse:
    checks = _run_checks(settings.READY_CHECK_SECONDS)
    if not all(checks[name]["ok"] for name in REQUIRED):
        state, code = "unavailable", 503
    elif all(check["ok"] for check in checks.values()):
        state, code = "ok", 200
    else:
        state, code = "degraded", 200
    return JsonResponse({"status": state, "checks": checks}, status=code)
