"""OAI-PMH 2.0 (https://www.openarchives.org/OAI/openarchivesprotocol.html) at
`/oai`: the registry's public records for harvesters (DataCite, Zenodo, OSF,
institutional repositories).

The six verbs, three formats, one set per record source (`oai_sources.py`),
selective harvesting by datestamp, signed resumption tokens (`OAI_PAGE_SIZE`
records a page) and the protocol's errors. Records are never deleted
(registered versions are write-once).

The formats are those of DataCite's own OAI-PMH provider, which harvesters
such as OpenAIRE expect: `oai_dc`; `oai_datacite`, the DataCite OAI Schema 1.1
wrapper (`datacentreSymbol`, `schemaVersion`, and the record in `payload`);
`datacite`, the bare kernel-4 `<resource>`. Both DataCite formats validate
against the XSDs in `publicrecord/schema/` (`validate_oai_datacite`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone
from lxml import etree

from config.site import absolute_url, site_url

from .citation import NAMESPACE as DATACITE
from .citation import SCHEMA_LOCATION as DATACITE_SCHEMA
from .citation import SCHEMA_VERSION as DATACITE_VERSION
from .citation import (
    datacite_xml_from,
    one_line,
    publisher,
    validate_datacite,
    xsd_errors,
)
from .oai_sources import OaiRecord, RecordSource, record_sources

OAI = "http://www.openarchives.org/OAI/2.0/"
OAI_SCHEMA = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
OAI_DC = "http://www.openarchives.org/OAI/2.0/oai_dc/"
OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
DC = "http://purl.org/dc/elements/1.1/"
OAI_DATACITE = "http://schema.datacite.org/oai/oai-1.1/"
OAI_DATACITE_SCHEMA = "http://schema.datacite.org/oai/oai-1.1/oai.xsd"
OAI_DATACITE_XSD = Path(__file__).parent / "schema" / "datacite-oai-1.1" / "oai.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
GRANULARITY = "YYYY-MM-DDThh:mm:ssZ"
EARLIEST_WHEN_EMPTY = datetime(2000, 1, 1, tzinfo=UTC)
TOKEN_SALT = "publicrecord.oai.resumption"
# a namespace-identifier of the oai-identifier scheme: a domain name
_REPOSITORY_ID = re.compile(r"[a-zA-Z][a-zA-Z0-9\-]*(\.[a-zA-Z][a-zA-Z0-9\-]*)+")


class OaiError(Exception):
    """A protocol error: its code (badVerb, badArgument, ...) and a message."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _el(parent: etree._Element, tag: str, text: str | None = None, **attrs):
    element = etree.SubElement(parent, f"{{{OAI}}}{tag}", attrs)
    if text is not None:
        element.text = text
    return element


def datestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def repository_identifier() -> str:
    """`OAI_REPOSITORY_IDENTIFIER`, else SITE_URL's host when it is a domain
    name (the oai-identifier scheme allows nothing else)."""
    configured = getattr(settings, "OAI_REPOSITORY_IDENTIFIER", "")
    host = urlsplit(site_url()).hostname or ""
    if configured:
        return configured
    return host if _REPOSITORY_ID.fullmatch(host) else "challenge-registry.local"


def base_url() -> str:
    return absolute_url(reverse("publicrecord:oai"))


# --- metadata formats ------------------------------------------------------------


def _oai_dc(attributes: dict[str, Any]) -> etree._Element:
    """Simple Dublin Core of a record's DataCite attributes."""
    root = etree.Element(
        f"{{{OAI_DC}}}dc",
        {f"{{{XSI}}}schemaLocation": f"{OAI_DC} {OAI_DC_SCHEMA}"},
        nsmap={"oai_dc": OAI_DC, "dc": DC, "xsi": XSI},
    )

    def dc(tag: str, text: str) -> None:
        etree.SubElement(root, f"{{{DC}}}{tag}").text = text

    for title in attributes["titles"]:
        dc("title", title["title"])
    for creator in attributes["creators"]:
        dc("creator", creator["name"])
    for subject in attributes["subjects"]:
        dc("subject", subject["subject"])
    for description in attributes["descriptions"]:
        dc("description", description["description"])
    dc("publisher", attributes["publisher"]["name"])
    for date in attributes["dates"]:
        if date["dateType"] == "Issued":
            dc("date", date["date"])
    dc("type", attributes["types"]["resourceTypeGeneral"])
    dc("type", attributes["types"]["resourceType"])
    for fmt in attributes["formats"]:
        dc("format", fmt)
    dc("identifier", attributes["url"])
    if "doi" in attributes:
        dc("identifier", f"https://doi.org/{attributes['doi']}")
    dc("language", attributes["language"])
    for related in attributes["relatedIdentifiers"]:
        dc("relation", related["relatedIdentifier"])
    return root


