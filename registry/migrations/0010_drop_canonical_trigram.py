"""Drop the trigram index on the canonical text of registration versions.

Created by 0005 for `icontains` searches over the canonical JSON; the public
search now runs on `RegistrationListing` (full-text vector, facets, unique
identifier: 0006/0007) and nothing queries `UPPER(canonical)` any more. The
index cost ~5 ms per registered version (a 15 KB document yields thousands of
trigrams) and ~6 KB per version on disk. The trigram indexes on identifiers
and challenge names stay (the admin searches names).
"""

from django.db import migrations

INDEX = "registry_registrationversion_canonical_trgm"


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX};")


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON registry_registrationversion "
            "USING gin (UPPER(canonical) gin_trgm_ops);"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0009_merge_0006_edit_versions_0008_merge_20261124_0047")
    ]

    operations = [migrations.RunPython(drop_index, create_index)]
