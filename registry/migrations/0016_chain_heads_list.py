"""The published chain-heads lists (`registry.chain_heads`), append-only.

On PostgreSQL the table gets the triggers of the registrations: UPDATE and
DELETE (0003's `registry_refuse_change`) and TRUNCATE (0015's
`registry_refuse_truncate`) are refused.
"""

from django.db import migrations, models

TABLE = "registry_chainheadslist"


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
        "FOR EACH ROW EXECUTE FUNCTION registry_refuse_change();"
    )
    schema_editor.execute(
        f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
        "FOR EACH STATEMENT EXECUTE FUNCTION registry_refuse_truncate();"
    )


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE};")
    schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_no_truncate ON {TABLE};")


class Migration(migrations.Migration):

    dependencies = [
        ('registry', '0015_registration_refuse_truncate'),
    ]

    operations = [
        migrations.CreateModel(
            name='ChainHeadsList',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField(unique=True)),
                ('text', models.TextField()),
                ('sha256', models.CharField(max_length=64, unique=True)),
                ('created', models.DateTimeField()),
            ],
            options={
                'ordering': ['number'],
            },
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
