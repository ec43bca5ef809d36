import datetime as dt

import lxml.html
import pytest
from django.urls import reverse

from registry import services
from registry.enums import ChallengeStatus
from registry.models import Answer, Challenge, Task
from registry.parameters import get_parameter
from registry.selectors import completeness_of, proposals_of
from tests.factories import ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposal(organizer, call):
    challenge = services.create_challenge(owner=organizer, call=call, name="Decathlon")
    services.add_task(challenge=challenge, name="Brain", actor=organizer)
    return challenge


@pytest.fixture
def signed_in(client, organizer):
    client.force_login(organizer)
    return client


def section_url(challenge, slug="challenge-organization", task=None):
    if task is None:
        return reverse("registry:edit-section", args=[challenge.pk, slug])
    return reverse("registry:edit-task-section", args=[challenge.pk, task.pk, slug])


def answer(challenge, number, task=None):
    return Answer.objects.filter(challenge=challenge, task=task, number=number).first()


# --- permissions ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["overview", "edit", "planning", "delete", "dashboard", "new"]
)
def test_pages_anonymous_redirects_to_login(client, proposal, name):
    args = [] if name in ("dashboard", "new") else [proposal.pk]
    response = client.get(reverse(f"registry:{name}", args=args))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", ["overview", "edit", "planning", "delete"])
def test_pages_other_user_gets_404(client, proposal, name):
    client.force_login(UserFactory())
    assert client.get(reverse(f"registry:{name}", args=[proposal.pk])).status_code == (
        404
    )


def test_section_editor_other_user_post_gets_404_and_saves_nothing(client, proposal):
    client.force_login(UserFactory())
    response = client.post(section_url(proposal), {"p02": "https://x.example.org"})
    assert response.status_code == 404
    assert answer(proposal, 2) is None


def test_section_editor_of_submitted_proposal_is_forbidden(signed_in, proposal):
    Challenge.objects.filter(pk=proposal.pk).update(status=ChallengeStatus.SUBMITTED)
    assert signed_in.get(section_url(proposal)).status_code == 403
    response = signed_in.post(section_url(proposal), {"p02": "https://x.example.org"})
    assert response.status_code == 403
    assert answer(proposal, 2) is None


def test_overview_of_submitted_proposal_is_readable_without_edit_links(
    signed_in, proposal
):
    Challenge.objects.filter(pk=proposal.pk).update(status=ChallengeStatus.SUBMITTED)
    response = signed_in.get(reverse("registry:overview", args=[proposal.pk]))
    assert response.status_code == 200
    assert reverse("registry:edit", args=[proposal.pk]) not in response.text
    assert "Submitted" in response.text


def test_co_organizer_can_edit_but_not_delete(client, proposal, organizer):
    colleague = UserFactory()
    services.add_co_organizer(challenge=proposal, user=colleague, actor=organizer)
    client.force_login(colleague)
    assert client.get(section_url(proposal)).status_code == 200
    assert client.post(reverse("registry:delete", args=[proposal.pk])).status_code == (
        403
    )
    assert Challenge.objects.filter(pk=proposal.pk).exists()


def test_unknown_section_is_404(signed_in, proposal):
    assert signed_in.get(section_url(proposal, "nope")).status_code == 404
    # a task-level section is not a challenge-level one
    assert signed_in.get(section_url(proposal, "assessment-method")).status_code == 404


# --- section editor ----------------------------------------------------------------


def test_section_editor_lists_every_catalogue_parameter_of_the_section(
    signed_in, proposal
):
    response = signed_in.get(section_url(proposal))
    for number in range(1, 9):
        parameter = get_parameter(number)
        assert f'id="{parameter.key}"' in response.text
        assert parameter.name in response.text
    assert 'id="p09"' not in response.text  # next group


