"""Attack: the application's own database role rewrites the record (issue 30).

On PostgreSQL the application's role owned the tables, so it could
``ALTER TABLE … DISABLE TRIGGER`` and rewrite registrations and the audit log.
Here an owner role runs the migrations and `grant_app_role`; the application's
role, which owns nothing, registers a challenge through the services (so it can
do its work), and then every way of rewriting the record is refused to it:
disabling or dropping triggers, dropping the actor check, replication mode,
TRUNCATE, and UPDATE or DELETE of registration versions, audit events and
chain-heads lists.

The test makes its own roles and database (named after the configured
database, ``<name>_test_owner`` …) and drops them at the end; the server
connection needs the right to create roles and databases (CI's superuser).
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import errors, sql

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

# Run as the application's role: a registered challenge, an audit event, a
# published chain-heads list, and a verification that passes.
APPLICATION_WORK = """
from django.core.management import call_command
from audit.services import record
from registry.chain_heads import published_list
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from tests.analysis.django.conftest import SCHEME
from tests.factories import CallFactory, ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal

organizer, chair = UserFactory(username="olga"), UserFactory(username="chair")
call = CallFactory(slug="miccai-2027")
call.chairs.add(chair)
challenge = ChallengeFactory(call=call, owner=organizer, name="Decathlon")
task = TaskFactory(challenge=challenge, name="Brain")
fill_proposal(challenge, organizer)
set_task_scheme(task=task, scheme=SCHEME, actor=organizer)
challenge.status = "accepted"
challenge.save()
registration = register_challenge(challenge=challenge, actor=chair)
record(actor=None, action="jobs.resume", target=registration)
published_list()
call_command("verify_registrations")
"""

VERSIONS = "registry_registrationversion"
AUDIT = "audit_auditevent"
LISTS = "registry_chainheadslist"

# (what the application's role tries, what PostgreSQL answers)
ATTACKS = [
    (f"ALTER TABLE {VERSIONS} DISABLE TRIGGER {VERSIONS}_append_only", "owner"),
    (f"ALTER TABLE {AUDIT} DISABLE TRIGGER ALL", "owner"),
    (f"DROP TRIGGER {AUDIT}_append_only ON {AUDIT}", "owner"),
    (f"ALTER TABLE {AUDIT} DROP CONSTRAINT audit_event_names_its_actor", "owner"),
    (
        "CREATE OR REPLACE FUNCTION registry_refuse_change() RETURNS trigger "
        "AS $$ BEGIN RETURN NEW; END; $$ LANGUAGE plpgsql",
        "owner|permission denied for schema",
    ),
    ("SET session_replication_role = replica", "permission denied"),
    (f"TRUNCATE {AUDIT}", "permission denied"),
    (f"TRUNCATE {VERSIONS} CASCADE", "permission denied"),
    (f"TRUNCATE {LISTS}", "permission denied"),
    (f"UPDATE {VERSIONS} SET sha256 = repeat('0', 64)", "append-only"),
    (f"DELETE FROM {VERSIONS}", "append-only"),
    (f"UPDATE {AUDIT} SET action = 'nothing.happened'", "append-only"),
    (f"DELETE FROM {AUDIT}", "append-only"),
    (f"UPDATE {LISTS} SET text = ''", "append-only"),
    (f"DELETE FROM {LISTS}", "append-only"),
    (
        f"INSERT INTO {AUDIT} (actor_name, action, target_type, target_id, "
        "details, created) VALUES ('', 'x.y', 't', '1', '{}', now())",
        "audit_event_names_its_actor",
    ),
]


def server() -> dict:
    db = settings.DATABASES["default"]
    return {
        "host": db.get("HOST") or "127.0.0.1",
        "port": db.get("PORT") or 5432,
        "user": db.get("USER"),
        "password": db.get("PASSWORD") or None,
    }


def url(role: str, password: str, database: str) -> str:
    where = server()
    return f"postgres://{role}:{password}@{where['host']}:{where['port']}/{database}"


def run_manage(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def manage(database_url: str, *args: str) -> str:
    done = run_manage(database_url, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.fixture
def two_roles():
    """An owner role, an application role and a database the owner owns."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("PostgreSQL only")
    base = re.sub(r"^test_", "", settings.DATABASES["default"]["NAME"])[:40]
    owner, app, database = f"{base}_test_owner", f"{base}_test_app", f"{base}_test_db"
    passwords = {owner: secrets.token_hex(16), app: secrets.token_hex(16)}
    admin = psycopg.connect(**server(), dbname="postgres", autocommit=True)

    def drop() -> None:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(database)
            )
        )
        for role in (app, owner):
            admin.execute(
                sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role))
            )

    drop()  # what an interrupted run left
    for role, password in passwords.items():
        admin.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(role), sql.Literal(password)
            )
        )
    admin.execute(
        sql.SQL("CREATE DATABASE {} OWNER {}").format(
            sql.Identifier(database), sql.Identifier(owner)
        )
    )
    try:
        yield (
            url(owner, passwords[owner], database),
            url(app, passwords[app], database),
        )
    finally:
        drop()
        admin.close()


def test_the_application_role_cannot_rewrite_the_record(two_roles):
    owner_url, app_url = two_roles
    manage(owner_url, "migrate", "--noinput")
    manage(owner_url, "grant_app_role", "--url", app_url)
    manage(app_url, "shell", "-c", APPLICATION_WORK)  # the app does its work
    deploy_check = ("check", "--deploy", "--database", "default")
    assert "owns the record's tables" in manage(owner_url, *deploy_check)
    assert "audit.W001" not in manage(app_url, *deploy_check)

    with psycopg.connect(app_url, autocommit=True) as app:
        before = [
            app.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (VERSIONS, AUDIT, LISTS)
        ]
        refused = []
        for statement, answer in ATTACKS:
            try:
                app.execute(statement)
            except (errors.InsufficientPrivilege, errors.IntegrityError) as exc:
                refused.append((statement, bool(re.search(answer, str(exc)))))
        after = [
            app.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (VERSIONS, AUDIT, LISTS)
        ]
    assert refused == [(statement, True) for statement, _ in ATTACKS]
    assert before == after
    assert (before[0], before[2]) == (1, 1)  # a version and a list
    assert before[1] >= 2  # the registration's events and the job's


def test_grant_app_role_refuses_the_owner_itself(two_roles):
    owner_url, _app_url = two_roles
    done = run_manage(owner_url, "grant_app_role", "--url", owner_url)
    assert done.returncode == 1
    assert "is the role running this command" in done.stderr
