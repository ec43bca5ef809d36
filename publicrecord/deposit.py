"""Optional deposit of registered designs in a Zenodo-compatible repository.

Off unless `ZENODO_TOKEN` is set. Then every new registration version is
deposited by a background job (`analysis.jobs`), and `manage.py
deposit_registrations` deposits the versions still missing or failed. Each
deposit uploads the version's design PDF, its canonical JSON and its DataCite
XML, sets the metadata and publishes; the DOI it returns becomes the version's
DataCite identifier.

The Zenodo REST API endpoints used (and implemented by the test server in
tests/publicrecord/zenodo_server.py), all with ``Authorization: Bearer <token>``:

1. ``POST {ZENODO_URL}/api/deposit/depositions`` with ``{}`` → 201
   ``{"id", "links": {"bucket"}}``;
2. ``PUT {bucket}/{filename}`` with the file's bytes → 200/201;
3. ``PUT {ZENODO_URL}/api/deposit/depositions/{id}`` with ``{"metadata": …}`` → 200;
4. ``POST {ZENODO_URL}/api/deposit/depositions/{id}/actions/publish`` → 202
   ``{"doi", "links": {"html"}}``.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from analysis.jobs import enqueue, job
from registry.models import RegistrationVersion
from registry.public import version_design_pdf

from .citation import CitationRecord, citation_record, datacite_xml
from .models import Deposit, DepositStatus

logger = logging.getLogger(__name__)
ERROR_LIMIT = 2000  # characters of a failure kept on the deposit


class DepositError(Exception):
    """The repository refused a step or could not be reached."""


def enabled() -> bool:
    return bool(getattr(settings, "ZENODO_TOKEN", ""))


# --- HTTP ------------------------------------------------------------------------


# A DOI as DataCite allows it (prefix 10.<registrant>/suffix), nothing else.
DOI = re.compile(r"10\.\d{4,9}/[-._;()/:A-Za-z0-9]+")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """urllib follows a redirect with the Authorization header, to any host:
    no redirect is followed (the answer stays an HTTPError)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


