"""Project configuration. The Celery app (`config.celery`) is imported only
where Celery is used: by the worker (``celery -A config`` finds it), by
`analysis.tasks` (so its `shared_task`s bind to it, never to Celery's
default) and by `analysis.jobs` when a job is sent to the broker."""
