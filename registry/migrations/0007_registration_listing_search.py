"""Listings for the registrations made before 0006, and (PostgreSQL) the GIN index.

The listing of a registration is derived from its latest version's canonical
document by `registry.search.listing_facts` (a pure function of the document),
so the backfill writes exactly what `write_listing` writes for new versions.
"""

import json

from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.db import migrations

GIN_INDEX = "registry_listing_vector_gin"


def backfill(apps, schema_editor):
    from registry.search import _facets, listing_facts

    Registration = apps.get_model("registry", "Registration")
    Version = apps.get_model("registry", "RegistrationVersion")
    Listing = apps.get_model("registry", "RegistrationListing")
    Facet = apps.get_model("registry", "RegistrationFacet")
    for registration in Registration.objects.order_by("pk").iterator():
        version = (
            Version.objects.filter(registration=registration)
            .order_by("-number")
            .first()
        )
        if version is None:
            continue
        facts = listing_facts(json.loads(version.canonical))
        listing = Listing.objects.create(
            registration=registration,
            latest=version,
            identifier=registration.identifier,
            name=facts.name[:300],
            call_id=registration.call_id,
            registered=registration.created,
            year=registration.created.year,
            task_count=facts.task_count,
            version_number=version.number,
            post_hoc=version.post_hoc,
            categories=list(facts.categories),
            modalities=list(facts.modalities),
            text=facts.text,
        )
        Facet.objects.bulk_create(
            Facet(listing=listing, kind=kind, value=value)
            for kind, value in _facets(facts)
        )
    if schema_editor.connection.vendor == "postgresql":
        config = settings.REGISTRY_SEARCH_CONFIG
        Listing.objects.update(
            vector=SearchVector("identifier", "name", weight="A", config=config)
            + SearchVector("text", weight="B", config=config)
        )


def create_gin_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON registry_registrationlisting "
            "USING gin (vector);"
        )


def drop_gin_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {GIN_INDEX};")


class Migration(migrations.Migration):
    dependencies = [("registry", "0006_registration_listing")]

    operations = [
        migrations.RunPython(create_gin_index, drop_gin_index),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
