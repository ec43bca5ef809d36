"""The TRUNCATE triggers let a connection through with ``registry.test_flush``
only in a test database (named ``test_…`` by Django's test runner): any role
can set a custom setting, so in a production database the setting alone would
have been a way around the triggers for a single-role deployment."""

from django.db import migrations

FUNCTION = "audit_refuse_truncate"

CREATE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger AS $$
BEGIN
    -- Django's test flush empties every table with TRUNCATE; the test
    -- settings' connections set registry.test_flush, honoured only in a test
    -- database.
    IF current_setting('registry.test_flush', true) = 'on'
       AND current_database() LIKE 'test\\_%' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'append-only: TRUNCATE of % is refused', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""

PREVIOUS_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger AS $$
BEGIN
    IF current_setting('registry.test_flush', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'append-only: TRUNCATE of % is refused', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def replace(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)  # "%" is plpgsql

    return run


class Migration(migrations.Migration):
    dependencies = [("audit", "0004_auditevent_names_its_actor")]

    operations = [
        migrations.RunPython(replace(CREATE_FUNCTION), replace(PREVIOUS_FUNCTION))
    ]
