"""Celery application; used only when CELERY_BROKER_URL is configured."""

import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("registry")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["analysis"])


@worker_ready.connect
def _beat_while_alive(sender=None, **kwargs) -> None:
    """A file the web's /ready/ reads: the age of the newest worker's beat."""
    from config.health import start_worker_beat

    start_worker_beat(getattr(sender, "hostname", "worker"))
