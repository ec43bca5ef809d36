"""On PostgreSQL, audit events are append-only in the database too.

UPDATE and DELETE are refused, except the one update Django itself makes when a
user is deleted: `actor` set to NULL (the event keeps `actor_name`).
"""

from django.db import migrations

CREATE_FUNCTION = r"""
CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.actor_id IS NULL
       AND (NEW.id, NEW.actor_name, NEW.action, NEW.target_type, NEW.target_id,
            NEW.details, NEW.created)
           IS NOT DISTINCT FROM
           (OLD.id, OLD.actor_name, OLD.action, OLD.target_type, OLD.target_id,
            OLD.details, OLD.created)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit events are append-only (% on %)', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE_FUNCTION, params=None)
    schema_editor.execute(
        "CREATE TRIGGER audit_auditevent_append_only BEFORE UPDATE OR DELETE "
        "ON audit_auditevent FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();"
    )


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "DROP TRIGGER IF EXISTS audit_auditevent_append_only ON audit_auditevent;"
    )
    schema_editor.execute("DROP FUNCTION IF EXISTS audit_refuse_change();")


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_audit_events")]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]
