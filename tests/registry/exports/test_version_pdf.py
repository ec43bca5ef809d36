"""Design PDFs of registration versions, built from the canonical document only."""

import copy
import datetime as dt

from registry.design import Design, diff_designs
from registry.exports import build_design_data_from_document, render_design_pdf
from tests.registry.exports.test_design_pdf import flat, pdf_text

DESIGN = {
    "schema": "challenge-registry/proposal",
    "schema_version": 1,
    "call": "miccai-2027",
    "name": "Decathlon",
    "status": "registered",
    "planning": {},
    "answers": [
        {"number": 1, "name": "Challenge name", "value": "Decathlon"},
        {"number": 5, "name": "x", "value": "Old wording of the life cycle."},
        {"number": 7, "name": "x", "not_applicable": "Public data."},
    ],
    "tasks": [
        {
            "name": "Brain",
            "answers": [{"number": 50, "name": "x", "value": "No adjustment."}],
        }
    ],
}


def version_document(design, *, number=2, post_hoc=True):
    return {
        "identifier": "miccai-2027-001",
        "version": number,
        "previous_sha256": "a" * 64,
        "registered_at": "2027-05-01T10:00:00+00:00",
        "registered_by": "carla",
        "justification": "Holm over all pairs.",
        "post_hoc": post_hoc,
        "call": {"slug": "miccai-2027", "title": "MICCAI 2027"},
        "organizers": [{"username": "olga", "institution": "DKFZ"}],
        "design": design,
    }


def diff(before, after):
    return diff_designs(Design.from_dict(before), Design.from_dict(after))


def amended():
    design = copy.deepcopy(DESIGN)
    design["tasks"][0]["answers"][0]["value"] = "Holm's adjustment."
    return design


def test_version_data_marks_changed_parameters_only():
    changes = diff(DESIGN, amended())
    data = build_design_data_from_document(
        version_document(amended()),
        registry_url="https://r.example.org/registry/miccai-2027-001/",
        changes=changes,
        today=dt.date(2027, 5, 2),
    )
    answers = {
        (section.title, a.number): a
        for section in data.sections
        for group in section.groups
        for a in group.answers
    }
    assert answers[("Task 1: Brain", 50)].changed is True
    assert answers[("Task 1: Brain", 50)].text == "Holm's adjustment."
    assert answers[("Challenge level", 5)].changed is False
    assert answers[("Challenge level", 7)].state == "not_applicable"
    assert data.changes == ("Task Brain: 50. Statistical test(s)",)
    assert ("Post hoc", "Approved after the first results were uploaded.") in (
        data.version_lines
    )


def test_version_pdf_prints_the_change_marker_and_version_facts():
    data = build_design_data_from_document(
        version_document(amended()),
        registry_url="https://r.example.org/registry/miccai-2027-001/",
        changes=diff(DESIGN, amended()),
        today=dt.date(2027, 5, 2),
    )
    text = flat(pdf_text(render_design_pdf(data)))
    assert "Changed in this version" in text
    assert "Changes in this version" in text
    assert "miccai-2027-001" in text
    assert "Holm over all pairs." in text
    assert "Registered (version 2)" in text


def test_version_one_pdf_has_no_change_marker():
    data = build_design_data_from_document(
        version_document(DESIGN, number=1, post_hoc=False),
        registry_url="https://r.example.org/x/",
        today=dt.date(2027, 5, 2),
    )
    text = flat(pdf_text(render_design_pdf(data)))
    assert "Changed in this version" not in text
    assert "Post hoc" not in text


def test_version_pdf_prints_hash_date_scheme_appendix_and_bias_items():
    design = copy.deepcopy(DESIGN)
    design["tasks"][0]["scheme"] = {"metric": "DSC", "method": "test_then_rank"}
    document = version_document(design)
    data = build_design_data_from_document(
        document,
        registry_url="https://r.example.org/x/",
        today=dt.date(2027, 5, 2),
        sha256="b" * 64,
    )
    text = flat(pdf_text(render_design_pdf(data)))
    assert "SHA-256" in text
    assert "b" * 64 in text.replace(" ", "")  # a long hash may wrap
    assert "2027-05-01T10:00:00+00:00" in text
    assert "Appendix: registered ranking schemes (JSON)" in text
    assert '"method": "test_then_rank"' in text
    assert "BIAS items: 1, 5a, 5b" in text  # parameter 1, Challenge name


def test_version_pdf_hash_defaults_to_the_canonical_json_hash():
    from registry.canonical import canonical_sha256

    document = version_document(DESIGN)
    data = build_design_data_from_document(document, registry_url="https://r/x/")
    assert ("SHA-256", canonical_sha256(document)) in data.version_lines
