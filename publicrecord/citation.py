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

from .models import FrozenCitation, Publication, ResearcherProfile
from .results import page_url
from .selectors import current_results, is_public, public_since

NAMESPACE = "http://datacite.org/schema/kernel-4"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_VERSION = "4.6"
SCHEMA_LOCATION = (
    f"http://schema.datacite.org/meta/kernel-{SCHEMA_VERSION}/metadata.xsd"
)
XSD_PATH = (
    Path(__file__).parent
    / "schema"
    / f"datacite-kernel-{SCHEMA_VERSION}"
    / "metadata.xsd"
)
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
    next_url: str
    sha256: str
    call_title: str
    subjects: tuple[str, ...]
    doi: str = ""
    # pages of the current public results judged against this version
    supplemented_by: tuple[str, ...] = ()


def display_name(given: str, family: str, username: str) -> str:
    """The name "Family, Given" when both are known, else family name or username."""
    return f"{family}, {given}" if given and family else family or username


def creators_now(organizers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The creators of a version listing `organizers` (its canonical JSON), with
    the names and ORCID iDs their profiles hold now."""
    names = [o["username"] for o in organizers]
    users = {
        u.get_username(): u for u in get_user_model().objects.filter(username__in=names)
    }
    # only iDs ORCID confirmed are frozen: a typed one could be anyone's
    orcids = dict(
        ResearcherProfile.objects.filter(user__username__in=names, orcid_verified=True)
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
                "orcid_verified": username in orcids,
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
    return tuple(_creator(entry) for entry in frozen.creators)


TEXT_FIELDS = ("name", "given", "family", "affiliation")


def _creator(entry: dict[str, Any]) -> Creator:
    """A frozen creator; its ORCID iD only when ORCID confirmed it (iDs frozen
    before verification existed were typed, so they are left out)."""
    verified = entry.get("orcid_verified") is True
    return Creator(
        **{key: one_line(str(entry.get(key) or "")) for key in TEXT_FIELDS},
        orcid=one_line(str(entry.get("orcid") or "")) if verified else "",
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
        next_url=(
            version_url(registration.identifier, version.number + 1)
            if registration.versions.filter(number=version.number + 1).exists()
            else ""
        ),
        sha256=version.sha256,
        call_title=one_line(document.get("call", {}).get("title", "")),
        subjects=tuple(one_line(s) for s in (*facts.categories, *facts.modalities)),
        doi=doi,
        supplemented_by=tuple(
            absolute_url(page_url(p)) for p in current_results().filter(version=version)
        ),
    )


# --- DataCite --------------------------------------------------------------------


def _related(record: CitationRecord) -> list[dict[str, str]]:
    related = []
    if record.doi:
        related.append((record.url, "IsIdenticalTo"))
    if record.previous_url:
        related.append((record.previous_url, "IsNewVersionOf"))
    if record.next_url:
        related.append((record.next_url, "IsPreviousVersionOf"))
    related += [(url, "IsSupplementedBy") for url in record.supplemented_by]
    return _url_relations(related)


def _url_relations(related: list[tuple[str, str]]) -> list[dict[str, str]]:
    """DataCite relatedIdentifiers of (URL, relationType) pairs."""
    return [
        {"relatedIdentifier": url, "relatedIdentifierType": "URL", "relationType": r}
        for url, r in related
    ]


def _datacite_creator(creator: Creator) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": creator.name, "nameType": "Personal"}
    if creator.given:
        entry["givenName"] = creator.given
    if creator.family:
        entry["familyName"] = creator.family
    if creator.orcid:
        entry["nameIdentifiers"] = [
            {
                "nameIdentifier": f"https://orcid.org/{creator.orcid}",
                "nameIdentifierScheme": "ORCID",
                "schemeUri": "https://orcid.org",
            }
        ]
    if creator.affiliation:
        entry["affiliation"] = [{"name": creator.affiliation}]
    return entry


def _titles(title: str, subtitle: str) -> list[dict[str, str]]:
    return [{"title": title}, {"title": subtitle, "titleType": "Subtitle"}]


def datacite_json(record: CitationRecord) -> dict[str, Any]:
    """The DataCite metadata of one registration version as the attributes of
    DataCite's REST API (JSON); `datacite_xml` writes the same as XML."""
    identifier = (
        {"identifier": record.doi, "identifierType": "DOI"}
        if record.doi
        else {"identifier": record.url, "identifierType": "URL"}
    )
    dates = [{"date": record.issued, "dateType": "Issued"}]
    if record.version > 1:
        dates.append({"date": record.updated, "dateType": "Updated"})
    description = (
        f"Design of the challenge “{record.title}”"
        + (f" ({record.call_title})" if record.call_title else "")
        + f", registered as {record.identifier} version {record.version}. "
        f"SHA-256 of the canonical JSON: {record.sha256}."
    )
    attributes: dict[str, Any] = {
        **({"doi": record.doi} if record.doi else {}),
        "identifiers": [identifier],
        "creators": [_datacite_creator(c) for c in record.creators],
        "titles": _titles(
            record.title, f"Registered challenge design, version {record.version}"
        ),
        "publisher": {"name": publisher()},
        "publicationYear": record.year,
        "types": {
            "resourceTypeGeneral": "StudyRegistration",
            "resourceType": RESOURCE_TYPE,
        },
        "subjects": [{"subject": s} for s in record.subjects],
        "dates": dates,
        "language": "en",
        "alternateIdentifiers": [
            {
                "alternateIdentifier": f"{record.identifier} v{record.version}",
                "alternateIdentifierType": "Registry identifier",
            },
            {
                "alternateIdentifier": record.sha256,
                "alternateIdentifierType": "SHA-256 of the canonical JSON",
            },
        ],
        "relatedIdentifiers": _related(record),
        "formats": ["application/json", "application/pdf"],
        "version": str(record.version),
        "descriptions": [{"description": description, "descriptionType": "Abstract"}],
        "url": record.url,
        "schemaVersion": NAMESPACE,
    }
    return attributes


RESULT_TYPES = {
    False: "Challenge results",
    True: "Exploratory analysis of challenge results",
}


def result_datacite_json(publication: Publication) -> dict[str, Any]:
    """The DataCite metadata (REST API attributes, as `datacite_json`) of a
    published result: a Dataset at its results page, by the creators of the
    registered version it supplements. Public publications only (the caller
    selects them with `selectors.published_results`)."""
    design = citation_record(publication.version)
    url = absolute_url(page_url(publication))
    day = public_since(publication).date()
    kind = RESULT_TYPES[publication.exploratory]
    related = [(design.url, "IsSupplementTo")]
    earlier = publication.supersedes
    if earlier is not None and is_public(earlier):
        related.append((absolute_url(page_url(earlier)), "IsNewVersionOf"))
    hashes = (
        f"SHA-256 of the results table (CSV): {publication.results_sha256}; "
        f"of the analysis output (JSON): {publication.output_sha256}; "
        f"of the report (PDF): {publication.report_sha256}."
    )
    what = "An exploratory analysis" if publication.exploratory else "The results"
    description = (
        f"{what} of the challenge “{design.title}”, publication "
        f"{publication.number} of {design.identifier}: rankings, rank intervals "
        "and every deviation from the registered design (version "
        f"{design.version}, SHA-256 {design.sha256})."
    )
    return {
        "identifiers": [{"identifier": url, "identifierType": "URL"}],
        "creators": [_datacite_creator(c) for c in design.creators],
        "titles": _titles(design.title, f"{kind}, publication {publication.number}"),
        "publisher": {"name": publisher()},
        "publicationYear": day.year,
        "types": {"resourceTypeGeneral": "Dataset", "resourceType": kind},
        "subjects": [{"subject": s} for s in design.subjects],
        "dates": [{"date": day.isoformat(), "dateType": "Issued"}],
        "language": "en",
        "alternateIdentifiers": [
            {
                "alternateIdentifier": f"{design.identifier} results "
                f"{publication.number}",
                "alternateIdentifierType": "Registry identifier",
            }
        ],
        "relatedIdentifiers": _url_relations(related),
        "formats": ["text/csv", "application/pdf", "application/json"],
        "version": str(publication.number),
        "descriptions": [
            {"description": description, "descriptionType": "Abstract"},
            {"description": hashes, "descriptionType": "TechnicalInfo"},
        ],
        "url": url,
        "schemaVersion": NAMESPACE,
    }


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs) -> ET.Element:
    element = ET.SubElement(parent, f"{{{NAMESPACE}}}{tag}", attrs)
    if text is not None:
        element.text = text
    return element


