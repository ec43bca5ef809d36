"""Citable metadata of a registration version: DataCite 4.6 XML, CSL-JSON, BibTeX.

Built from the version's canonical JSON (title, organizers, call, date, hash)
and the organizers' names and ORCID iDs frozen with the version when it was
written (`FrozenCitation`), so a registered version's citation never changes.
The DataCite XML is validated against the official kernel-4.6 XSD shipped in
`publicrecord/schema/` (see `validate_datacite`).
"""

from __future__ import annotations

import json
import re
import unicodedata
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

from .models import FrozenCitation, ResearcherProfile

NAMESPACE = "http://datacite.org/schema/kernel-4"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_LOCATION = "http://schema.datacite.org/meta/kernel-4.6/metadata.xsd"
XSD_PATH = Path(__file__).parent / "schema" / "datacite-kernel-4.6" / "metadata.xsd"
RESOURCE_TYPE = "Registered challenge design"


_UNPRINTABLE = ("Cc", "Cs", "Co", "Cn")


def one_line(text: str) -> str:
    """`text` on one line without control characters, lone surrogates or
    noncharacters (the categories `design_pdf.printable` drops): XML 1.0 cannot
    hold them, and BibTeX and CSL readers choke on them."""
    kept = (
        c for c in text if unicodedata.category(c) not in _UNPRINTABLE or c in "\t\n\r"
    )
    return " ".join("".join(kept).split())


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


def display_name(given: str, family: str, username: str) -> str:
    """The name "Family, Given" when both are known, else family name or username."""
    return f"{family}, {given}" if given and family else family or username


def creators_now(organizers: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The creators of a version listing `organizers` (its canonical JSON), with
    the names and ORCID iDs their profiles hold now."""
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
        creators.append(
            {
                "name": display_name(given, family, username),
                "given": given,
                "family": family,
                "orcid": orcids.get(username, ""),
                "affiliation": organizer.get("institution", ""),
            }
        )
    return creators


def freeze_citation(version: RegistrationVersion) -> FrozenCitation:
    """Freeze who `version` is by (called when it is written; atomic caller)."""
    organizers = json.loads(version.canonical).get("organizers", [])
    frozen, _ = FrozenCitation.objects.get_or_create(
        version=version, defaults={"creators": creators_now(organizers)}
    )
    return frozen


def _creators(version: RegistrationVersion) -> tuple[Creator, ...]:
    try:
        frozen = version.frozen_citation
    except FrozenCitation.DoesNotExist:
        # written in bulk without signals (registry.seeding): frozen on first use
        frozen = freeze_citation(version)
    return tuple(
        Creator(**{key: one_line(value) for key, value in creator.items()})
        for creator in frozen.creators
    )


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
        title=one_line(document["design"].get("name") or registration.identifier),
        creators=_creators(version),
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
        call_title=one_line(document.get("call", {}).get("title", "")),
        subjects=tuple(one_line(s) for s in (*facts.categories, *facts.modalities)),
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
        f"Design of the challenge “{record.title}”"
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


# TeX specials and how to write them so that LaTeX prints them and BibTeX
# parsers (bibtexparser, pybtex) read the same text back. `\string^` rather than
# `\textasciicircum`, which pylatexenc reads as U+02C6; `\textasciitilde` rather
# than `\~{}`, which parsers read as an accent. Braces are escaped as `\{ \}`
# only when they balance: BibTeX counts every brace, escaped or not.
_TEX = {
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    "^": r"\string^",
    **{c: "\\" + c for c in "%&$#_"},
}
_BRACES = {"{": r"\{", "}": r"\}"}
_UNBALANCED_BRACES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
_BIBTEX_SPECIAL = re.compile(r"[\\{}%&$#_^~]")


def _braces_balance(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _bibtex_text(text: str) -> str:
    """`text` as BibTeX field content: every TeX special escaped, so user text
    can neither break the entry nor be typeset as markup."""
    table = {**_TEX, **(_BRACES if _braces_balance(text) else _UNBALANCED_BRACES)}
    return _BIBTEX_SPECIAL.sub(lambda m: table[m.group(0)], one_line(text))


# " and " (any case) separates names in BibTeX; a comma separates name parts.
_NAME_SEPARATOR = re.compile(r"\sand\s|,", re.IGNORECASE)


def _bibtex_name_part(part: str) -> str:
    escaped = _bibtex_text(part)
    return "{" + escaped + "}" if _NAME_SEPARATOR.search(part) else escaped


def _bibtex_name(creator: Creator) -> str:
    if not creator.family:
        return _bibtex_name_part(creator.name)
    family = _bibtex_name_part(creator.family)
    return f"{family}, {_bibtex_name_part(creator.given)}" if creator.given else family


def bibtex(record: CitationRecord) -> str:
    key = re.sub(r"[^A-Za-z0-9]", "", record.identifier) + f"v{record.version}"
    authors = " and ".join(_bibtex_name(c) for c in record.creators)
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
