"""Scheme-derived answers are read-only everywhere; amendments can mark a
parameter not applicable (issue 14, item 7)."""

import json

import pytest
from django.urls import reverse

from registry.design import Design
from registry.models import Amendment, Answer
from registry.parameters import SCHEME_PROSE, Role
from registry.registration import register_challenge
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_registration_pages import IDENTIFIER, proposed_amendment
from tests.schemes import mean_scheme

pytestmark = pytest.mark.django_db

SCHEME = mean_scheme()
RANKING = Role.RANKING_METHOD.number
RESULTS = 52  # a task parameter that may not apply (catalogue)


@pytest.fixture
def proposal(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME)


@pytest.fixture
def registration(proposal, chair):
    proposal.status = "accepted"
    proposal.save()
    return register_challenge(challenge=proposal, actor=chair)


def stored(task, number):
    answer = Answer.objects.get(task=task, number=number)
    return answer.value, answer.not_applicable


@pytest.mark.parametrize("role", list(SCHEME_PROSE))
def test_api_put_of_scheme_prose_is_refused_with_400(organizer_api, proposal, role):
    task = proposal.tasks.get()
    before = stored(task, role.number)
    url = f"/api/v1/tasks/{task.pk}/answers/{role.number}/"
    response = organizer_api.put(url, {"value": "Something else."}, format="json")
    assert response.status_code == 400
    message = str(response.json())
    assert "read-only" in message
    assert role.parameter.name in message
    assert "change the ranking scheme" in message
    assert organizer_api.delete(url).status_code == 400
    assert stored(task, role.number) == before


def test_scheme_prose_is_writable_without_a_scheme(organizer_api, proposal):
    task = proposal.tasks.get()
    task.scheme = None
    task.save()
    response = organizer_api.put(
        f"/api/v1/tasks/{task.pk}/answers/{RANKING}/",
        {"value": "Mean rank over metrics."},
        format="json",
    )
    assert response.status_code == 200, response.json()


def test_other_task_answers_stay_writable(organizer_api, proposal):
    task = proposal.tasks.get()
    response = organizer_api.put(
        f"/api/v1/tasks/{task.pk}/answers/{RESULTS}/",
        {"value": "Ranking table."},
        format="json",
    )
    assert response.status_code == 200


def test_editor_shows_scheme_prose_read_only(client, organizer, proposal):
    client.force_login(organizer)
    task = proposal.tasks.get()
    url = reverse(
        "registry:edit-task-section",
        kwargs={"pk": proposal.pk, "task_pk": task.pk, "section": "assessment-method"},
    )
    body = client.get(url).content.decode()
    key = f"p{RANKING:02d}"
    assert f'data-derived="{key}"' in body


def test_amendment_marks_a_parameter_not_applicable_through_the_api(
    api, client, registration, organizer, chair
):
    api.force_authenticate(organizer)
    url = f"/api/v1/registrations/{IDENTIFIER}/amendments/"
    change = {"not_applicable": "No results document is planned."}
    proposed = api.post(
        url,
        {"justification": "Scope cut.", "tasks": {"Brain": {str(RESULTS): change}}},
        format="json",
    )
    assert proposed.status_code == 201, proposed.json()
    assert Amendment.objects.get().changes == {"tasks": {"Brain": {"52": change}}}
    api.force_authenticate(chair)
    approved = api.post(f"/api/v1/amendments/{proposed.json()['id']}/approve/")
    assert approved.status_code == 200, approved.json()
    version = registration.versions.get(number=2)
    design = Design.from_dict(json.loads(version.canonical)["design"])
    assert (
        design.task("Brain").answer(RESULTS).not_applicable == change["not_applicable"]
    )
    diff = api.get(f"/api/v1/registrations/{IDENTIFIER}/diff/?from=1&to=2").json()
    (only,) = diff["changes"]
    assert (only["task"], only["number"], only["to"]) == ("Brain", RESULTS, change)
    assert only["to_text"] == "Not applicable: No results document is planned."
    page = client.get(reverse("registry:public-detail", args=[IDENTIFIER]))
    body = page.content.decode()
    shown = body[body.index('data-change="Brain|52"') :]
    shown = shown[: shown.index("</li>")]
    assert "<ins>Not applicable: No results document is planned.</ins>" in shown


def test_amendment_of_scheme_prose_is_refused(api, registration, organizer):
    api.force_authenticate(organizer)
    response = api.post(
        f"/api/v1/registrations/{IDENTIFIER}/amendments/",
        {"justification": "x", "tasks": {"Brain": {str(RANKING): "Mean rank."}}},
        format="json",
    )
    assert response.status_code == 400
    assert "read-only" in str(response.json())
    assert Amendment.objects.count() == 0


def test_amendment_page_marks_a_parameter_not_applicable(
    client, registration, organizer
):
    client.force_login(organizer)
    task = registration.challenge.tasks.get()
    prefix = f"t{task.pk}-challenge-outcome-p{RESULTS}"
    amendment = proposed_amendment(
        client,
        {
            "justification": "Scope cut.",
            f"{prefix}-na": "on",
            f"{prefix}-reason": "No results document is planned.",
        },
    )
    assert amendment.changes == {
        "tasks": {
            "Brain": {"52": {"not_applicable": "No results document is planned."}}
        }
    }
