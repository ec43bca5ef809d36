"""Attack: rewrite the record so that `verify_registrations` says OK (issue 30).

A forged v2 appended with no amendment passed, and so did a rewritten latest
version with its hash recomputed. Every version after v1 must now be the
version an approved amendment made, and differ from the one before by
exactly the amendment's changes.

The chain heads are published as a signed, append-only list: a copy kept
anywhere proves what the record was, and `verify_registrations --against`
refuses a copy that was altered and finds a history, or a list, rewritten
since.
"""

import base64
import copy
import hashlib
import io

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit.record_guard import record_guard_lifted
from registry.amendments import approve_amendment, propose_amendment
from registry.chain_heads import SIGNATURE_PREFIX, read_list
from registry.chain_signing import read_public_key, sign
from registry.models import ChainHeadsList
from registry.registration import append_version, verify_registrations
from tests.analysis.django.conftest import SCHEME
from tests.security.test_tamper_evidence import rewrite_latest_version

pytestmark = pytest.mark.django_db

TABLE = "registry_registrationversion"


def amend_to_holm(registration, organizer, chair):
    holm = copy.deepcopy(SCHEME)
    holm["test"]["p_adjust"] = "holm"
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Holm is safer.",
        changes={"tasks": {"Brain": {"scheme": holm}}},
    )
    return approve_amendment(amendment=amendment, actor=chair)


def test_a_forged_version_without_an_amendment_fails_verification(
    registration, organizer
):
    append_version(registration=registration, actor=organizer)  # no amendment
    [problem] = verify_registrations().problems
    assert (problem.identifier, problem.version, problem.message) == (
        "miccai-2027-001",
        2,
        "no approved amendment made this version",
    )
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_registrations")


def test_an_approved_amendment_verifies(registration, organizer, chair):
    amend_to_holm(registration, organizer, chair)
    assert verify_registrations().problems == []


def test_a_rewritten_amended_version_with_its_hash_recomputed_fails(
    registration, organizer, chair
):
    amend_to_holm(registration, organizer, chair)
    rewrite_latest_version(0.5)  # beyond the amendment; triggers off on PostgreSQL
    [problem] = verify_registrations().problems
    assert problem.version == 2
    assert problem.message.startswith(
        "the design differs from the previous version beyond its amendment"
    )


# The signed, append-only list of chain heads


def export(tmp_path, name="heads.txt"):
    path = tmp_path / name
    call_command("export_hashes", output=str(path), stderr=io.StringIO())
    return path


def verify_against(path, **options) -> str:
    """`verify_registrations --against path`: its error output, or "OK"."""
    errors = io.StringIO()
    try:
        call_command(
            "verify_registrations",
            against=str(path),
            stdout=io.StringIO(),
            stderr=errors,
            **options,
        )
    except CommandError:
        return errors.getvalue()
    return "OK"


def signed(body: str) -> str:
    """`body` signed with the registry's key, as an attacker holding it would."""
    return body + SIGNATURE_PREFIX + sign(body.encode()) + "\n"


def test_the_public_list_verifies_with_the_published_key(client, registration):
    text = client.get("/registry/chain-heads.txt").content.decode()
    key = read_public_key(client.get("/registry/chain-heads.pub").content)
    body, _, signature = text.rpartition(SIGNATURE_PREFIX)
    key.verify(base64.b64decode(signature), body.encode())  # raises if not
    lines = text.splitlines()
    assert lines[1].startswith("# list 1 published ")
    assert lines[2] == "# previous none"
    version = registration.versions.get()
    assert lines[4] == (
        f"miccai-2027-001 1 {version.sha256} {version.created.isoformat()}"
    )


def test_each_new_list_names_the_one_before(client, registration, organizer, chair):
    first = client.get("/registry/chain-heads.txt").content
    assert client.get("/registry/chain-heads.txt").content == first  # no change
    amend_to_holm(registration, organizer, chair)
    second = client.get("/registry/chain-heads.txt").content.decode()
    assert second.splitlines()[1].startswith("# list 2 published ")
    assert second.splitlines()[2] == (f"# previous {hashlib.sha256(first).hexdigest()}")
    assert client.get("/registry/chain-heads/1.txt").content == first
    assert [h.version for h in read_list(second).heads] == [2]


