"""Review versions store the one canonical design form (`registry.design`).

Before, a version stored ``{"revision", "name", "answers": {"<n>": {"value",
"not_applicable"}}, "tasks": [{"name", "answers": {...}}]}``, without schemes or
planning. The old form did not freeze those, so a converted version takes the
task's scheme and the planning as they are now: two converted versions never
show a scheme change that did not happen, and a later (canonical) version shows
exactly the scheme changes made since. Empty stored answers are left out, as in
the canonical form. Reversible.
"""

from django.db import migrations, models

# The catalogue is plain data (no models): names and "is filled" come from it.
from registry.parameters import BY_NUMBER

SCHEMA = "challenge-registry/proposal"


def _entry(number: int, old: dict):
    parameter = BY_NUMBER.get(number)
    name = parameter.name if parameter else ""
    reason = (old.get("not_applicable") or "").strip()
    if reason:
        return {"number": number, "name": name, "not_applicable": old["not_applicable"]}
    value = old.get("value")
    if parameter is not None and not parameter.is_filled(value):
        return None
    return {"number": number, "name": name, "value": value}


def _answers(old: dict) -> list:
    entries = (_entry(int(key), entry or {}) for key, entry in old.items())
    return sorted((e for e in entries if e), key=lambda e: e["number"])


def to_canonical(snapshot: dict, challenge) -> dict:
    schemes = {t.name: t.scheme for t in challenge.tasks.all()}
    tasks = []
    for task in snapshot.get("tasks", []):
        data = {"name": task["name"], "answers": _answers(task.get("answers", {}))}
        if schemes.get(task["name"]) is not None:
            data["scheme"] = schemes[task["name"]]
        tasks.append(data)
    return {
        "schema": SCHEMA,
        "schema_version": 1,
        "call": challenge.call.slug,
        "name": snapshot.get("name", challenge.name),
        "status": "submitted",
        "planning": dict(challenge.planning or {}),
        "answers": _answers(snapshot.get("answers", {})),
        "tasks": tasks,
    }


def _old_answers(entries: list) -> dict:
    return {
        str(e["number"]): {
            "value": e.get("value"),
            "not_applicable": e.get("not_applicable", ""),
        }
        for e in entries
    }


def to_old(snapshot: dict, revision: int) -> dict:
    return {
        "revision": revision,
        "name": snapshot.get("name", ""),
        "answers": _old_answers(snapshot.get("answers", [])),
        "tasks": [
            {"name": t["name"], "answers": _old_answers(t.get("answers", []))}
            for t in snapshot.get("tasks", [])
        ],
    }


def forwards(apps, schema_editor):
    ProposalVersion = apps.get_model("reviews", "ProposalVersion")
    versions = ProposalVersion.objects.select_related("challenge__call")
    for version in versions.iterator(chunk_size=200):
        if version.snapshot.get("schema") == SCHEMA:
            continue  # already canonical
        version.snapshot = to_canonical(version.snapshot, version.challenge)
        version.save(update_fields=["snapshot"])


def backwards(apps, schema_editor):
    ProposalVersion = apps.get_model("reviews", "ProposalVersion")
    for version in ProposalVersion.objects.iterator(chunk_size=200):
        if version.snapshot.get("schema") != SCHEMA:
            continue
        version.snapshot = to_old(version.snapshot, version.revision)
        version.save(update_fields=["snapshot"])


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0003_assignment_withdrawn"),
    ]

    operations = [
        migrations.AlterField(
            model_name="proposalversion",
            name="snapshot",
            field=models.JSONField(
                help_text="`registry.design.Design.to_dict()`, the canonical design."
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
