"""Project configuration; the Celery app is loaded with Django so that
`shared_task`s (analysis.tasks) always bind to it, never to Celery's default."""

from .celery import app as celery_app

__all__ = ["celery_app"]
