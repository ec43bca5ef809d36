"""Background jobs on an existing queue: one registry of job functions.

A job function is registered with :func:`job` under a stable name and started
with ``enqueue(function, *args)``; the queue carries only the name and the
arguments. The name is ``module.function``: a job's module is imported when one
of its jobs first runs, so no app imports its job modules at start-up (a
command that runs no job pays nothing for them). With `CELERY_BROKER_URL` set,
jobs go to Celery (Redis here) by task *name*, so this module imports neither
`tasks` nor the job modules (no import cycle), and Celery itself only when a job
is sent; without a broker they run in a daemon thread of the web process, so the
demo needs no services. Tests run them at once, inside the caller's transaction
(`JOBS_SYNCHRONOUS`). Otherwise jobs start only after the transaction that
created their row commits.

A job that meets a passing problem (the database restarting) raises
:class:`RetryLater`; every backend runs it again after the delay it names.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, transaction

from config.bounded import call_within

logger = logging.getLogger(__name__)

CELERY_TASK = "analysis.run_job"  # the one Celery task every job goes through

JobFunction = Callable[..., None]
_REGISTRY: dict[str, JobFunction] = {}


class RetryLater(Exception):  # noqa: N818 - an instruction, not an error
    """Raised by a job to be run again, with the same arguments, after `delay` s."""

    def __init__(self, delay: float, reason: str):
        super().__init__(reason)
        self.delay = delay


def job(function: JobFunction) -> JobFunction:
    """Register `function` as a job under ``module.name`` (its queue name)."""
    name = f"{function.__module__}.{function.__qualname__}"
    _REGISTRY[name] = function
    function.job_name = name
    return function


def job_name(function: JobFunction) -> str:
    name = getattr(function, "job_name", None)
    if _REGISTRY.get(name) is not function:
        raise ValueError(f"{function!r} is not a registered job (decorate with @job).")
    return name


def registered_jobs() -> dict[str, JobFunction]:
    return dict(_REGISTRY)


def _import_job_module(name: str) -> None:
    """Import the module that registers job `name` (``module.function``), if
    it belongs to an installed app; names from elsewhere import nothing."""
    from django.apps import apps

    module = name.rpartition(".")[0]
    if not any(
        module == app.name or module.startswith(f"{app.name}.")
        for app in apps.get_app_configs()
    ):
        return
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not f"{module}.".startswith(f"{exc.name}."):
            raise  # the job module exists; something it imports is missing


def resolve_job(name: str) -> JobFunction:
    """The registered job `name`, its module imported on first use."""
    if name not in _REGISTRY:
        _import_job_module(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(
            f"No job named {name!r}; known jobs: {sorted(_REGISTRY)}."
        ) from None


def run_job(name: str, *args, **in_process: Any) -> None:
    """Run the registered job `name` (used by every backend; only the
    in-process ones pass `in_process`, see :func:`enqueue`)."""
    resolve_job(name)(*args, **in_process)


def uses_celery() -> bool:
    """Whether jobs go to Celery (a broker is configured and tests are not
    running jobs synchronously)."""
    return bool(settings.CELERY_BROKER_URL) and not getattr(
        settings, "JOBS_SYNCHRONOUS", False
    )


def _celery_app():
    from config.celery import app  # the app only; it imports no job module

    return app


def publish(name: str, *args, countdown: float | None = None) -> bool:
    """Send one job message to the broker now; False when the broker is down
    or has not taken it within ``JOBS_PUBLISH_SECONDS`` (hung; logged; the
    watchdog sends it again later, and a job that arrives twice runs once)."""

    def send() -> None:
        _celery_app().send_task(
            CELERY_TASK, args=(name, *args), countdown=countdown, retry=False
        )

    try:
        call_within(settings.JOBS_PUBLISH_SECONDS, send, name=f"publish:{name}")
    except Exception:  # kombu/redis connection errors, no answer: the queue is down
        logger.warning("job queue unreachable; %s%r waits for it", name, args)
        return False
    return True


def publish_many(function: JobFunction, arg_lists: list[tuple]) -> None:
    """Send one message per argument tuple (e.g. the chunks of a run), spread
    over all workers, once the current transaction commits."""
    name = job_name(function)
    transaction.on_commit(lambda: [publish(name, *args) for args in arg_lists])


def _run_in_thread(name: str, *args, **in_process: Any) -> None:
    try:
        close_old_connections()
        run_job(name, *args, **in_process)
    except RetryLater as retry:
        threading.Timer(
            retry.delay, _run_in_thread, args=(name, *args), kwargs=in_process
        ).start()
    except Exception:  # the job records its own failure; never kill the server
        logger.exception("background job %s%r failed", name, args)
    finally:
        connection.close()


def _start_thread(name: str, *args, **in_process: Any) -> None:
    threading.Thread(
        target=_run_in_thread,
        args=(name, *args),
        kwargs=in_process,
        daemon=True,
        name=f"job:{name}",
    ).start()


def _run_now(
    name: str, args: tuple, in_process: Mapping[str, Any], retries_left: int = 10
) -> None:
    """Tests: at once, inside the caller's transaction (retries without delay)."""
    try:
        run_job(name, *args, **in_process)
    except RetryLater:
        if retries_left <= 0:
            raise
        _run_now(name, args, in_process, retries_left - 1)


def enqueue(
    function: JobFunction,
    *args,
    on_sent: Callable[[bool], None] | None = None,
    in_process: Mapping[str, Any] | None = None,
) -> None:
    """Start ``function(*args)`` in the background once the current transaction
    commits. ``on_sent(ok)`` learns whether the job reached its queue (False:
    the broker is down; nothing is lost, the caller's row stays queued).

    ``in_process``: keyword arguments the job gets only when it runs in this
    process (objects the caller already has in memory, such as the results
    table it has just read); a job sent to Celery runs elsewhere and gets only
    ``args``, so it must be able to do without them.
    """
    name = job_name(function)
    in_process = dict(in_process or {})
    if getattr(settings, "JOBS_SYNCHRONOUS", False):
        if on_sent is not None:
            on_sent(True)
        _run_now(name, args, in_process)
        return

    def send() -> None:
        if settings.CELERY_BROKER_URL:
            ok = publish(name, *args)
            if on_sent is not None:
                on_sent(ok)
            return
        # in-process: the outcome is known, so record it before the thread
        # starts writing (SQLite's in-memory test database refuses two writers)
        if on_sent is not None:
            on_sent(True)
        _start_thread(name, *args, **in_process)

    transaction.on_commit(send)
