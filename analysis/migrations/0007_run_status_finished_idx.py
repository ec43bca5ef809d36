"""Index done runs by `finished`: the statistics' cache generation reads
MAX(finished) of done runs on every request (a run finishes by an update, so
its id does not show it)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0006_results_idempotency_key"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="analysisrun",
            index=models.Index(
                fields=["status", "finished"], name="run_status_finished_idx"
            ),
        ),
    ]
