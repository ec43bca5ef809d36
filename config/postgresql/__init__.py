"""Django's PostgreSQL backend, with a bounded health check (see base.py)."""