def test_saving_a_section_stores_cleaned_values(signed_in, proposal, organizer):
    data = {
        "p01": "Decathlon 2027",
        "p02": " https://decathlon.example.org ",
        "p03-institutions": "DKFZ\n\n  Inria  ",
        "p03-name": "Jane Doe",
        "p03-email": "jane@example.org",
        "p04-choice": "open call",
        "p04-details": "",
        "p06-date": ["2027-08-01", "2027-04-01", ""],
        "p06-event": ["Deadline", "Training data", ""],
        "p07-na": "on",
        "p07-reason": "Public data only.",
        "p08": "",
        "save": "Save",
    }
    response = signed_in.post(section_url(proposal), data)
    assert response.status_code == 302
    assert response["Location"] == section_url(proposal)
    proposal.refresh_from_db()
    assert proposal.name == "Decathlon 2027"
    assert answer(proposal, 2).value == "https://decathlon.example.org"
    assert answer(proposal, 3).value == {
        "institutions": ["DKFZ", "Inria"],
        "contact": {"name": "Jane Doe", "email": "jane@example.org"},
        "details": "",
    }
    assert answer(proposal, 4).value == {"choice": "open call", "details": ""}
    assert answer(proposal, 6).value["events"] == [
        {"date": "2027-04-01", "event": "Training data"},
        {"date": "2027-08-01", "event": "Deadline"},
    ]
    assert answer(proposal, 7).not_applicable == "Public data only."
    assert answer(proposal, 8) is None
    assert answer(proposal, 3).updated_by == organizer


def test_saving_task_metrics_and_count(signed_in, proposal):
    task = proposal.tasks.get()
    data = {
        "p38-count": "120",
        "p38-details": "60 patients",
        "save_next": "Save and next section",
    }
    response = signed_in.post(section_url(proposal, "challenge-data-sets", task), data)
    assert response.status_code == 302
    assert response["Location"] == section_url(proposal, "assessment-method", task)
    assert answer(proposal, 38, task).value == {"count": 120, "details": "60 patients"}
    data = {
        "p44-name": ["DSC", "HD95", ""],
        "p44-higher": ["0"],
        "p44-worst": ["0", "", ""],
        "p44-lower": ["0", "0", ""],
        "p44-upper": ["1", "", ""],
        "p46": "Mean over cases.",
    }
    response = signed_in.post(section_url(proposal, "assessment-method", task), data)
    assert response.status_code == 302
    metrics = answer(proposal, 44, task).value["metrics"]
    assert metrics == [
        {
            "name": "DSC",
            "higher_is_better": True,
            "worst_value": 0,
            "lower_bound": 0,
            "upper_bound": 1,
        },
        {
            "name": "HD95",
            "higher_is_better": False,
            "worst_value": None,
            "lower_bound": 0,
            "upper_bound": None,
        },
    ]


def test_invalid_field_saves_nothing_and_keeps_typed_values(signed_in, proposal):
    data = {
        "p01": "Decathlon",
        "p02": "https://ok.example.org",
        "p05": "Grand Challenge <b>platform</b>",
        "p06-date": ["not-a-date"],
        "p06-event": ["Training data"],
        "p04-choice": "open call",
    }
    response = signed_in.post(section_url(proposal), data)
    assert response.status_code == 400
    assert answer(proposal, 2) is None
    assert answer(proposal, 4) is None
    text = response.text
    assert 'value="https://ok.example.org"' in text
    assert 'value="not-a-date"' in text
    assert 'value="Training data"' in text
    assert "Grand Challenge &lt;b&gt;platform&lt;/b&gt;" in text  # escaped
    assert '<option value="open call" selected>' in text
    assert 'data-error-for="p06"' in text
    assert "is not YYYY-MM-DD" in text


def test_not_applicable_without_reason_is_refused(signed_in, proposal):
    response = signed_in.post(
        section_url(proposal), {"p01": "Decathlon", "p07-na": "on", "p07-reason": ""}
    )
    assert response.status_code == 400
    assert "Say why it does not apply." in response.text
    assert answer(proposal, 7) is None


def test_emptied_field_clears_the_answer(signed_in, proposal, organizer):
    services.answer_parameter(
        challenge=proposal, number=5, value="Grand Challenge", actor=organizer
    )
    response = signed_in.post(section_url(proposal), {"p01": "Decathlon", "p05": ""})
    assert response.status_code == 302
    assert answer(proposal, 5) is None


