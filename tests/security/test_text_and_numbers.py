"""Attack: crash the server with characters and numbers it cannot store (issue 30).

NUL characters answered 500 on PostgreSQL (feedback, profile names, a results
``teams`` key); 100 000-deep JSON answered 500 on the case-model API and in
the editor's hidden ``versions`` field; 500 000 duplicate rows made a 3.9 MB
message; case counts had no upper bound. Each is now a 400 that says why, and
nothing is stored.
"""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from analysis import ingest
from analysis.models import ResultsVersion
from publicrecord.models import Feedback
from registry.models import Challenge
from registry.services import add_task, create_challenge
from tests.characteristics.conftest import metadata, results, tables  # noqa: F401
from tests.security.test_bounded_input import URL

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
NUL_MESSAGE = "The control character U+0000 is not allowed"


def test_nul_in_a_json_body_is_a_400(organizer_api):
    response = organizer_api.post(
        "/api/v1/challenges/", {"call": "miccai-2027", "name": "A\x00B"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "The control character U+0000 is not allowed in name; remove it and "
        "send the text again."
    )
    assert not Challenge.objects.filter(name__startswith="A").exists()


def test_nul_in_feedback_is_a_400(organizer_api, registration):
    response = organizer_api.post(
        f"/api/v1/registrations/{registration.identifier}/feedback/",
        {"category": "design", "text": "bad\x00text"},
        format="json",
    )
    assert response.status_code == 400
    assert NUL_MESSAGE in response.json()["detail"]
    assert Feedback.objects.count() == 0


def test_nul_in_a_page_form_is_a_400_naming_the_field(client, registration, organizer):
    client.force_login(organizer)
    response = client.post(
        f"/registry/{registration.identifier}/feedback/",
        {"category": "design", "text": "bad\x00text"},
    )
    assert response.status_code == 400
    assert "U+0000 is not allowed in the field &#x27;text&#x27;" in (
        response.content.decode()
    )
    assert Feedback.objects.count() == 0


def test_nul_in_a_teams_key_is_a_400(organizer_api, registration):
    data = b"task,case,algorithm,metric,value\nBrain,1,A1,DSC,0.5\n"
    response = organizer_api.post(
        URL + "?commit=true",
        {
            "file": SimpleUploadedFile("r.csv", data),
            "teams": '{"A1\\u0000": "Lab"}',
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert ResultsVersion.objects.count() == 0


def test_control_character_in_a_csv_is_refused_with_its_line():
    data = b"task,case,algorithm,metric,value\nBrain,1,A\x011,DSC,0.5\n"
    with pytest.raises(ingest.UploadError) as caught:
        ingest.read_upload("r.csv", data)
    assert caught.value.errors == [
        "line 2: the control character U+0001 is not allowed; remove it and "
        "upload the file again."
    ]


def test_deep_json_on_the_case_model_api_is_a_400(organizer_api, metadata):  # noqa: F811
    response = organizer_api.post(
        f"/api/v1/case-metadata/{metadata.pk}/models/",
        DEEP,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "nested 100000 levels deep; the limit is 32" in response.json()["detail"]


def test_deep_json_in_the_editors_versions_field_is_a_400(client, organizer, call):
    draft = create_challenge(owner=organizer, call=call, name="Draft")
    client.force_login(organizer)
    url = reverse("registry:edit-section", args=[draft.pk, "challenge-organization"])
    response = client.post(url, {"p01": "Draft", "save": "Save", "versions": DEEP})
    assert response.status_code == 400
    assert "nested 100000 levels deep" in response.content.decode()
    draft.refresh_from_db()
    assert draft.name == "Draft"


@pytest.mark.slow
def test_half_a_million_duplicate_rows_get_a_short_message():
    data = b"task,case,algorithm,metric,value\n" + b"Brain,1,A1,DSC,0.5\n" * 500_000
    with pytest.raises(ingest.UploadError) as caught:
        ingest.parse_upload("r.csv", data)
    [message] = caught.value.errors
    assert len(message) < 600
    assert "lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 499 990 more (500 000 in all)" in (
        message
    )


def test_each_error_message_is_capped(settings):
    settings.MAX_ERROR_MESSAGE_CHARS = 20
    error = ingest.UploadError(["x" * 50])
    assert error.errors == ["x" * 20 + "… (30 characters cut)"]


def test_a_huge_case_count_is_a_400(organizer_api, organizer, call):
    draft = create_challenge(owner=organizer, call=call, name="Draft")
    task = add_task(challenge=draft, name="Brain", actor=organizer)
    response = organizer_api.put(
        f"/api/v1/tasks/{task.pk}/answers/31/",
        {"value": {"count": 10**30, "details": ""}},
        format="json",
    )
    assert response.status_code == 400
    assert "count: at most 1 000 000 000 000." in str(response.json())