def _datacite(attributes: dict[str, Any]) -> etree._Element:
    """The bare DataCite kernel-4 `<resource>` (the same as `datacite.xml`)."""
    # blank text dropped: the response is indented as a whole (a parser per
    # call: lxml parsers are not shared between threads)
    compact = etree.XMLParser(remove_blank_text=True)
    return etree.fromstring(datacite_xml_from(attributes), compact)


def _oai_datacite(attributes: dict[str, Any]) -> etree._Element:
    """The DataCite OAI Schema 1.1 wrapper around the `<resource>`.

    `datacentreSymbol` is the DataCite repository that registered the record
    (`DATACITE_CLIENT_ID`); empty when the registry has none, which the schema
    allows (an xs:string)."""
    root = etree.Element(
        f"{{{OAI_DATACITE}}}oai_datacite",
        {f"{{{XSI}}}schemaLocation": f"{OAI_DATACITE} {OAI_DATACITE_SCHEMA}"},
        nsmap={None: OAI_DATACITE, "xsi": XSI},
    )
    etree.SubElement(root, f"{{{OAI_DATACITE}}}schemaVersion").text = DATACITE_VERSION
    symbol = etree.SubElement(root, f"{{{OAI_DATACITE}}}datacentreSymbol")
    symbol.text = getattr(settings, "DATACITE_CLIENT_ID", "")
    etree.SubElement(root, f"{{{OAI_DATACITE}}}payload").append(_datacite(attributes))
    return root


def validate_oai_datacite(data: bytes) -> list[str]:
    """Errors of an `oai_datacite` record against the shipped oai-1.1 XSD and
    of its payload against the kernel-4.6 XSD (oai-1.1 leaves the payload
    untyped); [] when valid."""
    errors = xsd_errors(data, OAI_DATACITE_XSD)
    payload = etree.fromstring(data).find(f"{{{OAI_DATACITE}}}payload")
    if payload is None:
        return errors  # the XSD names what is missing
    resources = list(payload)
    if len(resources) != 1:
        return [*errors, f"payload holds {len(resources)} elements, not 1."]
    return errors + validate_datacite(etree.tostring(resources[0]))


@dataclass(frozen=True)
class MetadataFormat:
    prefix: str
    schema: str
    namespace: str
    write: Callable[[dict[str, Any]], etree._Element]


FORMATS = {
    f.prefix: f
    for f in (
        MetadataFormat("oai_dc", OAI_DC_SCHEMA, OAI_DC, _oai_dc),
        MetadataFormat(
            "oai_datacite", OAI_DATACITE_SCHEMA, OAI_DATACITE, _oai_datacite
        ),
        MetadataFormat("datacite", DATACITE_SCHEMA, DATACITE, _datacite),
    )
}


# --- arguments -------------------------------------------------------------------

LIST_REQUIRED = {"metadataPrefix"}
LIST_OPTIONAL = {"from", "until", "set", "resumptionToken"}
# verb -> (required, optional); resumptionToken is exclusive where allowed
VERBS: dict[str, tuple[set[str], set[str]]] = {
    "Identify": (set(), set()),
    "ListMetadataFormats": (set(), {"identifier"}),
    "ListSets": (set(), {"resumptionToken"}),
    "ListIdentifiers": (LIST_REQUIRED, LIST_OPTIONAL),
    "ListRecords": (LIST_REQUIRED, LIST_OPTIONAL),
    "GetRecord": ({"identifier", "metadataPrefix"}, set()),
}


def parse_arguments(params: dict[str, list[str]]) -> tuple[str, dict[str, str]]:
    """The verb and its arguments, or OaiError (badVerb, badArgument)."""
    verbs = params.get("verb", [])
    if len(verbs) != 1:
        raise OaiError(
            "badVerb", "verb is missing." if not verbs else "verb is repeated."
        )
    verb = verbs[0]
    if verb not in VERBS:
        raise OaiError("badVerb", f"{one_line(verb):.50} is not an OAI-PMH verb.")
    required, optional = VERBS[verb]
    args: dict[str, str] = {}
    for name, values in params.items():
        if name == "verb":
            continue
        if name not in required | optional:
            raise OaiError(
                "badArgument", f"{verb} takes no argument {one_line(name):.50}."
            )
        if len(values) != 1:
            raise OaiError("badArgument", f"{name} is repeated.")
        if one_line(values[0]) != values[0]:
            # no identifier, prefix, date or token holds one (nor can XML echo it)
            raise OaiError("badArgument", f"{name} contains control characters.")
        args[name] = values[0]
    if "resumptionToken" in args:
        if len(args) > 1:
            raise OaiError("badArgument", "resumptionToken is an exclusive argument.")
        return verb, args
    missing = sorted(required - args.keys())
    if missing:
        raise OaiError("badArgument", f"{verb} needs {', '.join(missing)}.")
    return verb, args


