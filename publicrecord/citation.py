"""Citable metadata of a registration version: DataCite 4.6 XML, CSL-JSON, BibTeX.

Built from the version's canonical JSON (title, organizers, call, date, hash)
plus the organizers' ORCID iDs as they are now (an iD added later still
identifies the same person). The DataCite XML is validated against the official
kernel-4.6 XSD shipped in `publicrecord/schema/` (see `validate_datacite`).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse

from config.site import absolute_url
from registry.models import Registration, RegistrationVersion
from registry.search import listing_facts

from .models import ResearcherProfile

NAMESPACE = "http://datacite.org/schema/kernel-4"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_LOCATION = "http://schema.datacite.org/meta/kernel-4.6/metadata.xsd"
XSD_PATH = Path(__file__).parent / "schema" / "datacite-kernel-4.6" / "metadata.xsd"
RESOURCE_TYPE = "Registered challenge design"


def publisher() -> str:
    return getattr(settings, "PUBLICRECORD_PUBLISHER", "Challenge design registry")


@dataclass(frozen=True)
class Creator:
    name: str  # "Family, Given" when both are known, else the username
    given: str
    family: str
    orcid: str
    affiliation: str


@dataclass(frozen=True)
class CitationRecord:
    identifier: str
    version: int
    title: str
    creators: tuple[Creator, ...]
    year: int
    issued: str  # YYYY-MM-DD of version 1
    updated: str  # YYYY-MM-DD of this version
    url: str
    previous_url: str
    sha256: str
    call_title: str
    subjects: tuple[str, ...]
    doi: str = ""


def _creators(organizers: list[dict[str, Any]]) -> tuple[Creator, ...]:
    names = [o["username"] for o in organizers]
    users = {
        u.get_username(): u for u in get_user_model().objects.filter(username__in=names)
    }
    orcids = dict(
        ResearcherProfile.objects.filter(user__username__in=names)
        .exclude(orcid="")
        .values_list("user__username", "orcid")
    )
    creators = []
    for organizer in organizers:
        username = organizer["username"]
        user = users.get(username)
        given = (user.first_name if user else "").strip()
        family = (user.last_name if user else "").strip()
        name = f"{family}, {given}" if given and family else (family or username)
        creators.append(
            Creator(
                name=name,
                given=given,
                family=family,
                orcid=orcids.get(username, ""),
                affiliation=organizer.get("institution", ""),
            )
        )
    return tuple(creators)


def version_url(identifier: str, number: int) -> str:
    path = reverse("registry:public-detail", args=[identifier])
    return absolute_url(f"{path}?version={number}")


def citation_record(version: RegistrationVersion) -> CitationRecord:
    registration: Registration = version.registration
    document = json.loads(version.canonical)
    first = registration.versions.order_by("number").first()
    facts = listing_facts(document)
    deposit = getattr(version, "deposit", None)  # a published deposit has a DOI
    doi = deposit.doi if deposit is not None and deposit.status == "done" else ""
    return CitationRecord(
        identifier=registration.identifier,
        version=version.number,
        title=document["design"].get("name") or registration.identifier,
        creators=_creators(document.get("organizers", [])),
        year=version.created.year,
        issued=first.created.date().isoformat(),
        updated=version.created.date().isoformat(),
        url=version_url(registration.identifier, version.number),
        previous_url=(
            version_url(registration.identifier, version.number - 1)
            if version.previous_sha256  # not the first version
            else ""
        ),
        sha256=version.sha256,
        call_title=document.get("call", {}).get("title", ""),
        subjects=(*facts.categories, *facts.modalities),
        doi=doi,
    )


# --- DataCite --------------------------------------------------------------------


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs) -> ET.Element:
    element = ET.SubElement(parent, f"{{{NAMESPACE}}}{tag}", attrs)
    if text is not None:
        element.text = text
    return element


def _creator(creators: ET.Element, creator: Creator) -> None:
    element = _sub(creators, "creator")
    _sub(element, "creatorName", creator.name, nameType="Personal")
    if creator.given:
        _sub(element, "givenName", creator.given)
    if creator.family:
        _sub(element, "familyName", creator.family)
    if creator.orcid:
        _sub(
            element,
            "nameIdentifier",
            f"https://orcid.org/{creator.orcid}",
            nameIdentifierScheme="ORCID",
            schemeURI="https://orcid.org",
        )
    if creator.affiliation:
        _sub(element, "affiliation", creator.affiliation)


def datacite_xml(record: CitationRecord) -> bytes:
    """DataCite Metadata Schema 4.6 XML of one registration version."""
    ET.register_namespace("", NAMESPACE)
    ET.register_namespace("xsi", XSI)
    root = ET.Element(
        f"{{{NAMESPACE}}}resource",
        {f"{{{XSI}}}schemaLocation": f"{NAMESPACE} {SCHEMA_LOCATION}"},
    )
    if record.doi:
        _sub(root, "identifier", record.doi, identifierType="DOI")
    else:
        _sub(root, "identifier", record.url, identifierType="URL")
    creators = _sub(root, "creators")
    for creator in record.creators:
        _creator(creators, creator)
    titles = _sub(root, "titles")
    _sub(titles, "title", record.title)
    _sub(
        titles,
        "title",
        f"Registered challenge design, version {record.version}",
        titleType="Subtitle",
    )
    _sub(root, "publisher", publisher())
    _sub(root, "publicationYear", str(record.year))
    _sub(root, "resourceType", RESOURCE_TYPE, resourceTypeGeneral="StudyRegistration")
    if record.subjects:
        subjects = _sub(root, "subjects")
        for subject in record.subjects:
            _sub(subjects, "subject", subject)
    dates = _sub(root, "dates")
    _sub(dates, "date", record.issued, dateType="Issued")
    if record.version > 1:
        _sub(dates, "date", record.updated, dateType="Updated")
    _sub(root, "language", "en")
    alternates = _sub(root, "alternateIdentifiers")
    _sub(
        alternates,
        "alternateIdentifier",
        f"{record.identifier} v{record.version}",
        alternateIdentifierType="Registry identifier",
    )
    _sub(
        alternates,
        "alternateIdentifier",
        record.sha256,
        alternateIdentifierType="SHA-256 of the canonical JSON",
    )
    related = _sub(root, "relatedIdentifiers")
    if record.doi:
        _sub(
            related,
            "relatedIdentifier",
            record.url,
            relatedIdentifierType="URL",
            relationType="IsIdenticalTo",
        )
    if record.previous_url:
        _sub(
            related,
            "relatedIdentifier",
            record.previous_url,
            relatedIdentifierType="URL",
            relationType="IsNewVersionOf",
        )
    if not len(related):
        root.remove(related)
    formats = _sub(root, "formats")
    _sub(formats, "format", "application/json")
    _sub(formats, "format", "application/pdf")
    _sub(root, "version", str(record.version))
    descriptions = _sub(root, "descriptions")
    _sub(
        descriptions,
        "description",
        f"Design of the challenge {record.title!r}"
        + (f" ({record.call_title})" if record.call_title else "")
        + f", registered as {record.identifier} version {record.version}. "
        f"SHA-256 of the canonical JSON: {record.sha256}.",
        descriptionType="Abstract",
    )
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


@cache
def _schema():
    from lxml import etree  # only needed to validate

    return etree.XMLSchema(etree.parse(str(XSD_PATH)))


def validate_datacite(data: bytes) -> list[str]:
    """Errors of `data` against the shipped DataCite XSD; [] when valid."""
    from lxml import etree

    schema = _schema()
    document = etree.fromstring(data)
    if schema.validate(document):
        return []
    return [f"line {e.line}: {e.message}" for e in schema.error_log]


# --- reference managers ----------------------------------------------------------


def _csl_name(creator: Creator) -> dict[str, str]:
    if creator.family:
        return {"family": creator.family, "given": creator.given}
    return {"literal": creator.name}


def csl_json(record: CitationRecord) -> list[dict[str, Any]]:
    """CSL-JSON (one item) for Zotero, Mendeley and citeproc."""
    year, month, day = (int(p) for p in record.updated.split("-"))
    item: dict[str, Any] = {
        "id": f"{record.identifier}-v{record.version}",
        "type": "dataset",
        "title": record.title,
        "author": [_csl_name(c) for c in record.creators],
        "issued": {"date-parts": [[year, month, day]]},
        "publisher": publisher(),
        "version": str(record.version),
        "URL": record.url,
        "genre": RESOURCE_TYPE,
        "note": f"SHA-256: {record.sha256}",
    }
    if record.doi:
        item["DOI"] = record.doi
    if record.call_title:
        item["container-title"] = record.call_title
    return [item]


_BIBTEX_SPECIAL = re.compile(r"([\\{}%&$#_^~])")


def _bibtex_text(text: str) -> str:
    """Escape BibTeX/LaTeX specials so user text cannot break the entry."""
    replacements = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}
    return _BIBTEX_SPECIAL.sub(
        lambda m: replacements.get(m.group(1), "\\" + m.group(1)), text
    )


def bibtex(record: CitationRecord) -> str:
    key = re.sub(r"[^A-Za-z0-9]", "", record.identifier) + f"v{record.version}"
    authors = " and ".join(
        _bibtex_text(f"{c.family}, {c.given}" if c.family else c.name)
        for c in record.creators
    )
    fields = [
        ("author", authors),
        ("title", "{" + _bibtex_text(record.title) + "}"),
        ("howpublished", _bibtex_text(f"{publisher()}, {record.identifier}")),
        ("year", str(record.year)),
        ("version", str(record.version)),
        ("url", record.url),
        ("note", f"Registered challenge design, SHA-256 {record.sha256}"),
    ]
    if record.doi:
        fields.append(("doi", record.doi))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{key},\n{body}\n}}\n"
