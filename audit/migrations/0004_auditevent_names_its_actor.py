"""Every audit event names its actor, in the database too (issue 30: rows with
``actor_id = NULL`` and no name had been inserted with raw SQL).

A CHECK constraint, on SQLite and PostgreSQL, refuses an event whose
``actor_name`` is empty or blank: a username (kept when the user goes, so an
event with an actor id names it too), or the ``(system)`` / ``(anonymous)``
marker.

Events written before `record` named every actor can have an empty name:

- PostgreSQL adds the constraint ``NOT VALID`` (every new or changed row is
  checked, the stored ones are not rewritten) and validates it at once when no
  stored row breaks it, which is the case unless such old events exist;
- SQLite rebuilds the table to add a constraint, which every copied row must
  pass, so the old empty names become ``(unrecorded)`` first (SQLite has no
  append-only trigger, and is for development).
"""

from django.db import migrations, models
from django.db.models.functions import Length, Trim
from django.db.models.lookups import GreaterThan

NAME = "audit_event_names_its_actor"
UNRECORDED = "(unrecorded)"

CONSTRAINT = models.CheckConstraint(
    condition=models.Q(GreaterThan(Length(Trim("actor_name")), 0)),
    name=NAME,
    violation_error_message=(
        "An audit event needs its actor's name or the system marker."
    ),
)


def name_the_unnamed(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        events = apps.get_model("audit", "AuditEvent").objects
        events.filter(actor_name__regex=r"^\s*$").update(actor_name=UNRECORDED)


class AddConstraintNotValidOnPostgres(migrations.AddConstraint):
    """`AddConstraint`; on PostgreSQL ``NOT VALID``, then validated if it holds."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
            return
        table = to_state.apps.get_model(app_label, self.model_name)._meta.db_table
        schema_editor.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {NAME} "
            "CHECK (length(btrim(actor_name)) > 0) NOT VALID"
        )
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                f"SELECT count(*) FROM {table} WHERE length(btrim(actor_name)) = 0"
            )
            [unnamed] = cursor.fetchone()
        if not unnamed:
            schema_editor.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {NAME}")


class Migration(migrations.Migration):
    dependencies = [("audit", "0003_refuse_truncate")]

    operations = [
        migrations.RunPython(name_the_unnamed, migrations.RunPython.noop),
        AddConstraintNotValidOnPostgres(model_name="auditevent", constraint=CONSTRAINT),
    ]