def _request(method: str, url: str, *, body: bytes | None = None, json_body=None):
    # URLs come from the settings and from the repository's answers (the
    # bucket): the token goes only to the configured repository's origin.
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise DepositError(f"{method} {url}: not an http(s) URL.")
    if _origin(url) != _origin(settings.ZENODO_URL):
        raise DepositError(
            f"{method} {url}: not on the configured repository "
            f"({settings.ZENODO_URL}); the token is not sent there."
        )
    headers = {"Authorization": f"Bearer {settings.ZENODO_TOKEN}"}
    if json_body is not None:
        body = json.dumps(json_body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    elif body is not None:
        headers["Content-Type"] = "application/octet-stream"
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with _OPENER.open(request, timeout=settings.ZENODO_TIMEOUT_SECONDS) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        if 300 <= exc.code < 400:
            raise DepositError(
                f"{method} {url}: HTTP {exc.code} to {exc.headers.get('Location')!r}"
                "; redirects are not followed (the token goes to ZENODO_URL only)."
            ) from None
        detail = exc.read()[:500].decode("utf-8", "replace")
        raise DepositError(f"{method} {url}: HTTP {exc.code}: {detail}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise DepositError(f"{method} {url}: {exc}") from None
    return json.loads(raw) if raw else {}


def _api(path: str) -> str:
    return f"{settings.ZENODO_URL.rstrip('/')}/api/deposit/depositions{path}"


# --- what is deposited -----------------------------------------------------------


def design_pdf(version: RegistrationVersion) -> bytes:
    """The version's design PDF, as the public page serves it."""
    return version_design_pdf(version, registry_url=citation_record(version).url)


def zenodo_metadata(record: CitationRecord) -> dict[str, Any]:
    creators = []
    for creator in record.creators:
        entry: dict[str, Any] = {"name": creator.name}
        if creator.affiliation:
            entry["affiliation"] = creator.affiliation
        if creator.orcid:
            entry["orcid"] = creator.orcid
        creators.append(entry)
    return {
        "upload_type": "publication",
        "publication_type": "other",
        "title": (
            f"{record.title} — registered challenge design, version {record.version}"
        ),
        "creators": creators,
        "description": (
            f"Registered design of the challenge {record.title}"
            + (f" ({record.call_title})" if record.call_title else "")
            + f", {record.identifier} version {record.version}. SHA-256 of the "
            f"canonical JSON: {record.sha256}."
        ),
        "publication_date": record.updated,
        "version": str(record.version),
        "keywords": ["challenge design", "registration", *record.subjects],
        "related_identifiers": [
            {"identifier": record.url, "relation": "isIdenticalTo", "scheme": "url"}
        ],
    }


def _files(
    version: RegistrationVersion, record: CitationRecord
) -> list[tuple[str, bytes]]:
    stem = f"{record.identifier}-v{record.version}"
    return [
        (f"{stem}-design.pdf", design_pdf(version)),
        (f"{stem}-canonical.json", version.canonical.encode("utf-8")),
        (f"{stem}-datacite.xml", datacite_xml(record)),
    ]


# --- the job ---------------------------------------------------------------------


def _claim(version_id: int) -> Deposit | None:
    """The deposit to work on, or None when it is published already."""
    with transaction.atomic():
        deposit, _ = Deposit.objects.select_for_update().get_or_create(
            version_id=version_id
        )
        if deposit.status == DepositStatus.DONE:
            return None
        deposit.attempts += 1
        deposit.status = DepositStatus.QUEUED
        deposit.save(update_fields=["attempts", "status"])
    return deposit


def deposit_version(version_id: int) -> Deposit | None:
    """Deposit one version (resuming a deposition created by an earlier try).

    Each step that changes the repository is stored before the next, so a
    retry never creates a second deposition. A failure is recorded on the
    deposit (status failed, error) and not raised: the command retries later.
    """
    if not enabled():
        return None
    deposit = _claim(version_id)
    if deposit is None:
        return Deposit.objects.get(version_id=version_id)
    version = RegistrationVersion.objects.select_related("registration__call").get(
        pk=version_id
    )
    try:
        if not deposit.deposition_id:
            created = _request("POST", _api(""), json_body={})
            deposit.deposition_id = str(created["id"])
            deposit.bucket = created["links"]["bucket"]
            deposit.save(update_fields=["deposition_id", "bucket"])
        record = citation_record(version)
        for name, content in _files(version, record):
            _request(
                "PUT", f"{deposit.bucket}/{urllib.parse.quote(name)}", body=content
            )
        path = f"/{deposit.deposition_id}"
        _request("PUT", _api(path), json_body={"metadata": zenodo_metadata(record)})
        published = _request("POST", _api(f"{path}/actions/publish"))
        doi = _checked_doi(published.get("doi"))
    except (DepositError, KeyError, TypeError, ValueError) as exc:
        deposit.status = DepositStatus.FAILED
        deposit.error = str(exc)[:ERROR_LIMIT]
        deposit.save(update_fields=["status", "error"])
        logger.warning("deposit of %s failed: %s", version, exc)
        return deposit
    deposit.status = DepositStatus.DONE
    deposit.doi = doi
    deposit.record_url = str(published.get("links", {}).get("html", ""))[:500]
    deposit.error = ""
    deposit.finished = timezone.now()
    deposit.save(update_fields=["status", "doi", "record_url", "error", "finished"])
    return deposit


def _checked_doi(value: Any) -> str:
    """The DOI the repository returned, if it is one (it goes into DataCite)."""
    if not isinstance(value, str) or not DOI.fullmatch(value):
        raise DepositError(f"The repository returned {str(value)[:100]!r}, not a DOI.")
    return value


@job
def deposit_job(version_id: int) -> None:
    deposit_version(version_id)


def schedule_deposit(version: RegistrationVersion) -> None:
    """Queue the deposit of a new version (after its transaction commits)."""
    if enabled():
        enqueue(deposit_job, version.pk)


def pending_versions():
    """Versions without a published deposit, oldest first."""
    return RegistrationVersion.objects.exclude(
        deposit__status=DepositStatus.DONE
    ).order_by("created", "pk")
