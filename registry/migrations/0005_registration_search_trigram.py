"""On PostgreSQL, trigram indexes for the public registration search.

`RegistrationList` filters with `icontains` on the identifier, the challenge
name and the canonical design text, which PostgreSQL runs as
`UPPER(col) LIKE UPPER('%text%')`; GIN trigram indexes on those expressions let
it skip the sequential scan. Other backends keep the plain scan. pg_trgm is a
trusted extension (PostgreSQL ≥ 13): the database owner may create it.
"""

from django.db import migrations

INDEXES = (
    ("registry_registration_identifier_trgm", "registry_registration", "identifier"),
    ("registry_challenge_name_trgm", "registry_challenge", "name"),
    (
        "registry_registrationversion_canonical_trgm",
        "registry_registrationversion",
        "canonical",
    ),
)


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm;")
    for name, table, column in INDEXES:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} "
            f"USING gin (UPPER({column}) gin_trgm_ops);"
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _, _ in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name};")


class Migration(migrations.Migration):
    dependencies = [("registry", "0004_listing_indexes")]

    operations = [migrations.RunPython(create_indexes, drop_indexes)]
