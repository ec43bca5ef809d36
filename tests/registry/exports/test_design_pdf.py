"""The PDF renderer on hand-built DesignDocuments: no database involved."""

import datetime as dt
import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from registry.exports.design_document import (
    CompletenessRow,
    DesignAnswer,
    DesignDocument,
    DesignGroup,
    DesignSection,
    PlanningItem,
)
from registry.exports.design_pdf import DEJAVU_DIR, printable, render_design_pdf

HAS_DEJAVU = (DEJAVU_DIR / "DejaVuSans.ttf").is_file()


def pdf_text(pdf: bytes) -> str:
    reader = PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages)


def flat(text: str) -> str:
    return " ".join(text.split())


def document(**changes) -> DesignDocument:
    data = {
        "challenge_name": "Größe ≥ 2 – Decathlon",
        "call_title": "MICCAI 2027",
        "status": "Submitted",
        "revision": 2,
        "organizers": ("Olga Organizer (DKFZ)", "Carl Co (ETH)"),
        "generated_on": dt.date(2027, 3, 1),
        "registry_url": "https://registry.example.org/proposals/7/design.pdf",
        "overall_percent": 62.5,
        "submission_percent": 70.0,
        "threshold_percent": 90,
        "can_submit": False,
        "completeness_rows": (
            CompletenessRow("Challenge level", 2, 3, 66.7, is_total=True),
            CompletenessRow("Challenge organization", 2, 3, 66.7),
            CompletenessRow("Task: Brain", 1, 2, 50.0, is_total=True),
            CompletenessRow("Assessment method", 1, 2, 50.0),
        ),
        "planning": (
            PlanningItem("Challenge duration", "full day"),
            PlanningItem("Associated workshop", ""),
        ),
        "sections": (
            DesignSection(
                "Challenge level",
                (
                    DesignGroup(
                        "Challenge organization",
                        (
                            DesignAnswer(
                                2,
                                "Challenge website",
                                True,
                                "answered",
                                "https://decathlon.example.org",
                            ),
                            DesignAnswer(7, "Ethics approval", True, "missing"),
                            DesignAnswer(
                                8,
                                "Data usage agreement",
                                False,
                                "not_applicable",
                                "Public data <b>& no licence",
                            ),
                        ),
                    ),
                ),
            ),
            DesignSection(
                "Task 1: Brain",
                (
                    DesignGroup(
                        "Assessment method",
                        (
                            DesignAnswer(
                                44,
                                "Metric(s)",
                                True,
                                "answered",
                                "DSC (higher is better)\nNSD ≥ 0.5 <i>",
                            ),
                            DesignAnswer(52, "Results", False, "missing"),
                        ),
                    ),
                ),
            ),
        ),
    }
    data.update(changes)
    return DesignDocument(**data)


def test_render_design_pdf_shows_cover_summary_and_every_answer():
    text = flat(pdf_text(render_design_pdf(document())))

    for expected in (
        "Challenge design document",
        "MICCAI 2027",
        "Submitted (revision 2)",
        "Olga Organizer (DKFZ)",
        "Carl Co (ETH)",
        "2027-03-01",
        "https://registry.example.org/proposals/7/design.pdf",
        "Submission parameters: 70 % (threshold 90 %",
        "Overall: 62.5 %",
        "Challenge organization",
        "66.7",
        "Task: Brain",
        "Challenge duration",
        "full day",
        "Not answered",
        "Challenge level",
        "Task 1: Brain",
        "2. Challenge website",
        "https://decathlon.example.org",
        "7. Ethics approval",
        "MISSING (required for submission)",
        "8. Data usage agreement",
        "Not applicable: Public data <b>& no licence",
        "44. Metric(s)",
        "DSC (higher is better)",
        "52. Results",
        "MISSING (optional parameter)",
    ):
        assert expected in text, expected


def test_render_design_pdf_prints_markup_in_answers_literally():
    text = flat(pdf_text(render_design_pdf(document())))

    assert "Public data <b>& no licence" in text
    assert "NSD ≥ 0.5 <i>" in text or not HAS_DEJAVU


def test_render_design_pdf_numbers_pages_in_the_footer():
    pdf = render_design_pdf(document())
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]

    assert len(pages) == 3  # cover and summary, challenge level, one task
    for number, page in enumerate(pages, start=1):
        assert f"Page {number} of 3" in page


@pytest.mark.skipif(not HAS_DEJAVU, reason="needs Debian's fonts-dejavu-core")
def test_render_design_pdf_with_dejavu_keeps_unicode():
    text = flat(pdf_text(render_design_pdf(document())))

    assert "Größe ≥ 2 – Decathlon" in text


def test_render_design_pdf_without_dejavu_falls_back_to_helvetica(tmp_path: Path):
    pdf = render_design_pdf(document(), font_dir=tmp_path / "no-fonts")
    text = pdf_text(pdf)

    assert b"DejaVu" not in pdf
    assert b"Helvetica" in pdf
    assert "Größe >= 2 – Decathlon" in text
    assert "NSD >= 0.5 <i>" in text


def test_render_design_pdf_survives_control_characters_and_long_text():
    long_answer = ("word " * 4000 + "x" * 3000 + "\n\n") * 2
    pdf = render_design_pdf(
        document(
            challenge_name="Bad\x00name\x1b with emoji 🧠",
            sections=(
                DesignSection(
                    "Challenge level",
                    (
                        DesignGroup(
                            "Challenge organization",
                            (DesignAnswer(5, "Venue", False, "answered", long_answer),),
                        ),
                    ),
                ),
            ),
        )
    )

    text = pdf_text(pdf)
    assert "Badname with emoji" in text
    assert len(PdfReader(io.BytesIO(pdf)).pages) > 3


def test_printable_replaces_characters_helvetica_cannot_show():
    assert printable("a ≥ b ≤ c → 日 é", unicode=False) == "a >= b <= c -> ? é"
    assert printable("tab\there\x07", unicode=True) == "tab here"
