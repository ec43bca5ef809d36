"""No lost update: a save from a stale copy is refused with the other person's
change shown; a save touches only what it changes; names never revert."""

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from registry import services
from registry.models import Answer, Challenge
from registry.services import AnswerInput
from registry.versions import StaleEditError
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposal(organizer, call):
    return services.create_challenge(owner=organizer, call=call, name="Decathlon")


@pytest.fixture
def colleague(proposal):
    user = UserFactory(username="carla")
    proposal.co_organizers.add(user)
    return user


def stored(challenge, number):
    return Answer.objects.get(challenge=challenge, task=None, number=number)


def save_section(challenge, editor, values: dict[int, str], seen: dict[int, int]):
    """`editor` saves a section with `values` from a page that showed the answer
    versions `seen`."""
    return services.answer_section(
        challenge=challenge,
        actor=editor,
        answers={number: AnswerInput(value=v) for number, v in values.items()},
        seen_versions=seen,
    )


def test_a_section_saved_from_a_stale_copy_is_refused_with_the_change(
    proposal, organizer, colleague
):
    seen = {1: 1, 2: 0}  # what both editors were shown
    save_section(proposal, colleague, {2: "https://carla.example.org"}, seen)
    with pytest.raises(StaleEditError) as refused:
        save_section(
            proposal, organizer, {1: "Decathlon", 2: "https://olga.example.org"}, seen
        )
    (change,) = refused.value.changes
    assert (change.what, change.by, change.now) == (
        "Parameter 2 (Challenge website)",
        "carla",
        "https://carla.example.org",
    )
    assert change.at == stored(proposal, 2).updated
    assert stored(proposal, 2).value == "https://carla.example.org"


def test_a_save_touches_only_the_fields_it_changed(proposal, organizer, colleague):
    services.answer_parameter(
        challenge=proposal, number=2, value="https://a.example.org", actor=organizer
    )
    seen = {1: 1, 2: 1, 5: 0}
    save_section(proposal, colleague, {5: "Venue B"}, seen)
    # Olga's page still shows the old venue field empty; she edits the website only
    save_section(
        proposal, organizer, {1: "Decathlon", 2: "https://b.example.org"}, seen
    )
    assert stored(proposal, 2).value == "https://b.example.org"
    assert (stored(proposal, 5).value, stored(proposal, 5).updated_by) == (
        "Venue B",
        colleague,
    )
    assert (stored(proposal, 1).version, stored(proposal, 1).updated_by) == (
        1,
        organizer,
    )  # unchanged: not written


def test_an_unrelated_save_never_reverts_a_rename(proposal, organizer, colleague):
    stale = Challenge.objects.get(pk=proposal.pk)  # loaded before the rename
    services.answer_parameter(
        challenge=proposal, number=1, value="Decathlon 2", actor=colleague
    )
    services.answer_parameter(
        challenge=stale, number=2, value="https://x.example.org", actor=organizer
    )
    proposal.refresh_from_db()
    assert proposal.name == stored(proposal, 1).value == "Decathlon 2"


def test_the_section_editor_refuses_the_second_of_two_saves(
    proposal, organizer, colleague
):
    url = reverse("registry:edit-section", args=[proposal.pk, "challenge-organization"])
    olga, carla = Client(), Client()
    olga.force_login(organizer)
    carla.force_login(colleague)

    def versions(page) -> str:
        raw = re.search(r'name="versions" value="([^"]*)"', page.content.decode())
        return html.unescape(raw.group(1))

    form = {"p01": "Decathlon", "save": "Save"}
    olga_form = {**form, "versions": versions(olga.get(url)), "p05": "Venue O"}
    carla_form = {**form, "versions": versions(carla.get(url)), "p05": "Venue C"}
    assert carla.post(url, carla_form).status_code == 302

    refused = olga.post(url, olga_form)

    assert refused.status_code == 409
    page = refused.content.decode()
    assert 'id="edit-conflict"' in page
    assert "Parameter 5 (Challenge venue or platform)" in page
    assert "<strong>carla</strong>" in page
    assert "Venue C" in page
    assert stored(proposal, 5).value == "Venue C"
    # saving the refused page again replaces Carla's change knowingly
    again = {**olga_form, "versions": versions(refused)}
    assert olga.post(url, again).status_code == 302
    assert stored(proposal, 5).value == "Venue O"


