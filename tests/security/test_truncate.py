"""Attack: empty the append-only tables with TRUNCATE (issue 30).

Row triggers never see TRUNCATE; on PostgreSQL a statement trigger now refuses
it on the audit log and on the registrations and their versions. (The
application should also connect as a role that does not own the tables, so it
cannot disable the triggers either: see docs/security.md.)
"""

import pytest
from django.db import connection

from audit.services import record
from tests.records import assert_sql_refused

pytestmark = pytest.mark.django_db


@pytest.mark.postgres
def test_postgres_refuses_truncate_of_the_record(registration, chair):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    record(actor=chair, action="x.y", target=chair)
    with connection.cursor() as cursor:  # no pending FK checks block TRUNCATE
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        # as a production connection: only the test settings allow the flush
        cursor.execute("SET LOCAL registry.test_flush = 'off'")
    assert_sql_refused(
        "TRUNCATE of audit_auditevent is refused",
        "TRUNCATE audit_auditevent",
    )
    assert_sql_refused(
        "TRUNCATE of registry_registrationversion is refused",
        "TRUNCATE registry_registrationversion CASCADE",
    )
    assert_sql_refused(
        "TRUNCATE of registry_registration is refused",
        "TRUNCATE registry_registration CASCADE",
    )
    assert_sql_refused(
        "TRUNCATE of registry_chainheadslist is refused",
        "TRUNCATE registry_chainheadslist",
    )


@pytest.mark.postgres
@pytest.mark.parametrize(
    "migration",
    [
        "registry.migrations.0017_test_flush_only_in_test_databases",
        "audit.migrations.0005_test_flush_only_in_test_databases",
    ],
)
def test_the_test_flush_setting_opens_nothing_outside_a_test_database(migration):
    """Any role can set ``registry.test_flush``: in a database not named as
    Django's test databases are, the TRUNCATE triggers ignore it."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    import importlib

    import psycopg
    from psycopg import sql

    function_sql = importlib.import_module(migration).CREATE_FUNCTION
    function = importlib.import_module(migration).FUNCTION
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    scratch = f"flushcheck_{connection.settings_dict['NAME']}"[:63]
    admin = psycopg.connect(**{**params, "dbname": "postgres"}, autocommit=True)
    try:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(scratch))
        )
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(scratch)))
        with psycopg.connect(**{**params, "dbname": scratch}, autocommit=True) as db:
            db.execute(function_sql)
            db.execute("CREATE TABLE kept (x int)")
            db.execute(
                f"CREATE TRIGGER kept_no_truncate BEFORE TRUNCATE ON kept "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
            db.execute("SET registry.test_flush = 'on'")
            with pytest.raises(psycopg.errors.IntegrityConstraintViolation):
                db.execute("TRUNCATE kept")
    finally:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(scratch))
        )
        admin.close()
