"""Freeze the creators (names, ORCID iDs, institutions) of every registered
version with the version, backfilled from today's profiles, and make the rows
append-only on PostgreSQL like the versions themselves."""

import json

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

TABLE = "publicrecord_frozencitation"


def creators(organizers, users, orcids):
    # publicrecord.citation.creators_now, on the historical models
    result = []
    for organizer in organizers:
        username = organizer["username"]
        given, family = users.get(username, ("", ""))
        given, family = given.strip(), family.strip()
        result.append(
            {
                "name": f"{family}, {given}" if given and family else family or username,
                "given": given,
                "family": family,
                "orcid": orcids.get(username, ""),
                "affiliation": organizer.get("institution", ""),
            }
        )
    return result


def backfill(apps, schema_editor):
    Version = apps.get_model("registry", "RegistrationVersion")
    FrozenCitation = apps.get_model("publicrecord", "FrozenCitation")
    User = apps.get_model(settings.AUTH_USER_MODEL)
    Profile = apps.get_model("publicrecord", "ResearcherProfile")
    users = {
        u.username: (u.first_name, u.last_name)
        for u in User.objects.only("username", "first_name", "last_name")
    }
    orcids = dict(
        Profile.objects.exclude(orcid="").values_list("user__username", "orcid")
    )
    rows = []
    for version in Version.objects.only("pk", "canonical").iterator(chunk_size=500):
        organizers = json.loads(version.canonical).get("organizers", [])
        rows.append(
            FrozenCitation(version=version, creators=creators(organizers, users, orcids))
        )
        if len(rows) == 500:
            FrozenCitation.objects.bulk_create(rows)
            rows = []
    FrozenCitation.objects.bulk_create(rows)


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # registry_refuse_change() comes from registry 0003
        schema_editor.execute(
            f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
            "FOR EACH ROW EXECUTE FUNCTION registry_refuse_change();"
        )


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE};")


class Migration(migrations.Migration):
    dependencies = [
        ("publicrecord", "0002_deposit"),
        ("registry", "0011_statistics_generation_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="FrozenCitation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True,
                        primary_key=True,
                        serialize=False,
                        verbose_name="ID",
                    ),
                ),
                ("creators", models.JSONField()),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "version",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="frozen_citation",
                        to="registry.registrationversion",
                    ),
                ),
            ],
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.RunPython(create_trigger, drop_trigger),
    ]