def test_the_api_answers_412_to_a_stale_if_match(
    organizer_api, proposal, organizer, colleague
):
    url = f"/api/v1/challenges/{proposal.pk}/"
    etag = organizer_api.get(url)["ETag"]
    assert etag == f'"challenge-{proposal.pk}-v1"'
    services.update_challenge(challenge=proposal, actor=colleague, name="Renamed")

    stale = organizer_api.patch(
        url, {"name": "Mine"}, format="json", HTTP_IF_MATCH=etag
    )
    assert stale.status_code == 412
    proposal.refresh_from_db()
    assert proposal.name == "Renamed"

    fresh = organizer_api.get(url)["ETag"]
    saved = organizer_api.patch(
        url, {"name": "Mine"}, format="json", HTTP_IF_MATCH=fresh
    )
    assert saved.status_code == 200
    assert saved["ETag"] != fresh

    answer_url = f"{url}answers/5/"
    first = organizer_api.put(
        answer_url, {"value": "A"}, format="json", HTTP_IF_MATCH='"answer-new-v0"'
    )
    assert (first.status_code, first.json()["version"]) == (200, 1)
    services.answer_parameter(challenge=proposal, number=5, value="B", actor=colleague)
    late = organizer_api.put(
        answer_url, {"value": "C"}, format="json", HTTP_IF_MATCH=first["ETag"]
    )
    assert late.status_code == 412
    assert late.json()["changes"][0]["changed_by"] == "carla"
    assert stored(proposal, 5).value == "B"


def test_the_planning_form_refuses_a_stale_save(client, proposal, organizer, colleague):
    url = reverse("registry:planning", args=[proposal.pk])
    client.force_login(organizer)
    shown = client.get(url).content.decode()
    version = re.search(r'name="version" value="(\d+)"', shown).group(1)
    services.update_challenge(challenge=proposal, actor=colleague, name="Renamed")

    refused = client.post(url, {"version": version})

    assert refused.status_code == 200
    assert "someone else changed this" in refused.content.decode()
    proposal.refresh_from_db()
    assert proposal.name == "Renamed"
    again = re.search(r'name="version" value="(\d+)"', refused.content.decode())
    assert client.post(url, {"version": again.group(1)}).status_code == 302


def test_a_task_patch_from_a_stale_copy_is_412(organizer_api, proposal, organizer):
    task = services.add_task(challenge=proposal, name="Brain", actor=organizer)
    url = f"/api/v1/tasks/{task.pk}/"
    etag = organizer_api.get(url)["ETag"]
    services.rename_task(task=task, name="Heart", actor=organizer)
    stale = organizer_api.patch(
        url, {"name": "Liver"}, format="json", HTTP_IF_MATCH=etag
    )
    assert stale.status_code == 412
    assert stale.json()["changes"][0]["now"].startswith("name “Heart”")
    task.refresh_from_db()
    assert task.name == "Heart"


def shown(page, name: str) -> str:
    """The value the page's input or textarea `name` shows."""
    text = page.content.decode()
    found = re.search(rf'<input[^>]*name="{name}"[^>]*value="([^"]*)"', text) or (
        re.search(rf'<textarea[^>]*name="{name}"[^>]*>\n?(.*?)</textarea>', text, re.S)
    )
    return html.unescape(found.group(1)) if found else ""


def test_a_refused_save_shows_only_this_editors_changes_over_the_current_values(
    proposal, organizer, colleague
):
    """Carla changes the venue; Olga, whose page still shows the old venue,
    changes the website. Refused, Olga's page shows Carla's venue and her own
    website and names the venue as changed by Carla; saving it again keeps
    Carla's venue (it was written back with the stale value before)."""
    url = reverse("registry:edit-section", args=[proposal.pk, "challenge-organization"])
    olga, carla = Client(), Client()
    olga.force_login(organizer)
    carla.force_login(colleague)
    names = ("p01", "p02", "p05", "versions", "loaded")
    olga_page = olga.get(url)
    carla_form = {n: shown(carla.get(url), n) for n in names}
    assert (
        carla.post(url, {**carla_form, "p05": "Venue C", "save": "Save"}).status_code
        == 302
    )

    olga_form = {n: shown(olga_page, n) for n in names}
    refused = olga.post(
        url, {**olga_form, "p02": "https://olga.example.org", "save": "Save"}
    )

    assert refused.status_code == 409
    assert 'data-conflict="Parameter 5 (Challenge venue or platform)"' in (
        refused.content.decode()
    )
    again = {n: shown(refused, n) for n in names}
    assert (again["p05"], again["p02"]) == ("Venue C", "https://olga.example.org")
    assert olga.post(url, {**again, "save": "Save"}).status_code == 302
    assert stored(proposal, 5).value == "Venue C"  # never reverted
    assert stored(proposal, 5).updated_by == colleague
    assert stored(proposal, 2).value == "https://olga.example.org"