def test_clearing_the_name_is_refused_next_to_the_field(signed_in, proposal):
    response = signed_in.post(
        section_url(proposal), {"p01": "", "p02": "https://x.example.org"}
    )
    assert response.status_code == 400
    assert "The challenge name cannot be cleared." in response.text
    assert answer(proposal, 2) is None


def test_section_editor_shows_stored_answers(signed_in, proposal, organizer):
    fill_proposal(proposal, organizer)
    task = proposal.tasks.get()
    response = signed_in.get(section_url(proposal, "assessment-method", task))
    assert 'value="DSC"' in response.text
    assert 'value="NSD"' in response.text
    response = signed_in.get(section_url(proposal))
    assert "German Cancer Research Center (DKFZ)" in response.text
    assert 'value="2027-04-01"' in response.text


# --- overview and submission -------------------------------------------------------


def test_overview_renders_answers_not_applicable_and_missing(
    signed_in, proposal, organizer
):
    services.answer_parameter(
        challenge=proposal, number=2, value="https://d.example.org", actor=organizer
    )
    services.answer_parameter(
        challenge=proposal, number=7, not_applicable="No <patients>", actor=organizer
    )
    response = signed_in.get(reverse("registry:overview", args=[proposal.pk]))
    text = response.text
    assert "https://d.example.org" in text
    assert "Not applicable:</em> No &lt;patients&gt;" in text
    assert 'data-missing="p06"' in text
    assert "Task: Brain" in text
    assert "Expected number of participants" in text  # unanswered planning


def test_submit_below_threshold_lists_missing_with_links(signed_in, proposal):
    response = signed_in.post(reverse("registry:submit", args=[proposal.pk]))
    assert response.status_code == 200
    text = response.text
    assert 'id="missing-required"' in text
    task = proposal.tasks.get()
    link = section_url(proposal, "assessment-method", task) + "#p44"
    assert f'href="{link}"' in text
    assert "Challenge schedule" in text
    proposal.refresh_from_db()
    assert proposal.status == ChallengeStatus.DRAFT


def test_submit_complete_proposal(signed_in, proposal, organizer):
    fill_proposal(proposal, organizer)
    response = signed_in.post(reverse("registry:submit", args=[proposal.pk]))
    assert response.status_code == 302
    proposal.refresh_from_db()
    assert proposal.status == ChallengeStatus.SUBMITTED


def test_submit_is_post_only(signed_in, proposal):
    assert signed_in.get(
        reverse("registry:submit", args=[proposal.pk])
    ).status_code == (405)


# --- dashboard, create, duplicate, delete --------------------------------------------


def test_dashboard_lists_my_proposals_with_completeness(signed_in, proposal):
    ChallengeFactory(name="Someone else's")
    response = signed_in.get(reverse("registry:dashboard"))
    assert "Decathlon" in response.text
    assert "Someone else" not in response.text
    assert 'data-percent="' in response.text


def test_dashboard_lists_co_organized_proposals_once(signed_in, organizer, proposal):
    theirs = ChallengeFactory(name="Co-organized")
    theirs.co_organizers.add(organizer)
    proposal.co_organizers.add(organizer)  # owner and co-organizer: still one row
    ChallengeFactory(name="Someone else's")
    assert sorted(proposals_of(organizer).values_list("name", flat=True)) == [
        "Co-organized",
        "Decathlon",
    ]
    response = signed_in.get(reverse("registry:dashboard"))
    assert "Co-organized" in response.text
    assert "Someone else" not in response.text


def test_dashboard_starts_with_what_waits_for_the_organizer(
    signed_in, organizer, call, proposal
):
    call.submission_deadline = dt.date(2027, 3, 1)
    call.save()
    revise = services.create_challenge(owner=organizer, call=call, name="Revise me")
    Challenge.objects.filter(pk=revise.pk).update(status="revision_requested")
    Challenge.objects.filter(
        pk=services.create_challenge(owner=organizer, call=call, name="Sent").pk
    ).update(status="submitted")
    html = signed_in.get(reverse("registry:dashboard")).text
    items = lxml.html.fromstring(html).xpath("//*[@id='waiting']//li")
    assert [li.get("data-waiting") for li in items] == [
        str(revise.pk),
        str(proposal.pk),
    ]
    assert "Revise and resubmit “Revise me”" in items[0].text_content()
    assert "Complete and submit “Decathlon”" in items[1].text_content()
    assert "until 1 Mar 2027" in items[1].text_content()