def _xml_creator(creators: ET.Element, creator: dict[str, Any]) -> None:
    element = _sub(creators, "creator")
    _sub(element, "creatorName", creator["name"], nameType=creator["nameType"])
    for key in ("givenName", "familyName"):
        if key in creator:
            _sub(element, key, creator[key])
    for name_id in creator.get("nameIdentifiers", []):
        _sub(
            element,
            "nameIdentifier",
            name_id["nameIdentifier"],
            nameIdentifierScheme=name_id["nameIdentifierScheme"],
            schemeURI=name_id["schemeUri"],
        )
    for affiliation in creator.get("affiliation", []):
        _sub(element, "affiliation", affiliation["name"])


def _xml_list(root: ET.Element, items: list[dict[str, str]], tag: str) -> None:
    """`<tags><tag attr=…>text</tag>…</tags>` from DataCite JSON items whose
    text is under the key `tag` and whose other keys are attributes."""
    if not items:
        return
    parent = _sub(root, f"{tag}s")
    for item in items:
        attrs = {k: v for k, v in item.items() if k != tag}
        _sub(parent, tag, item[tag], **attrs)


def datacite_xml_from(attributes: dict[str, Any]) -> bytes:
    """DataCite Metadata Schema 4.6 XML of DataCite JSON `attributes`."""
    ET.register_namespace("", NAMESPACE)
    ET.register_namespace("xsi", XSI)
    root = ET.Element(
        f"{{{NAMESPACE}}}resource",
        {f"{{{XSI}}}schemaLocation": f"{NAMESPACE} {SCHEMA_LOCATION}"},
    )
    (identifier,) = attributes["identifiers"]
    _sub(
        root,
        "identifier",
        identifier["identifier"],
        identifierType=identifier["identifierType"],
    )
    creators = _sub(root, "creators")
    for creator in attributes["creators"]:
        _xml_creator(creators, creator)
    _xml_list(root, attributes["titles"], "title")
    _sub(root, "publisher", attributes["publisher"]["name"])
    _sub(root, "publicationYear", str(attributes["publicationYear"]))
    types = attributes["types"]
    _sub(
        root,
        "resourceType",
        types["resourceType"],
        resourceTypeGeneral=types["resourceTypeGeneral"],
    )
    _xml_list(root, attributes["subjects"], "subject")
    _xml_list(root, attributes["dates"], "date")
    _sub(root, "language", attributes["language"])
    _xml_list(root, attributes["alternateIdentifiers"], "alternateIdentifier")
    _xml_list(root, attributes["relatedIdentifiers"], "relatedIdentifier")
    _xml_list(root, [{"format": f} for f in attributes["formats"]], "format")
    _sub(root, "version", attributes["version"])
    _xml_list(root, attributes["descriptions"], "description")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def datacite_xml(record: CitationRecord) -> bytes:
    """DataCite Metadata Schema 4.6 XML of one registration version."""
    return datacite_xml_from(datacite_json(record))


