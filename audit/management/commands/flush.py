"""Django's ``flush``, let past the SQLite triggers of the record only where
``RECORD_FLUSH_ALLOWED`` is set (the test settings: Django's test flush
empties every table with DELETE FROM on SQLite). Elsewhere a flush of a
database holding registrations or audit events is refused, as TRUNCATE is on
PostgreSQL; ``manage.py restore`` lifts the guard itself."""

from contextlib import nullcontext

from django.conf import settings
from django.core.management.commands import flush
from django.db import connections

from audit.record_guard import record_guard_lifted


class Command(flush.Command):
    def handle(self, **options):
        connection = connections[options["database"]]
        allowed = settings.RECORD_FLUSH_ALLOWED
        with record_guard_lifted(connection) if allowed else nullcontext():
            return super().handle(**options)
