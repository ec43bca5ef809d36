"""Backups that restore a working site: the database and the media files.

The database goes through ``pg_dump``/``pg_restore`` on PostgreSQL (exact, one
consistent snapshot) and ``dumpdata``/``loaddata`` elsewhere (XML, which keeps
timestamps to the microsecond; JSON would cut them to milliseconds). The media
files (analysis reports) are copied with a manifest of their SHA-256 sums. A
restore checks the backup against its manifest before it changes anything, then
ends with ``verify_registrations`` and a check of every report file against the
SHA-256 recorded on its analysis run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from audit.record_guard import record_guard_lifted
from registry.canonical import file_sha256
from registry.lock import registered_changes_allowed

from .models import AnalysisRun

MANIFEST = "manifest.json"
PG_DUMP = "database.dump"
XML_DUMP = "database.xml"
MEDIA = "media"
DUMPDATA_EXCLUDES = (
    "contenttypes",
    "auth.permission",
    "admin.logentry",
    "sessions",
)


class BackupError(Exception):
    """A backup that cannot be made or restored; nothing was changed."""


def _pg_command(program: str) -> tuple[list[str], dict[str, str]]:
    db = connection.settings_dict
    args = [
        program,
        "--host",
        db["HOST"] or "127.0.0.1",
        "--port",
        str(db["PORT"] or 5432),
        "--username",
        db["USER"] or "postgres",
        "--no-owner",
        "--no-privileges",
    ]
    env = {**os.environ}
    if db["PASSWORD"]:
        env["PGPASSWORD"] = db["PASSWORD"]
    return args, env


def _run(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise BackupError(f"{args[0]} failed: {done.stderr.strip() or done.stdout}")


def media_files(root: Path) -> list[Path]:
    """Stored files, without temporary ones (names starting with a dot)."""
    if not root.exists():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def backup(directory: Path) -> dict:
    """Write the database and the media files to ``directory`` (new or empty)."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        raise BackupError(f"{directory} is not empty; back up into a new directory.")
    if connection.vendor == "postgresql":
        dump = directory / PG_DUMP
        args, env = _pg_command("pg_dump")
        name = connection.settings_dict["NAME"]
        _run([*args, "--format=custom", "--file", str(dump), name], env)
    else:
        dump = directory / XML_DUMP
        excludes = [f"--exclude={label}" for label in DUMPDATA_EXCLUDES]
        call_command(
            "dumpdata",
            "--natural-foreign",
            *excludes,
            "--format=xml",
            "--output",
            str(dump),
            verbosity=0,
        )
    root = Path(settings.MEDIA_ROOT)
    media = {}
    for source in media_files(root):
        name = source.relative_to(root).as_posix()
        target = directory / MEDIA / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        media[name] = file_sha256(target)
    manifest = {
        "format": 1,
        "created": timezone.now().isoformat(),
        "database": {
            "vendor": connection.vendor,
            "file": dump.name,
            "sha256": file_sha256(dump),
        },
        "media": media,
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return manifest


def read_manifest(directory: Path) -> dict:
    """The manifest, after checking every file of the backup against it."""
    path = directory / MANIFEST
    if not path.is_file():
        raise BackupError(f"{directory} has no {MANIFEST}: not a backup of this site.")
    manifest = json.loads(path.read_text())
    _refuse_outside_paths(directory, manifest)
    wanted = {manifest["database"]["file"]: manifest["database"]["sha256"]}
    wanted.update({f"{MEDIA}/{n}": s for n, s in manifest["media"].items()})
    bad = [
        name
        for name, sha in wanted.items()
        if not (directory / name).is_file() or file_sha256(directory / name) != sha
    ]
    if bad:
        raise BackupError(
            f"The backup is damaged: {len(bad)} file(s) missing or changed "
            f"({', '.join(sorted(bad)[:5])}); nothing was restored."
        )
    return manifest


def _refuse_outside_paths(directory: Path, manifest: dict) -> None:
    """Refuse a manifest naming a file outside the backup's folders or the
    media folder: a restore had written ``../app_code.py`` beside ``media/``
    and printed "Restored. OK" (issue 30). Checked before anything is read."""
    database = manifest["database"]["file"]
    if database not in (PG_DUMP, XML_DUMP):
        raise BackupError(
            f"The manifest's database file {database!r} is not {PG_DUMP} or "
            f"{XML_DUMP}; nothing was restored."
        )
    roots = (directory / MEDIA, Path(settings.MEDIA_ROOT))
    outside = [name for name in manifest["media"] if not _inside_all(name, roots)]
    if outside:
        raise BackupError(
            f"The manifest names {len(outside)} file(s) outside the media folder "
            f"({', '.join(repr(n) for n in sorted(outside)[:5])}); nothing was "
            "restored."
        )


def _inside_all(name: str, roots: tuple[Path, ...]) -> bool:
    """Whether the relative POSIX path `name` stays inside every root (after
    symbolic links are followed)."""
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or "\\" in name or ".." in parts:
        return False
    return all((root / name).resolve().is_relative_to(root.resolve()) for root in roots)


@dataclass
class RestoreReport:
    registrations: str = ""
    reports_checked: int = 0
    problems: list[str] = field(default_factory=list)


def restore(directory: Path) -> RestoreReport:
    """Replace the database and the media files with the backup's, then verify."""
    manifest = read_manifest(directory)
    dump = directory / manifest["database"]["file"]
    if dump.name == PG_DUMP:
        if connection.vendor != "postgresql":
            raise BackupError(
                "This backup is a PostgreSQL dump; restore it into PostgreSQL."
            )
        args, env = _pg_command("pg_restore")
        connection.close()
        _run(
            [
                *args,
                "--clean",
                "--if-exists",
                "--single-transaction",
                "--dbname",
                connection.settings_dict["NAME"],
                str(dump),
            ],
            env,
        )
    else:
        call_command("migrate", verbosity=0)
        with record_guard_lifted(connection):  # SQLite's record triggers
            call_command("flush", "--noinput", verbosity=0)
        load_dump(dump)
    root = Path(settings.MEDIA_ROOT)
    for name in manifest["media"]:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(directory / MEDIA / name, target)
    return verify_site()


def load_dump(dump: Path) -> None:
    """``loaddata`` in one transaction with the registered-design door open.

    A restore writes registered challenges before their tasks and answers, so
    the PostgreSQL lock triggers would refuse rows that are not changes at all;
    the chains are verified afterwards (``verify_site``).
    """
    with transaction.atomic(), registered_changes_allowed():
        call_command("loaddata", str(dump), verbosity=0)


def verify_site() -> RestoreReport:
    """``verify_registrations`` and every report file against its SHA-256."""
    report = RestoreReport()
    out, err = StringIO(), StringIO()
    try:
        call_command("verify_registrations", stdout=out, stderr=err)
    except Exception as exc:  # CommandError: the problems are on stderr
        report.problems.append(f"verify_registrations: {exc} {err.getvalue().strip()}")
    report.registrations = out.getvalue().strip()
    runs = AnalysisRun.objects.exclude(report="").only("pk", "report", "report_sha256")
    for run in runs:
        report.reports_checked += 1
        path, what = Path(run.report.path), f"analysis {run.pk}: {run.report.name}"
        if not path.is_file():
            report.problems.append(f"{what} is missing")
        elif file_sha256(path) != run.report_sha256:
            report.problems.append(f"{what} does not match its recorded SHA-256")
    return report
