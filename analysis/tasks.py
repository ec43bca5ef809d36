"""Celery entry points: every background job goes through `analysis.run_job`;
the chunks of a large analysis's bootstrap through `analysis.run_chunk`."""

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


@shared_task(
    name="analysis.run_chunk",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=True,
    max_retries=3,
)
def run_chunk_task(
    run_id: int, group: int, key: str, task: str, first_block: int, stop_block: int
) -> None:
    """One chunk of a run's bootstrap; the payload names it, the worker loads
    the results from the database. Idempotent (a redelivered chunk is skipped
    or recomputes the same numbers)."""
    from .services import run_chunk

    run_chunk(run_id, group, key, task, first_block, stop_block)