def _metadata_format(prefix: str) -> MetadataFormat:
    if prefix not in FORMATS:
        raise OaiError(
            "cannotDisseminateFormat",
            f"{prefix:.50} is not a format of this repository; "
            f"ListMetadataFormats names them ({', '.join(FORMATS)}).",
        )
    return FORMATS[prefix]


def _date(value: str, name: str) -> tuple[datetime, bool]:
    """A UTC datestamp in either granularity, and whether it is a day."""
    for pattern, day in (("%Y-%m-%d", True), ("%Y-%m-%dT%H:%M:%SZ", False)):
        try:
            parsed = datetime.strptime(value, pattern)
        except ValueError:
            continue
        return parsed.replace(tzinfo=UTC), day
    raise OaiError(
        "badArgument", f"{name}: {value:.50} is not YYYY-MM-DD or {GRANULARITY}."
    )


def date_range(args: dict[str, str]) -> tuple[datetime | None, datetime | None]:
    since = until = None
    days = set()
    if "from" in args:
        since, day = _date(args["from"], "from")
        days.add(day)
    if "until" in args:
        until, day = _date(args["until"], "until")
        days.add(day)
        # inclusive to the end of the day or second named
        end = timedelta(days=1) if day else timedelta(seconds=1)
        until += end - timedelta(microseconds=1)
    if len(days) > 1:
        raise OaiError("badArgument", "from and until have different granularities.")
    if since and until and since > until:
        raise OaiError("badArgument", "from is later than until.")
    return since, until


# --- resumption tokens -----------------------------------------------------------


@dataclass(frozen=True)
class ListState:
    """Where a list request is: its arguments and the next record to send."""

    verb: str
    prefix: str
    since: datetime | None
    until: datetime | None
    set_spec: str | None
    source: int = 0  # index into the selected sources
    after: int = 0  # key of the last record sent from that source
    cursor: int = 0  # records sent before this page
    size: int = 0  # completeListSize


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _token(state: ListState) -> str:
    return signing.dumps(
        [
            state.verb,
            state.prefix,
            _iso(state.since),
            _iso(state.until),
            state.set_spec,
            state.source,
            state.after,
            state.cursor,
            state.size,
        ],
        salt=TOKEN_SALT,
        compress=True,
    )


def _from_token(token: str, verb: str) -> ListState:
    try:
        fields = signing.loads(token, salt=TOKEN_SALT)
        v, prefix, since, until, set_spec, *numbers = fields
        state = ListState(
            v,
            prefix,
            datetime.fromisoformat(since) if since else None,
            datetime.fromisoformat(until) if until else None,
            set_spec,
            *(int(n) for n in numbers),
        )
    except (signing.BadSignature, ValueError, TypeError):
        raise OaiError(
            "badResumptionToken", "The resumptionToken is not one this list gave."
        ) from None
    if state.verb != verb:
        raise OaiError("badResumptionToken", f"The resumptionToken is not for {verb}.")
    return state


# --- verbs -----------------------------------------------------------------------


def _identify(response: etree._Element, args: dict[str, str]) -> None:
    sources = record_sources()
    earliest = min(
        (e for e in (s.earliest() for s in sources) if e), default=EARLIEST_WHEN_EMPTY
    )
    identify = _el(response, "Identify")
    _el(identify, "repositoryName", publisher())
    _el(identify, "baseURL", base_url())
    _el(identify, "protocolVersion", "2.0")
    admin = getattr(settings, "OAI_ADMIN_EMAIL", "") or settings.DEFAULT_FROM_EMAIL
    _el(identify, "adminEmail", admin)
    _el(identify, "earliestDatestamp", datestamp(earliest))
    _el(identify, "deletedRecord", "no")
    _el(identify, "granularity", GRANULARITY)


def _split_identifier(identifier: str) -> tuple[RecordSource, OaiRecord]:
    prefix = f"oai:{repository_identifier()}:"
    rest = identifier.removeprefix(prefix)
    set_spec, _, local_id = rest.partition("/")
    source = next((s for s in record_sources() if s.set_spec == set_spec), None)
    record = source.get(local_id) if source and identifier != rest else None
    if record is None:
        raise OaiError(
            "idDoesNotExist",
            f"{identifier:.200} is not an identifier of this repository.",
        )
    return source, record


def _list_metadata_formats(response: etree._Element, args: dict[str, str]) -> None:
    if "identifier" in args:
        _split_identifier(args["identifier"])  # every record has every format
    formats = _el(response, "ListMetadataFormats")
    for fmt in FORMATS.values():
        element = _el(formats, "metadataFormat")
        _el(element, "metadataPrefix", fmt.prefix)
        _el(element, "schema", fmt.schema)
        _el(element, "metadataNamespace", fmt.namespace)