@pytest.mark.parametrize("count", [1, 3])
def test_dashboard_query_count_is_constant(
    signed_in, organizer, call, count, django_assert_max_num_queries
):
    for i in range(count):
        challenge = services.create_challenge(owner=organizer, call=call, name=f"C{i}")
        TaskFactory(challenge=challenge)
    # 6 for the page (one counts its rows), 1 for the navbar's review menus,
    # 3 for what waits for the organizer (proposals, their answers and tasks).
    with django_assert_max_num_queries(10):
        response = signed_in.get(reverse("registry:dashboard"))
    assert response.status_code == 200


def test_new_proposal_creates_and_redirects(signed_in, call):
    response = signed_in.post(
        reverse("registry:new"), {"call": call.pk, "name": "  Decathlon  "}
    )
    challenge = Challenge.objects.get()
    assert response["Location"] == reverse("registry:overview", args=[challenge.pk])
    assert challenge.name == "Decathlon"


def test_new_proposal_without_name_is_refused(signed_in, call):
    response = signed_in.post(reverse("registry:new"), {"call": call.pk, "name": ""})
    assert response.status_code == 200
    assert Challenge.objects.count() == 0


def test_duplicate_creates_copy_and_redirects(signed_in, proposal):
    response = signed_in.post(reverse("registry:duplicate", args=[proposal.pk]))
    copy = Challenge.objects.exclude(pk=proposal.pk).get()
    assert response["Location"] == reverse("registry:overview", args=[copy.pk])
    assert copy.name == "Copy of Decathlon"
    assert list(copy.tasks.values_list("name", flat=True)) == ["Brain"]


def test_delete_needs_confirmation_then_deletes(signed_in, proposal):
    url = reverse("registry:delete", args=[proposal.pk])
    response = signed_in.get(url)
    assert "cannot be undone" in response.text
    assert Challenge.objects.filter(pk=proposal.pk).exists()
    response = signed_in.post(url)
    assert response["Location"] == reverse("registry:dashboard")
    assert not Challenge.objects.filter(pk=proposal.pk).exists()


def test_delete_submitted_is_refused(signed_in, proposal):
    Challenge.objects.filter(pk=proposal.pk).update(status=ChallengeStatus.SUBMITTED)
    signed_in.post(reverse("registry:delete", args=[proposal.pk]))
    assert Challenge.objects.filter(pk=proposal.pk).exists()


# --- tasks, organizers, planning ---------------------------------------------------


def test_task_add_rename_move_remove(signed_in, proposal):
    add = reverse("registry:add-task", args=[proposal.pk])
    signed_in.post(add, {"name": "Liver"})
    brain, liver = proposal.tasks.all()
    assert (brain.name, liver.name) == ("Brain", "Liver")
    signed_in.post(
        reverse("registry:move-task", args=[proposal.pk, liver.pk]),
        {"direction": "up"},
    )
    assert [t.name for t in proposal.tasks.all()] == ["Liver", "Brain"]
    signed_in.post(
        reverse("registry:rename-task", args=[proposal.pk, liver.pk]),
        {"name": "Hepatic"},
    )
    assert [t.name for t in proposal.tasks.all()] == ["Hepatic", "Brain"]
    remove = reverse("registry:remove-task", args=[proposal.pk, brain.pk])
    assert "Remove task" in signed_in.get(remove).text
    assert proposal.tasks.count() == 2
    signed_in.post(remove)
    assert [t.name for t in proposal.tasks.all()] == ["Hepatic"]


