"""Celery entry points: every background job goes through `analysis.run_job`
(the job's registered name and its arguments; see `analysis.jobs`)."""

from celery import shared_task
from django.db import InterfaceError, OperationalError, close_old_connections

import config.celery  # noqa: F401 - the app these shared tasks bind to

from . import services  # noqa: F401 - registers the analysis jobs
from .jobs import RetryLater, run_job

# A database that is restarting or a broker hiccup: try again with backoff.
TRANSIENT = (OperationalError, InterfaceError, ConnectionError)


@shared_task(
    name="analysis.run_job",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT,
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=8,
)
def run_job_task(self, name: str, *args) -> None:
    try:
        run_job(name, *args)
    except RetryLater as retry:
        close_old_connections()
        raise self.retry(countdown=retry.delay, max_retries=None) from None
    except TRANSIENT:
        close_old_connections()  # the next attempt opens a fresh connection
        raise


@shared_task(name="analysis.run_chunk", acks_late=True, reject_on_worker_lost=True)
def run_chunk_task(*args) -> None:
    """Messages queued before jobs went through `analysis.run_job`."""
    run_job("analysis.services.run_chunk", *args)
