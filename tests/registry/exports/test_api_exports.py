import io
import json

import pytest
from pypdf import PdfReader

from registry import services
from registry.canonical import canonical_json_bytes
from registry.enums import ChallengeStatus
from registry.exports import design_content, export_challenge
from registry.models import Answer, Challenge, Task
from registry.parameters import PARAMETERS
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

IMPORT_URL = "/api/v1/challenges/import/"


def counts():
    return Challenge.objects.count(), Task.objects.count(), Answer.objects.count()


def flat_pdf_text(content: bytes) -> str:
    reader = PdfReader(io.BytesIO(content))
    return " ".join(" ".join(p.extract_text() for p in reader.pages).split())


# --- export.json ----------------------------------------------------------------


def test_export_json_downloads_the_document_as_attachment(organizer_api, proposal):
    response = organizer_api.get(f"/api/v1/challenges/{proposal.pk}/export.json")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="challenge-{proposal.pk}-decathlon.json"'
    )
    assert json.loads(response.content) == export_challenge(proposal)


@pytest.mark.parametrize("suffix", ["export.json", "design.pdf"])
def test_exports_are_404_for_other_users(api, proposal, stranger, suffix):
    api.force_authenticate(stranger)

    response = api.get(f"/api/v1/challenges/{proposal.pk}/{suffix}")

    assert response.status_code == 404


@pytest.mark.parametrize("suffix", ["export.json", "design.pdf"])
def test_exports_of_a_draft_are_404_for_anonymous(api, proposal, suffix):
    response = api.get(f"/api/v1/challenges/{proposal.pk}/{suffix}")

    assert response.status_code == 404


def test_export_json_is_visible_to_the_chair_of_a_submitted_proposal(
    api, proposal, organizer
):
    services.submit_challenge(challenge=proposal, actor=organizer)
    chair = UserFactory(username="chair")
    proposal.call.chairs.add(chair)
    api.force_authenticate(chair)

    response = api.get(f"/api/v1/challenges/{proposal.pk}/export.json")

    assert response.status_code == 200
    assert json.loads(response.content)["status"] == "submitted"


# --- design.pdf -----------------------------------------------------------------


def test_design_pdf_names_all_53_parameters_and_the_answers(
    organizer_api, proposal, organizer, settings
):
    settings.SITE_URL = "https://registry.example.org"
    services.clear_answer(challenge=proposal, number=38, actor=organizer)
    task = proposal.tasks.get()
    services.clear_answer(challenge=proposal, task=task, number=38, actor=organizer)
    services.answer_parameter(
        challenge=proposal,
        number=5,
        value="Venue <b>& co</b> ≥ 2 – Zürich",
        actor=organizer,
    )

    response = organizer_api.get(f"/api/v1/challenges/{proposal.pk}/design.pdf")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    text = flat_pdf_text(response.content)
    for parameter in PARAMETERS:
        assert f"{parameter.number}. {parameter.name}" in text, parameter.name
    assert "38. Number of test cases MISSING (required for submission)" in text
    assert "Venue <b>& co</b> ≥ 2 – Zürich" in text
    assert "https://challenge.example.org" in text
    assert "50 patients, two scans each." in text
    assert "German Cancer Research Center (DKFZ)" in text
    assert "DSC (higher is better, worst value 0, range [0, 1])" in text
    # the site's public address, not the host the request came to
    url = f"https://registry.example.org/proposals/{proposal.pk}/design.pdf"
    assert url in text


# --- import ---------------------------------------------------------------------


def test_import_json_body_creates_a_new_draft(api, proposal, organizer, stranger):
    document = export_challenge(proposal)
    api.force_authenticate(stranger)

    response = api.post(IMPORT_URL, document, format="json")

    assert response.status_code == 201, response.json()
    created = Challenge.objects.get(pk=response.json()["id"])
    assert created.owner == stranger
    assert created.status == ChallengeStatus.DRAFT
    assert response.json()["status"] == "draft"
    assert canonical_json_bytes(design_content(export_challenge(created))) == (
        canonical_json_bytes(design_content(document))
    )


def test_import_multipart_file_round_trips_the_download(organizer_api, proposal):
    download = organizer_api.get(f"/api/v1/challenges/{proposal.pk}/export.json")
    upload = io.BytesIO(download.content)
    upload.name = "proposal.json"

    response = organizer_api.post(IMPORT_URL, {"file": upload}, format="multipart")

    assert response.status_code == 201, response.json()
    created = Challenge.objects.get(pk=response.json()["id"])
    assert design_content(export_challenge(created)) == design_content(
        json.loads(download.content)
    )


def test_import_refuses_a_bad_document_naming_the_field(organizer_api, proposal):
    document = export_challenge(proposal)
    answers = document["tasks"][0]["answers"]
    position = [a["number"] for a in answers].index(38) + 1
    answers[position - 1]["value"] = {"count": "many"}
    before = counts()

    response = organizer_api.post(IMPORT_URL, document, format="json")

    assert response.status_code == 400
    message = (
        f"tasks[1].answers[{position}] (parameter 38 Number of test cases): "
        "count: expected a whole number ≥ 0."
    )
    assert response.json()["errors"] == [message]
    assert response.json()["detail"] == (
        f"The file was not imported: 1 problem. {message}"
    )
    assert counts() == before


def test_import_refuses_invalid_json(organizer_api, call):
    before = counts()

    response = organizer_api.generic(
        "POST", IMPORT_URL, b'{"schema": ', content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["errors"][0].startswith(
        "file: is not an exported proposal: it is not valid JSON"
    )
    assert counts() == before


@pytest.mark.parametrize("size", [6 * 1024 * 1024, 5 * 1024 * 1024 + 1])
def test_import_refuses_more_than_5_mb(organizer_api, call, size):
    body = b'{"schema": "' + b"x" * (size - 14) + b'"}'

    response = organizer_api.generic(
        "POST", IMPORT_URL, body, content_type="application/json"
    )

    assert response.status_code == 413
    assert "larger than 5 MB" in response.json()["detail"]
    assert Challenge.objects.count() == 0


def test_import_multipart_without_file_says_what_to_send(organizer_api, call):
    response = organizer_api.post(IMPORT_URL, {"other": "x"}, format="multipart")

    assert response.status_code == 400
    assert response.json()["errors"] == [
        'file: attach the exported proposal as multipart field "file".'
    ]


def test_import_into_unknown_call_parameter_is_refused(organizer_api, proposal):
    response = organizer_api.post(
        f"{IMPORT_URL}?call=nope", export_challenge(proposal), format="json"
    )

    assert response.status_code == 400
    assert response.json()["errors"] == [
        "call: there is no call 'nope' in this registry."
    ]


def test_import_requires_sign_in(api, proposal):
    before = counts()

    response = api.post(IMPORT_URL, export_challenge(proposal), format="json")

    assert response.status_code in (401, 403)
    assert counts() == before
