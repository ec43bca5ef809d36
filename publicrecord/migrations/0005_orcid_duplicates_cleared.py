"""Before ORCID iDs are unique per account: an iD that several accounts hold
is removed from all of them (none was verified, so none of them is known to be
its owner; each can claim it again, and the first to do so keeps it)."""

from django.db import migrations
from django.db.models import Count


def clear_duplicates(apps, schema_editor):
    ResearcherProfile = apps.get_model("publicrecord", "ResearcherProfile")
    shared = (
        ResearcherProfile.objects.exclude(orcid="")
        .values("orcid")
        .annotate(holders=Count("pk"))
        .filter(holders__gt=1)
        .values_list("orcid", flat=True)
    )
    ResearcherProfile.objects.filter(orcid__in=list(shared)).update(orcid="")


class Migration(migrations.Migration):
    dependencies = [("publicrecord", "0004_publication")]

    operations = [
        migrations.RunPython(clear_duplicates, migrations.RunPython.noop),
    ]
