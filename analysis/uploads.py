"""The results upload: one sequence for the results pages and the API.

The file is parsed once (:func:`analysis.ingest.parse_upload`) into a checked
table, previewed against the registered design and committed as a results
version. The pages keep the table's normalised CSV between the preview and the
organizer's decision (:mod:`analysis.staging`) and read it back with
:func:`analysis.ingest.read_normalised`; the API previews or commits in one
request. The views keep only HTTP: forms, messages, redirects, status codes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.core.exceptions import PermissionDenied

from registry.models import Registration

from . import ingest, services, staging
from .models import ResultsVersion


def require_uploader(user, registration: Registration) -> None:
    if not services.can_upload_results(user, registration):
        raise PermissionDenied("Only the organizers upload results.")


def preview(registration: Registration, table: ingest.CheckedResults) -> ingest.Preview:
    """Counts and findings of the table against the design registered now."""
    return ingest.preview_results(table.frame, services.latest_design(registration))


def commit(
    *,
    registration: Registration,
    table: ingest.CheckedResults,
    name: str,
    actor,
    teams: dict[str, str],
    idempotency_key: str = "",
    new_version: bool = False,
) -> ResultsVersion:
    """Store the table as a new results version (see ``ingest.commit_results``)."""
    require_uploader(actor, registration)
    return ingest.commit_results(
        registration=registration,
        table=table,
        original_name=name,
        actor=actor,
        teams=teams,
        idempotency_key=idempotency_key,
        new_version=new_version,
    )


# --- the pages: stage, preview, commit over three requests ----------------------


@dataclass(frozen=True)
class StagedPreview:
    staged: staging.StagedUpload
    preview: ingest.Preview
    identical: ResultsVersion | None  # an earlier version with the same content


def stage(
    *,
    session,
    user,
    registration: Registration,
    name: str,
    data: bytes,
    teams: dict[str, str],
) -> str:
    """Parse the file and keep its table for the preview; the token naming it.

    Raises UploadError (the file is refused) or StagingError (it cannot be
    kept); nothing is kept then.
    """
    require_uploader(user, registration)
    table = ingest.parse_upload(name, data)
    lines = ingest.moved_lines(table)
    return staging.stage_upload(
        session=session,
        user=user,
        registration=registration,
        name=name,
        data=table.content.encode("utf-8"),
        teams=teams,
        lines=b"" if lines is None else lines.tobytes(),
    )


def staged_preview(
    *, session, user, registration: Registration, token: str
) -> StagedPreview | None:
    """The preview of the table staged under `token`; None if none waits."""
    staged = staging.staged_upload(
        session=session, user=user, registration=registration, token=token
    )
    if staged is None:
        return None
    table = _staged_table(staged)
    return StagedPreview(
        staged=staged,
        preview=preview(registration, table),
        identical=ingest.identical_version(registration, table),
    )


class UnacceptedProblemsError(Exception):
    """The staged file does not match the registered design and the organizer
    has not said to store it anyway."""

    def __init__(self, problems: list[ingest.Finding]):
        self.problems = problems
        super().__init__(
            f"The file does not match the registered design in {len(problems)} "
            f"way{'s' if len(problems) != 1 else ''} (marked 'problem' below). Fix "
            "the file and upload it again, or tick 'Store it anyway' to store it "
            "as it is."
        )


def commit_staged(
    *,
    session,
    user,
    registration: Registration,
    token: str,
    new_version: bool,
    accept_problems: bool = False,
) -> ResultsVersion | None:
    """Store the table staged under `token`, once; None if none waits.

    The token is claimed before anything is stored and is the version's
    idempotency key: a double click or a resent form gets the version the first
    request stored (``replayed`` True). A refused commit (DuplicateResultsError,
    UploadError, UnacceptedProblemsError unless `accept_problems`) stores nothing
    and leaves the table waiting.
    """
    require_uploader(user, registration)
    key = f"web:{token}"
    staged = staging.claim_upload(
        session=session, user=user, registration=registration, token=token
    )
    if staged is None:
        return _stored_by_earlier_commit(
            user=user, registration=registration, token=token, key=key
        )
    try:
        table = _staged_table(staged)
        if not accept_problems:
            problems = preview(registration, table).problems
            if problems:
                raise UnacceptedProblemsError(problems)
        results = commit(
            registration=registration,
            table=table,
            name=staged.name,
            actor=user,
            teams=staged.teams,
            idempotency_key=key,
            new_version=new_version,
        )
    except (ingest.DuplicateResultsError, ingest.UploadError, UnacceptedProblemsError):
        staging.release_upload(staged)
        raise
    staging.discard_upload(
        session=session, user=user, registration=registration, token=token
    )
    return results


COMMIT_POLL_SECONDS = 0.2  # how often a second Commit looks for the first's version


def _stored_by_earlier_commit(
    *, user, registration: Registration, token: str, key: str
) -> ResultsVersion | None:
    """The version an earlier commit of `token` stored (``replayed`` True). A
    double click's second request comes while the first still holds the claim
    and has not stored it yet: it waits for that, up to
    ``UPLOAD_COMMIT_WAIT_SECONDS``. None when nothing was stored."""
    deadline = time.monotonic() + settings.UPLOAD_COMMIT_WAIT_SECONDS
    while True:
        # the claim is looked at first: once it is gone, the version the
        # commit stored (before it let the file go) is visible to the query
        claimed = staging.is_claimed(user=user, registration=registration, token=token)
        stored = registration.results_versions.filter(idempotency_key=key).first()
        if stored is not None:
            stored.replayed = True
            return stored
        if not claimed or time.monotonic() >= deadline:
            return None
        time.sleep(COMMIT_POLL_SECONDS)


def cancel(*, session, user, registration: Registration, token: str) -> None:
    """Forget the table staged under `token` (nothing was stored)."""
    staging.discard_upload(
        session=session, user=user, registration=registration, token=token
    )


def _staged_table(staged: staging.StagedUpload) -> ingest.CheckedResults:
    """The staged table, its rows numbered by their lines in the uploaded file."""
    lines = staged.read_lines()
    return ingest.read_normalised(
        staged.read().decode("utf-8"),
        lines=np.frombuffer(lines, dtype=np.int64) if lines else None,
    )
