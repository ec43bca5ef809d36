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