@cache
def _schema(path: Path):
    from lxml import etree  # only needed to validate

    return etree.XMLSchema(etree.parse(str(path)))


def xsd_errors(data: bytes, path: Path) -> list[str]:
    """Errors of the XML `data` against the shipped XSD at `path`; [] when
    valid."""
    from lxml import etree

    schema = _schema(path)
    document = etree.fromstring(data)
    if schema.validate(document):
        return []
    return [f"line {e.line}: {e.message}" for e in schema.error_log]


def validate_datacite(data: bytes) -> list[str]:
    """Errors of `data` against the shipped DataCite XSD; [] when valid."""
    return xsd_errors(data, XSD_PATH)


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


# --- schema.org (search engines) -------------------------------------------------


def _schema_person(creator: Creator) -> dict[str, Any]:
    person: dict[str, Any] = {"@type": "Person", "name": creator.name}
    if creator.given:
        person["givenName"] = creator.given
    if creator.family:
        person["familyName"] = creator.family
    if creator.orcid:
        person["identifier"] = f"https://orcid.org/{creator.orcid}"
    if creator.affiliation:
        person["affiliation"] = {"@type": "Organization", "name": creator.affiliation}
    return person


def schema_org(record: CitationRecord) -> dict[str, Any]:
    """schema.org JSON-LD of a registration version, for its public page."""
    identifiers = [
        {
            "@type": "PropertyValue",
            "propertyID": "Registry identifier",
            "value": f"{record.identifier} v{record.version}",
        },
        {"@type": "PropertyValue", "propertyID": "SHA-256", "value": record.sha256},
    ]
    if record.doi:
        identifiers.insert(0, f"https://doi.org/{record.doi}")
    item: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "CreativeWork",
        "additionalType": RESOURCE_TYPE,
        "@id": record.url,
        "url": record.url,
        "name": record.title,
        "alternateName": f"{record.identifier} version {record.version}",
        "identifier": identifiers,
        "version": str(record.version),
        "datePublished": record.issued,
        "dateModified": record.updated,
        "creator": [_schema_person(c) for c in record.creators],
        "publisher": {"@type": "Organization", "name": publisher()},
        "inLanguage": "en",
        "isAccessibleForFree": True,
        "description": (
            f"Registered design of the challenge “{record.title}”"
            + (f" ({record.call_title})" if record.call_title else "")
            + f", {record.identifier} version {record.version}."
        ),
    }
    if record.subjects:
        item["keywords"] = list(record.subjects)
    if record.previous_url:
        item["isBasedOn"] = record.previous_url
    return item