def test_the_lists_are_append_only(registration, client):
    client.get("/registry/chain-heads.txt")
    published = ChainHeadsList.objects.get()
    published.text += "miccai-2027-002 1 " + "0" * 64 + " 2027-01-01T00:00:00\n"
    with pytest.raises(Exception, match="cannot be changed"):
        published.save()
    with pytest.raises(Exception, match="cannot be deleted"):
        ChainHeadsList.objects.all().delete()


def test_a_tampered_copy_is_refused(registration, tmp_path):
    path = export(tmp_path)
    text = path.read_text()
    head = read_list(text).heads[0]
    path.write_text(text.replace(head.sha256, "0" * 64))  # the heads I wish I had
    assert "the signature does not verify" in verify_against(path)
    path.write_text(text.rpartition(SIGNATURE_PREFIX)[0])  # signature cut off
    assert "the copy is not signed" in verify_against(path)
    path.write_text(text)
    assert verify_against(path) == "OK"


def test_a_copy_signed_by_another_key_is_refused(registration, tmp_path):
    path = export(tmp_path)
    other = tmp_path / "other.pub"
    other.write_bytes(
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(
            serialization.Encoding.PEM,
            serialization.PublicFormat.SubjectPublicKeyInfo,
        )
    )
    assert "the signature does not verify" in verify_against(
        path, public_key=str(other)
    )


def test_rewritten_history_is_caught_by_an_earlier_signed_copy(registration, tmp_path):
    path = export(tmp_path)
    rewrite_latest_version(0.5)  # hash recomputed; triggers off on PostgreSQL
    call_command("verify_registrations", stdout=io.StringIO())  # chain consistent
    assert "the history was rewritten" in verify_against(path)


def test_a_later_amendment_extends_the_earlier_copy(
    registration, organizer, chair, tmp_path
):
    before = export(tmp_path, "before.txt")
    amend_to_holm(registration, organizer, chair)
    after = export(tmp_path, "after.txt")
    assert read_list(after.read_text()).number == 2
    assert verify_against(before) == "OK"
    assert verify_against(after) == "OK"


def test_a_later_list_that_rewrites_an_earlier_head_is_caught(registration, tmp_path):
    """Even signed with the registry's own key: list 2 must keep list 1's heads."""
    path = export(tmp_path)
    first = read_list(path.read_text())
    forged = first.body.replace("# list 1 ", "# list 2 ").replace(
        "# previous none", f"# previous {first.sha256}"
    )
    forged = forged.replace(first.heads[0].sha256, "f" * 64)
    ChainHeadsList.objects.create(
        number=2, text=signed(forged), sha256="f" * 64, created=registration.created
    )
    assert (
        "chain-heads list v2: rewrites miccai-2027-001 v1 of list 1"
        in verify_against(path)
    )


def test_a_list_rewritten_in_the_database_is_caught(registration, tmp_path):
    path = export(tmp_path)
    body = read_list(path.read_text()).body.replace("published ", "published  ")
    table = ChainHeadsList._meta.db_table
    # on SQLite, as whoever holds the file can (drop the triggers)
    with record_guard_lifted(connection), connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # as the tables' owner could
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only")
        cursor.execute(f"UPDATE {table} SET text = %s", [signed(body)])
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_append_only")
    assert "the published lists were rewritten" in verify_against(path)


def test_an_unsigned_export_is_compared_only_when_allowed(registration, tmp_path):
    """An export from before lists were signed: its heads, nothing more."""
    path = export(tmp_path)
    heads = [line for line in path.read_text().splitlines() if line[:1] != "#"]
    path.write_text("\n".join(heads) + "\n")
    assert "the copy is not signed" in verify_against(path)
    assert verify_against(path, allow_unsigned=True) == "OK"
    rewrite_latest_version(0.5)
    assert "the history was rewritten" in verify_against(path, allow_unsigned=True)
