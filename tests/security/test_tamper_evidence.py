"""Attack: rewrite the history in the database, triggers and all."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit.record_guard import record_guard_lifted
from registry.canonical import canonical_json_bytes, sha256_hex
from registry.chain_heads import chain_heads_text, parse_chain_heads

pytestmark = pytest.mark.django_db

TABLE = "registry_registrationversion"


def export(tmp_path):
    path = tmp_path / "heads.txt"
    call_command("export_hashes", output=str(path))
    return path


def rewrite_latest_version(new_alpha: float) -> None:
    """What a database user who may disable the trigger can do: change the
    latest version and recompute its hash, so the chain verifies again."""
    # on SQLite, as whoever holds the file can (drop the triggers)
    with record_guard_lifted(connection), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending FK checks
            cursor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER {TABLE}_append_only")
        cursor.execute(f"SELECT id, canonical FROM {TABLE} ORDER BY number DESC")
        pk, canonical = cursor.fetchone()
        document = json.loads(canonical)
        for task in document["design"]["tasks"]:
            task["scheme"]["test"]["alpha"] = new_alpha
        data = canonical_json_bytes(document)
        cursor.execute(
            f"UPDATE {TABLE} SET canonical = %s, sha256 = %s WHERE id = %s",
            [data.decode(), sha256_hex(data), pk],
        )
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER {TABLE}_append_only")


def test_export_hashes_lists_each_chain_head(registration, capsys):
    call_command("export_hashes")
    text = capsys.readouterr().out
    [head] = parse_chain_heads(text)
    version = registration.versions.get()
    assert (head.identifier, head.version, head.sha256) == (
        "miccai-2027-001",
        1,
        version.sha256,
    )
    assert head.created == version.created.isoformat()


def test_verify_against_the_export_passes_when_nothing_changed(registration, tmp_path):
    path = export(tmp_path)
    call_command("verify_registrations", against=str(path))


def test_rewritten_history_passes_the_chain_but_not_the_export(registration, tmp_path):
    path = export(tmp_path)
    rewrite_latest_version(0.5)
    call_command("verify_registrations")  # the recomputed chain is consistent
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_registrations", against=str(path))


@pytest.mark.postgres
def test_rewrite_with_triggers_disabled_on_postgres_is_caught(registration, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    path = export(tmp_path)
    rewrite_latest_version(0.5)
    with pytest.raises(CommandError):
        call_command("verify_registrations", against=str(path))


def test_verify_against_a_malformed_file_fails(registration, tmp_path):
    path = tmp_path / "heads.txt"
    path.write_text("miccai-2027-001 one abc\n")
    with pytest.raises(CommandError, match="line 1"):
        call_command("verify_registrations", against=str(path))


def test_public_registry_shows_the_chain_head(client, registration):
    version = registration.versions.get()
    listing = client.get("/registry/").content.decode()
    detail = client.get("/registry/miccai-2027-001/").content.decode()
    for body in (listing, detail):
        assert 'data-chain-head="miccai-2027-001"' in body
        assert f'<span class="sha" data-chain-sha>{version.sha256}</span>' in body
    text = client.get("/registry/chain-heads.txt").content.decode()
    assert parse_chain_heads(text) == parse_chain_heads(chain_heads_text())
