"""Index what the statistics' cache generation reads on every request.

`publicrecord.statistics` keys its cache on MAX() of columns that move with
every change of a counted number; each must be an index lookup, not a scan of
a table that grows with the registry: a call's `updated` (new: a rename
writes no new row) and an amendment's `decided_at` (a decision writes no new
row). Existing calls get the migration's time as `updated`.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0010_drop_canonical_trigram"),
    ]

    operations = [
        migrations.AddField(
            model_name="call",
            name="updated",
            field=models.DateTimeField(auto_now=True),
        ),
        migrations.AddIndex(
            model_name="call",
            index=models.Index(fields=["-updated"], name="call_updated_idx"),
        ),
        migrations.AddIndex(
            model_name="amendment",
            index=models.Index(fields=["-decided_at"], name="amendment_decided_idx"),
        ),
    ]