def test_duplicate_task_name_is_refused_with_message(signed_in, proposal):
    response = signed_in.post(
        reverse("registry:add-task", args=[proposal.pk]), {"name": "Brain"}, follow=True
    )
    assert "A task &#x27;Brain&#x27; already exists." in response.text
    assert proposal.tasks.count() == 1


def test_task_of_another_proposal_is_404(signed_in, proposal):
    foreign = TaskFactory()
    url = reverse("registry:rename-task", args=[proposal.pk, foreign.pk])
    assert signed_in.post(url, {"name": "X"}).status_code == 404
    assert Task.objects.get(pk=foreign.pk).name != "X"


def test_owner_adds_and_removes_co_organizer(signed_in, proposal):
    colleague = UserFactory(username="carl")
    signed_in.post(
        reverse("registry:add-organizer", args=[proposal.pk]), {"username": "carl"}
    )
    assert list(proposal.co_organizers.all()) == [colleague]
    signed_in.post(
        reverse("registry:remove-organizer", args=[proposal.pk, colleague.pk])
    )
    assert list(proposal.co_organizers.all()) == []


def test_unknown_co_organizer_is_refused_with_message(signed_in, proposal):
    response = signed_in.post(
        reverse("registry:add-organizer", args=[proposal.pk]),
        {"username": "ghost"},
        follow=True,
    )
    assert "No user &#x27;ghost&#x27;." in response.text


def test_planning_saves_cleaned_answers(signed_in, proposal):
    url = reverse("registry:planning", args=[proposal.pk])
    response = signed_in.post(
        url, {"duration": "full day", "expected_participants": "25", "workshop": ""}
    )
    assert response.status_code == 302
    proposal.refresh_from_db()
    assert proposal.planning == {"duration": "full day", "expected_participants": 25}


def test_planning_rejects_negative_number(signed_in, proposal):
    url = reverse("registry:planning", args=[proposal.pk])
    response = signed_in.post(url, {"expected_participants": "-3"})
    assert response.status_code == 200
    assert 'value="-3"' in response.text
    proposal.refresh_from_db()
    assert proposal.planning == {}


# --- the organizer's journey (#15) -------------------------------------------------


def test_overview_links_exports_and_names_people(client, db):
    from accounts.models import Role
    from registry import services as registry_services
    from tests.factories import CallFactory, UserFactory

    owner = UserFactory(
        username="olga",
        first_name="Olga",
        last_name="Ivanova",
        profile__institution="Org Institute",
        profile__role=Role.ORGANIZER,
    )
    challenge = registry_services.create_challenge(
        owner=owner, call=CallFactory(), name="Decathlon"
    )
    client.force_login(owner)
    html = client.get(f"/proposals/{challenge.pk}/").content.decode()
    assert f'href="/proposals/{challenge.pk}/export.json"' in html
    assert f'href="/proposals/{challenge.pk}/design.pdf"' in html
    assert 'id="duplicate-proposal"' in html
    assert "Olga Ivanova" in html
    assert "(Org Institute)" in html
    assert "owner olga" not in html
    dashboard = client.get("/proposals/").content.decode()
    assert 'href="/proposals/import/"' in dashboard
    assert "<time datetime=" in dashboard
    assert 'data-local="datetime"' in dashboard


def test_favicon_is_linked_and_answered(client, db):
    home = client.get("/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg"' in home
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response.url == "/static/favicon.svg"


def test_overview_counts_the_design_as_the_public_record_does(signed_in, proposal):
    completeness = completeness_of(proposal)
    html = signed_in.get(reverse("registry:overview", args=[proposal.pk])).text
    design = completeness.design
    assert design.total < completeness.overall.total
    assert f"({design.done} of {design.total}), as the public record counts" in html


def test_overview_says_when_a_draft_is_not_ready_to_submit(
    signed_in, proposal, organizer
):
    url = reverse("registry:overview", args=[proposal.pk])
    html = signed_in.get(url).text
    assert 'id="not-submittable"' in html
    assert "the call needs 90 %" in html
    fill_proposal(proposal, organizer)
    html = signed_in.get(url).text
    assert 'id="not-submittable"' not in html
    assert 'class="btn btn-success" type="submit" id="submit-proposal"' in html
