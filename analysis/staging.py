"""Uploaded results kept between the preview and the organizer's decision.

What is kept is the checked table's normalised CSV (``analysis.uploads``
parses the file once and reads this text back for the preview and the commit),
in a private file under ``MEDIA_ROOT/tmp`` whose name joins the registration,
the user and a random token, with the rows' lines in the uploaded file beside
it (``.lines``) when they are not those of the CSV; the uploaded file's name,
the team affiliations and the token live in the user's session.

Bounds (settings, docs/security.md): each user keeps at most
`MAX_STAGED_UPLOADS_PER_USER` previews and `MAX_STAGED_BYTES_PER_USER` bytes
(a preview's bytes are its CSV and its `.lines` together: the disk it takes);
staging a new one purges that user's oldest previews to make room (one being
committed counts and is kept), and every preview older than
`STAGED_UPLOAD_MAX_AGE_SECONDS` is swept whenever something new is staged.
Commit and cancel delete the file.

The token is one-time: a commit first *claims* it by renaming the file
(atomic), so a double click cannot commit one upload twice; the second request
finds the claim gone and the version stored under the token (waiting for it
while the first request still holds the claim).
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

SESSION_KEY = "analysis_staged_uploads"
TOKEN = re.compile(r"^[0-9a-f]{32}$")
CLAIMED = ".claimed"
LINES = ".lines"  # beside the kept bytes: what `stage_upload` got as `lines`


class StagingError(ValueError):
    """The upload cannot be kept for its preview (too big, disk full)."""


@dataclass(frozen=True)
class StagedUpload:
    token: str
    name: str
    teams: dict[str, str]
    path: Path

    def read(self) -> bytes:
        return self.path.read_bytes()

    def read_lines(self) -> bytes:
        """The `lines` kept with the upload (b"" if none were given)."""
        kept = self.path.name.removesuffix(CLAIMED) + LINES
        try:
            return self.path.with_name(kept).read_bytes()
        except FileNotFoundError:
            return b""


def staging_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / "tmp"


def _path(registration_pk: int, user_pk: int, token: str) -> Path:
    return staging_dir() / f"results-{registration_pk}-{user_pk}-{token}.upload"


def _sweep() -> None:
    cutoff = time.time() - settings.STAGED_UPLOAD_MAX_AGE_SECONDS
    for old in staging_dir().glob("results-*.upload*"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink(missing_ok=True)
        except FileNotFoundError:  # removed by a concurrent sweep
            continue


def _disk_bytes(path: Path) -> int:
    """The disk the staged preview at `path` takes: its CSV and the lines kept
    beside it (claimed or not)."""
    lines = path.with_name(path.name.removesuffix(CLAIMED) + LINES)
    try:
        size = path.stat().st_size
    except FileNotFoundError:  # committed or purged meanwhile
        return 0
    try:
        return size + lines.stat().st_size
    except FileNotFoundError:
        return size


def _make_room(user_pk: int, size: int) -> None:
    """Purge the user's oldest previews until one of `size` bytes fits.
    Previews claimed by a commit still running count and are kept."""
    limit_bytes = settings.MAX_STAGED_BYTES_PER_USER
    limit_count = settings.MAX_STAGED_UPLOADS_PER_USER
    if size > limit_bytes:
        raise StagingError(
            f"The preview takes {size:,} bytes; previews are limited to "
            f"{limit_bytes:,} bytes per person."
        )
    previews, committing = [], []
    for path in staging_dir().glob(f"results-*-{user_pk}-*.upload*"):
        if path.name.endswith(LINES):
            continue
        try:
            modified = path.stat().st_mtime
        except FileNotFoundError:
            continue
        entry = (modified, _disk_bytes(path), path)
        (committing if path.name.endswith(CLAIMED) else previews).append(entry)
    busy = sum(f[1] for f in committing)
    if len(committing) >= limit_count or busy + size > limit_bytes:
        # purging every preview would not make room: refused, nothing purged
        raise StagingError(
            "Your earlier upload is still being stored and takes the room "
            "previews have; try again once it is done."
        )
    previews.sort()
    count = len(previews) + len(committing)
    total = busy + sum(f[1] for f in previews)
    while count >= limit_count or total + size > limit_bytes:
        _, old_size, path = previews.pop(0)
        _remove(path, claimed=False)  # a claimed copy is being committed: kept
        count -= 1
        total -= old_size


def _remove(path: Path, *, claimed: bool = True) -> None:
    """The staged file at `path` and its lines (and its claimed copy)."""
    suffixes = ("", LINES, CLAIMED) if claimed else ("", LINES)
    for suffix in suffixes:
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def stage_upload(
    *,
    session,
    user,
    registration,
    name: str,
    data: bytes,
    teams: dict[str, str],
    lines: bytes = b"",
) -> str:
    """Keep `data` (and `lines`, read back by ``StagedUpload.read_lines``) for
    this user and registration; return the token naming it."""
    staging_dir().mkdir(parents=True, exist_ok=True)
    _sweep()
    _make_room(user.pk, len(data) + len(lines))
    token = secrets.token_hex(16)
    path = _path(registration.pk, user.pk, token)
    try:
        if lines:
            path.with_name(path.name + LINES).write_bytes(lines)
        path.write_bytes(data)
    except OSError as exc:  # disk full, read-only media: say so, keep nothing
        _remove(path)
        raise StagingError(
            f"The server could not keep the file for its preview ({exc.strerror}); "
            "nothing was stored. Try again later."
        ) from None
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


def claim_upload(*, session, user, registration, token: str) -> StagedUpload | None:
    """Take the staged upload for one commit; None if another request has it.

    The rename is atomic: of two simultaneous commits only one gets the file.
    """
    staged = staged_upload(
        session=session, user=user, registration=registration, token=token
    )
    if staged is None:
        return None
    claimed = staged.path.with_name(staged.path.name + CLAIMED)
    try:
        staged.path.rename(claimed)
    except FileNotFoundError:
        return None
    return StagedUpload(staged.token, staged.name, staged.teams, claimed)


def is_claimed(*, user, registration, token: str) -> bool:
    """Whether a commit holds the upload staged under `token` right now."""
    if not TOKEN.match(token):
        return False
    path = _path(registration.pk, user.pk, token)
    return path.with_name(path.name + CLAIMED).exists()


def release_upload(upload: StagedUpload) -> None:
    """Give a claimed upload back (the commit was refused; it may be retried)."""
    if upload.path.name.endswith(CLAIMED):
        upload.path.rename(upload.path.with_name(upload.path.name[: -len(CLAIMED)]))


def discard_upload(*, session, user, registration, token: str) -> None:
    if TOKEN.match(token):
        _remove(_path(registration.pk, user.pk, token))
    staged = dict(session.get(SESSION_KEY, {}))
    if staged.pop(token, None) is not None:
        session[SESSION_KEY] = staged
