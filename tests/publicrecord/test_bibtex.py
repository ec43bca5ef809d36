"""The exports read back exactly through real parsers (bibtexparser, pybtex,
lxml against the DataCite XSD), whatever the user typed."""

import json

import bibtexparser
import pytest
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from lxml import etree
from pybtex.database import parse_string
from pylatexenc.latex2text import LatexNodes2Text

from publicrecord.citation import NAMESPACE, validate_datacite

from .conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db
TITLE = r"Ünïcode & 50% $x_1$ #{~^} \back"
# The decoder bibtexparser's LatexDecodingMiddleware uses, for both parsers:
# pybtex parses BibTeX but leaves the LaTeX of a field as it is.
latex_to_text = LatexNodes2Text().latex_to_text


def bib(api, registration) -> str:
    url = f"/api/v1/registrations/{registration.identifier}/citation.bib"
    return api.get(url).content.decode()


def datacite(api, registration) -> bytes:
    url = f"/api/v1/registrations/{registration.identifier}/datacite.xml"
    return api.get(url).content


def read_with_bibtexparser(text: str) -> tuple[str, list[tuple[str, str]]]:
    library = bibtexparser.parse_string(
        text, append_middleware=[SeparateCoAuthors(), SplitNameParts()]
    )
    assert library.failed_blocks == []
    (entry,) = library.entries
    names = [
        (latex_to_text(" ".join(n.last)), latex_to_text(" ".join(n.first)))
        for n in entry["author"]
    ]
    return latex_to_text(entry["title"]), names


def read_with_pybtex(text: str) -> tuple[str, list[tuple[str, str]]]:
    (entry,) = parse_string(text, "bibtex").entries.values()
    names = [
        (
            latex_to_text(" ".join(p.last_names)),
            latex_to_text(" ".join(p.first_names + p.middle_names)),
        )
        for p in entry.persons["author"]
    ]
    return latex_to_text(entry.fields["title"]), names


@pytest.fixture
def awkward(call, organizer, chair):
    organizer.first_name, organizer.last_name = "Ana & Bo", "Smith and Jones, Jr"
    organizer.save()
    return registered(call, organizer, chair, name=TITLE, scheme=CLEAN_SCHEME)


@pytest.mark.parametrize("read", [read_with_bibtexparser, read_with_pybtex])
def test_title_and_names_round_trip_through_bibtex_parsers(api, awkward, read):
    title, names = read(bib(api, awkward))
    assert title == TITLE
    assert names == [("Smith and Jones, Jr", "Ana & Bo")]


def test_unbalanced_braces_still_give_a_well_formed_entry(api, call, organizer, chair):
    registration = registered(
        call, organizer, chair, name="Left { only ~", scheme=CLEAN_SCHEME
    )
    text = bib(api, registration)
    # BibTeX counts every brace, escaped or not: they must balance
    assert text.count("{") == text.count("}")
    (entry,) = parse_string(text, "bibtex").entries.values()
    assert entry.fields["title"] == r"{Left \textbraceleft{} only \textasciitilde{}}"


def test_control_characters_never_break_an_export(api, call, organizer, chair):
    registration = registered(
        call,
        organizer,
        chair,
        name="Bell\x07 tab\tesc\x1b \ufffe end",
        scheme=CLEAN_SCHEME,
    )
    data = datacite(api, registration)
    assert validate_datacite(data) == []
    title = etree.fromstring(data).find(f"{{{NAMESPACE}}}titles/{{{NAMESPACE}}}title")
    assert title.text == "Bell tab esc end"
    assert read_with_pybtex(bib(api, registration))[0] == "Bell tab esc end"
    base = f"/api/v1/registrations/{registration.identifier}/"
    assert json.loads(api.get(base + "citation.json").content)[0]["title"] == (
        "Bell tab esc end"
    )


def test_no_python_repr_in_any_export(api, call, organizer, chair):
    name = "O'Brien's \\ challenge"
    registration = registered(call, organizer, chair, name=name, scheme=CLEAN_SCHEME)
    data = datacite(api, registration).decode()
    abstract = (
        etree.fromstring(data.encode()).find(f".//{{{NAMESPACE}}}description").text
    )
    assert f"Design of the challenge “{name}”" in abstract
    assert "\\'" not in data
    assert "\\\\" not in data
