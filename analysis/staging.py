"""Uploaded results kept between the preview and the organizer's decision.

The bytes go to a private file under ``MEDIA_ROOT/tmp`` whose name joins the
registration, the user and a random token; the file name, the team affiliations
and the token live in the user's session. Commit and cancel delete the file;
files older than a day are swept whenever something new is staged.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

SESSION_KEY = "analysis_staged_uploads"
MAX_AGE_SECONDS = 24 * 3600
TOKEN = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class StagedUpload:
    token: str
    name: str
    teams: dict[str, str]
    path: Path

    def read(self) -> bytes:
        return self.path.read_bytes()


def staging_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / "tmp"


def _path(registration_pk: int, user_pk: int, token: str) -> Path:
    return staging_dir() / f"results-{registration_pk}-{user_pk}-{token}.upload"


def _sweep() -> None:
    cutoff = time.time() - MAX_AGE_SECONDS
    for old in staging_dir().glob("results-*.upload"):
        if old.stat().st_mtime < cutoff:
            old.unlink(missing_ok=True)


def stage_upload(
    *, session, user, registration, name: str, data: bytes, teams: dict[str, str]
) -> str:
    """Keep `data` for this user and registration; return the token naming it."""
    staging_dir().mkdir(parents=True, exist_ok=True)
    _sweep()
    token = secrets.token_hex(16)
    _path(registration.pk, user.pk, token).write_bytes(data)
    staged = dict(session.get(SESSION_KEY, {}))
    staged[token] = {"registration": registration.pk, "name": name, "teams": teams}
    session[SESSION_KEY] = staged
    return token


def staged_upload(*, session, user, registration, token: str) -> StagedUpload | None:
    """The upload staged under `token` by this user for this registration."""
    entry = session.get(SESSION_KEY, {}).get(token)
    if not TOKEN.match(token) or not entry or entry["registration"] != registration.pk:
        return None
    path = _path(registration.pk, user.pk, token)
    if not path.is_file():
        return None
    return StagedUpload(token, entry["name"], dict(entry["teams"]), path)


def discard_upload(*, session, user, registration, token: str) -> None:
    if TOKEN.match(token):
        _path(registration.pk, user.pk, token).unlink(missing_ok=True)
    staged = dict(session.get(SESSION_KEY, {}))
    if staged.pop(token, None) is not None:
        session[SESSION_KEY] = staged
