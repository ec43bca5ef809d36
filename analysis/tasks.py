"""Celery entry point: every background job goes through one task."""

from celery import shared_task

from .jobs import run_job


@shared_task(
    name="analysis.run_job",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=True,
    max_retries=3,
)
def run_job_task(path: str, *args) -> None:
    run_job(path, *args)