def _list_sets(response: etree._Element, args: dict[str, str]) -> None:
    if "resumptionToken" in args:
        raise OaiError("badResumptionToken", "ListSets fits one response: no tokens.")
    sets = _el(response, "ListSets")
    for source in record_sources():
        element = _el(sets, "set")
        _el(element, "setSpec", source.set_spec)
        _el(element, "setName", source.set_name)


def _header(parent: etree._Element, source: RecordSource, record: OaiRecord) -> None:
    header = _el(parent, "header")
    _el(
        header,
        "identifier",
        f"oai:{repository_identifier()}:{source.set_spec}/{record.local_id}",
    )
    _el(header, "datestamp", datestamp(record.datestamp))
    _el(header, "setSpec", source.set_spec)


def _record(parent: etree._Element, source, record, fmt: MetadataFormat) -> None:
    element = _el(parent, "record")
    _header(element, source, record)
    _el(element, "metadata").append(fmt.write(record.datacite()))


def _get_record(response: etree._Element, args: dict[str, str]) -> None:
    fmt = _metadata_format(args["metadataPrefix"])
    source, record = _split_identifier(args["identifier"])
    _record(_el(response, "GetRecord"), source, record, fmt)


def _first_state(verb: str, args: dict[str, str]) -> ListState:
    _metadata_format(args["metadataPrefix"])
    since, until = date_range(args)
    return ListState(verb, args["metadataPrefix"], since, until, args.get("set"))


def _page(state: ListState, sources: list[RecordSource]):
    """Up to OAI_PAGE_SIZE (source index, record) from `state`, and whether
    more follow."""
    limit = settings.OAI_PAGE_SIZE
    found: list[tuple[int, OaiRecord]] = []
    for index in range(state.source, len(sources)):
        after = state.after if index == state.source else 0
        for record in sources[index].records(
            since=state.since, until=state.until, after=after
        ):
            if len(found) == limit:
                return found, True
            found.append((index, record))
    return found, False


def _list(response: etree._Element, verb: str, args: dict[str, str]) -> None:
    if "resumptionToken" in args:
        state = _from_token(args["resumptionToken"], verb)
    else:
        state = _first_state(verb, args)
    fmt = _metadata_format(state.prefix)
    sources = [s for s in record_sources() if state.set_spec in (None, s.set_spec)]
    if not state.size:  # the first page: count the complete list once
        size = sum(s.count(since=state.since, until=state.until) for s in sources)
        state = replace(state, size=size)
    found, more = _page(state, sources)
    if not found:
        raise OaiError("noRecordsMatch", "No record matches these arguments.")
    element = _el(response, verb)
    for index, record in found:
        if verb == "ListRecords":
            _record(element, sources[index], record, fmt)
        else:
            _header(element, sources[index], record)
    cursor = state.cursor + len(found)
    if more:
        index, last = found[-1]
        token = _token(replace(state, source=index, after=last.key, cursor=cursor))
    elif state.cursor == 0:
        return  # the whole list in one response: no token
    else:
        token = ""  # the last page of a list: an empty token ends it
    _el(
        element,
        "resumptionToken",
        token,
        completeListSize=str(max(state.size, cursor)),
        cursor=str(state.cursor),
    )


HANDLERS: dict[str, Callable[[etree._Element, dict[str, str]], None]] = {
    "Identify": _identify,
    "ListMetadataFormats": _list_metadata_formats,
    "ListSets": _list_sets,
    "GetRecord": _get_record,
    "ListIdentifiers": lambda response, args: _list(response, "ListIdentifiers", args),
    "ListRecords": lambda response, args: _list(response, "ListRecords", args),
}


def oai_response(params: dict[str, list[str]]) -> bytes:
    """The OAI-PMH response (UTF-8 XML) to the request arguments `params`."""
    root = etree.Element(
        f"{{{OAI}}}OAI-PMH",
        {f"{{{XSI}}}schemaLocation": f"{OAI} {OAI_SCHEMA}"},
        nsmap={None: OAI, "xsi": XSI},
    )
    _el(root, "responseDate", datestamp(timezone.now()))
    request = _el(root, "request", base_url())
    try:
        verb, args = parse_arguments(params)
    except OaiError as error:  # badVerb, badArgument: the request is not echoed
        _el(root, "error", error.message, code=error.code)
    else:
        request.attrib.update({"verb": verb, **args})
        try:
            HANDLERS[verb](root, args)
        except OaiError as error:
            if error.code == "badArgument":
                request.attrib.clear()  # the protocol: echo only the base URL
            _el(root, "error", error.message, code=error.code)
    return etree.tostring(
        root, encoding="UTF-8", xml_declaration=True, pretty_print=True
    )
