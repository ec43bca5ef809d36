"""On PostgreSQL, refuse changes to a registered challenge's design in the database.

The models already refuse them (`registry.lock`); these triggers also stop raw
SQL, the shell with `.update()` on another manager, and anything else that
bypasses the ORM. Only `approve_amendment` opens the door, by setting the
transaction-local `registry.amending` to `on` around the changes it applies.
Rows that only change bookkeeping (`updated`, `updated_by`) pass, so deleting
a user (SET NULL) still works.
"""

from django.db import migrations

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION registry_amending() RETURNS boolean AS $$
    SELECT coalesce(current_setting('registry.amending', true), '') = 'on';
$$ LANGUAGE sql STABLE;

CREATE OR REPLACE FUNCTION registry_challenge_registered(challenge bigint)
RETURNS boolean AS $$
    SELECT EXISTS (
        SELECT 1 FROM registry_challenge WHERE id = challenge AND status = 'registered'
    );
$$ LANGUAGE sql STABLE;

CREATE OR REPLACE FUNCTION registry_refuse_registered_change() RETURNS void AS $$
BEGIN
    RAISE EXCEPTION 'registered design: it changes only through an approved amendment'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_answer_lock() RETURNS trigger AS $$
BEGIN
    IF registry_amending() THEN
        RETURN COALESCE(NEW, OLD);
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF (NEW.value, NEW.not_applicable, NEW.number, NEW.task_id, NEW.challenge_id)
           IS NOT DISTINCT FROM
           (OLD.value, OLD.not_applicable, OLD.number, OLD.task_id, OLD.challenge_id)
        THEN
            RETURN NEW;
        END IF;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF registry_challenge_registered(OLD.challenge_id) THEN
            PERFORM registry_refuse_registered_change();
        END IF;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        IF registry_challenge_registered(NEW.challenge_id) THEN
            PERFORM registry_refuse_registered_change();
        END IF;
    END IF;
    RETURN COALESCE(NEW, OLD);
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_task_lock() RETURNS trigger AS $$
BEGIN
    IF registry_amending() THEN
        RETURN COALESCE(NEW, OLD);
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF (NEW.name, NEW.position, NEW.scheme, NEW.challenge_id)
           IS NOT DISTINCT FROM (OLD.name, OLD.position, OLD.scheme, OLD.challenge_id)
        THEN
            RETURN NEW;
        END IF;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF registry_challenge_registered(OLD.challenge_id) THEN
            PERFORM registry_refuse_registered_change();
        END IF;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        IF registry_challenge_registered(NEW.challenge_id) THEN
            PERFORM registry_refuse_registered_change();
        END IF;
    END IF;
    RETURN COALESCE(NEW, OLD);
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION registry_challenge_lock() RETURNS trigger AS $$
BEGIN
    IF OLD.status = 'registered' AND NOT registry_amending()
       AND (NEW.name, NEW.planning, NEW.call_id)
           IS DISTINCT FROM (OLD.name, OLD.planning, OLD.call_id)
    THEN
        PERFORM registry_refuse_registered_change();
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

TRIGGERS = (
    ("registry_answer", "registry_answer_lock", "INSERT OR UPDATE OR DELETE"),
    ("registry_task", "registry_task_lock", "INSERT OR UPDATE OR DELETE"),
    ("registry_challenge", "registry_challenge_lock", "UPDATE"),
)


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTIONS, params=None)
    for table, function, events in TRIGGERS:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_registered_lock BEFORE {events} ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}();"
        )


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, function, _ in TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_registered_lock ON {table};")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {function}();")
    for function in (
        "registry_refuse_registered_change()",
        "registry_challenge_registered(bigint)",
        "registry_amending()",
    ):
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {function};")


class Migration(migrations.Migration):
    dependencies = [("registry", "0005_registration_search_trigram")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
