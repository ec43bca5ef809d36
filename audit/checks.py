"""`manage.py check --deploy --database default` warns when the application's
PostgreSQL role could rewrite the record (it owns the tables or is a superuser)."""

from django.core.checks import Tags, Warning, register
from django.db import DatabaseError

from .roles import ownership_problems


@register(Tags.database, deploy=True)
def check_application_role(app_configs, databases=None, **kwargs):
    if not databases or "default" not in databases:
        return []
    try:
        problems = ownership_problems()
    except DatabaseError:
        return []  # an unreachable database is reported elsewhere
    return [
        Warning(
            f"{problem}: it can disable the append-only triggers and rewrite "
            "the registrations and the audit log unseen.",
            hint="Connect as a role that owns nothing and run the migrations "
            "as the owner (docs/operations.md, 'Two database roles').",
            id="audit.W001",
        )
        for problem in problems
    ]
