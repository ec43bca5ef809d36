"""Two PostgreSQL roles: the owner runs the migrations, the application only
reads and writes rows (docs/operations.md "Two database roles").

A role that owns the tables can disable their append-only triggers, drop the
actor check or TRUNCATE; the application's role owns nothing and has no
TRUNCATE, REFERENCES or TRIGGER privilege, so the record's triggers and
constraints hold against it (tests/security/test_two_roles.py).
"""

from __future__ import annotations

from django.db import connection

# Row access only: no TRUNCATE, REFERENCES or TRIGGER.
TABLE_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"
SEQUENCE_PRIVILEGES = "USAGE, SELECT"


class RoleError(ValueError):
    """The role cannot serve as the application's role."""


def grant_statements(role: str, schema: str) -> list[str]:
    """The SQL that gives `role` row access to every table of `schema`, now and
    for the tables the current (owner) role creates later."""
    r, s = connection.ops.quote_name(role), connection.ops.quote_name(schema)
    return [
        f"GRANT USAGE ON SCHEMA {s} TO {r}",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM {r}",
        f"GRANT {TABLE_PRIVILEGES} ON ALL TABLES IN SCHEMA {s} TO {r}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {r}",
        f"GRANT {SEQUENCE_PRIVILEGES} ON ALL SEQUENCES IN SCHEMA {s} TO {r}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {s} "
        f"GRANT {TABLE_PRIVILEGES} ON TABLES TO {r}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {s} "
        f"GRANT {SEQUENCE_PRIVILEGES} ON SEQUENCES TO {r}",
    ]


def grant_application_role(role: str) -> list[str]:
    """Give `role` row access to this database's tables (run as their owner);
    the statements run, in order. Refused for the current role, a superuser
    and a role that owns tables here."""
    if connection.vendor != "postgresql":
        raise RoleError("database roles are a PostgreSQL matter")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, current_schema(), r.rolsuper, "
            "(SELECT count(*) FROM pg_tables t WHERE t.tableowner = r.rolname) "
            "FROM pg_roles r WHERE r.rolname = %s",
            [role],
        )
        found = cursor.fetchone()
        if found is None:
            raise RoleError(f"no role {role!r}: CREATE ROLE it first")
        current, schema, superuser, owned = found
        if role == current:
            raise RoleError(
                f"{role!r} is the role running this command (the owner): the "
                "application needs another role"
            )
        if superuser or owned:
            what = "is a superuser" if superuser else f"owns {owned} table(s)"
            raise RoleError(
                f"{role!r} {what}: it could disable the append-only triggers"
            )
        statements = grant_statements(role, schema)
        for statement in statements:
            cursor.execute(statement)
    return statements


def ownership_problems() -> list[str]:
    """Why the current connection's role could rewrite the record (empty when
    it is a role that owns none of the tables and is no superuser)."""
    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        [superuser] = cursor.fetchone()
        cursor.execute(
            "SELECT count(*) FROM pg_tables WHERE tableowner = current_user "
            "AND tablename IN ('audit_auditevent', 'registry_registrationversion')"
        )
        [owned] = cursor.fetchone()
    problems = []
    if superuser:
        problems.append("the application's database role is a superuser")
    if owned:
        problems.append("the application's database role owns the record's tables")
    return problems
