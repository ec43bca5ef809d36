"""Background jobs on an existing queue.

With `CELERY_BROKER_URL` set, jobs go to Celery (Redis here); without it they
run in a daemon thread of the web process, so the demo needs no services. Tests
run them at once, inside the caller's transaction (`JOBS_SYNCHRONOUS`).
Otherwise jobs start only after the transaction that created their row commits.
"""

from __future__ import annotations

import importlib
import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection, transaction

logger = logging.getLogger(__name__)


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def run_job(path: str, *args) -> None:
    """Run the job function at dotted `path` (used by every backend)."""
    _resolve(path)(*args)


def _run_in_thread(path: str, *args) -> None:
    try:
        close_old_connections()
        run_job(path, *args)
    except Exception:  # the job records its own failure; never kill the server
        logger.exception("background job %s%r failed", path, args)
    finally:
        connection.close()


def uses_celery() -> bool:
    """Whether jobs go to Celery (a broker is configured and tests are not
    running jobs synchronously)."""
    return bool(settings.CELERY_BROKER_URL) and not getattr(
        settings, "JOBS_SYNCHRONOUS", False
    )


def enqueue(path: str, *args) -> None:
    """Start `path(*args)` in the background once the current transaction commits."""
    if getattr(settings, "JOBS_SYNCHRONOUS", False):
        run_job(path, *args)  # tests: inside the caller's transaction, at once
    elif settings.CELERY_BROKER_URL:
        from .tasks import run_job_task

        transaction.on_commit(lambda: run_job_task.delay(path, *args))
    else:
        transaction.on_commit(
            lambda: threading.Thread(
                target=_run_in_thread,
                args=(path, *args),
                daemon=True,
                name=f"job:{path}",
            ).start()
        )
