"""The HTML pages of peer review: chairs, reviewers, organizers."""

import datetime as dt
import re

import lxml.html
import pytest
from django.core import mail
from django.urls import reverse

from registry import services as registry_services
from registry.enums import ChallengeStatus
from registry.models import Answer
from reviews import selectors, services
from reviews.enums import AssignmentStatus
from reviews.models import Assignment, Review
from reviews.validation import TEXT_LIMIT
from tests.factories import UserFactory
from tests.reviews.conftest import REVIEW_FORM, decide_revision

pytestmark = pytest.mark.django_db


def signed_in(client, user):
    client.force_login(user)
    return client


def page_html(client, user, name: str, *args) -> str:
    """The page `name` (with URL arguments `args`) as `user` sees it; it must be
    served (200)."""
    response = signed_in(client, user).get(reverse(name, args=args))
    assert response.status_code == 200
    return response.text


def form(prefix: str, **fields: str) -> dict[str, str]:
    """The POST data of a form rendered with `prefix`: field `name` is sent as
    "<prefix>-<name>"."""
    return {f"{prefix}-{name}": value for name, value in fields.items()}


CODE_NAMES = {"tina": "alpha", "tom": "beta", "clara": "gamma"}


def review(world, user, recommendation="major_revision", **extra):
    """A review whose texts carry a code name, never the reviewer's username."""
    code = CODE_NAMES[user.username]
    return services.submit_review(
        challenge=world.challenge,
        actor=user,
        recommendation=recommendation,
        confidence=4,
        comments=f"Comments of {code}.",
        confidential=f"Secret of {code}.",
        **extra,
    )


def request_revision(world):
    review(world, world.tech1)
    review(world, world.tech2)
    review(world, world.clinical, clinical_relevance=4)
    decide_revision(world, "Please add a missing-data rule.")


def revise_and_resubmit(world):
    request_revision(world)
    task = world.challenge.tasks.get()
    registry_services.answer_parameter(
        challenge=world.challenge,
        task=task,
        number=48,
        value="Missing results are set to the worst value.",
        actor=world.organizer,
    )
    services.resubmit_challenge(
        challenge=world.challenge, actor=world.organizer, response="We added it."
    )


# --- chair: call overview ---------------------------------------------------------


def test_call_overview_lists_submissions_with_progress(client, under_review):
    review(under_review, under_review.tech1)
    html = page_html(client, under_review.chair, "reviews:call", under_review.call.pk)
    assert under_review.challenge.name in html
    assert 'data-status="under_review"' in html
    assert 'data-technical="1/2"' in html
    assert 'data-clinical="0/1"' in html
    due = Assignment.objects.filter(status="assigned").order_by("due").first().due
    assert due.isoformat() in html
    assert 'data-percent="100.0"' in html


def test_call_overview_filters_by_status(client, under_review):
    url = reverse("reviews:call", args=[under_review.call.pk])
    client = signed_in(client, under_review.chair)
    assert (
        under_review.challenge.name in client.get(url, {"status": "under_review"}).text
    )
    filtered = client.get(url, {"status": "accepted"}).text
    assert under_review.challenge.name not in filtered
    assert "No submissions with this status" in filtered


def test_call_overview_sorts_by_name_descending(client, under_review):
    from tests.reviews.conftest import submitted_proposal

    submitted_proposal(under_review.organizer, under_review.call, name="Alpha")
    url = reverse("reviews:call", args=[under_review.call.pk])
    client = signed_in(client, under_review.chair)
    ascending = client.get(url, {"sort": "name"}).text
    descending = client.get(url, {"sort": "-name"}).text
    assert ascending.index("Alpha") < ascending.index("Decathlon")
    assert descending.index("Decathlon") < descending.index("Alpha")


def test_calls_page_lists_only_chaired_calls(client, world):
    html = page_html(client, world.chair, "reviews:calls")
    assert "MICCAI 2027" in html
    assert world.other_chair.chaired_calls.get().title not in html


# --- chair: review management -----------------------------------------------------


def test_manage_page_shows_suggestions_with_overlapping_keywords(client, world):
    html = page_html(client, world.chair, "reviews:manage", world.challenge.pk)
    assert 'data-suggestion="tina"' in html
    assert "2 shared keywords: mri, segmentation" in html
    assert html.index('data-suggestion="tina"') < html.index('data-suggestion="rex"')


def test_a_suggestion_assigns_with_one_click(client, world):
    html = page_html(client, world.chair, "reviews:manage", world.challenge.pk)
    [button_form] = lxml.html.fromstring(html).xpath(
        "//form[@data-assign-suggestion='tina']"
    )
    data = {i.get("name"): i.get("value") for i in button_form.xpath(".//input")}
    response = signed_in(client, world.chair).post(button_form.get("action"), data)
    assert response.status_code == 302
    assignment = Assignment.objects.get(reviewer=world.tech1)
    assert assignment.role == "technical"
    assert assignment.due == dt.date.today() + dt.timedelta(weeks=3)


def test_assign_page_creates_assignment_and_mails_reviewer(
    client, world, django_capture_on_commit_callbacks
):
    due = dt.date.today() + dt.timedelta(days=30)
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, world.chair).post(
            reverse("reviews:assign", args=[world.challenge.pk]),
            form("assign", reviewer="tina", role="technical", due=due.isoformat()),
        )
    assert response.status_code == 302
    assignment = Assignment.objects.get(reviewer=world.tech1)
    assert (assignment.role, assignment.due) == ("technical", due)
    world.challenge.refresh_from_db()
    assert world.challenge.status == ChallengeStatus.UNDER_REVIEW
    assert [m.to for m in mail.outbox] == [[world.tech1.email]]
    assert f"/reviews/proposals/{world.challenge.pk}/review/" in mail.outbox[0].body


def test_assign_page_refuses_a_past_due_date_and_assigns_nobody(client, world):
    yesterday = dt.date.today() - dt.timedelta(days=1)
    response = signed_in(client, world.chair).post(
        reverse("reviews:assign", args=[world.challenge.pk]),
        form("assign", reviewer="tina", role="technical", due=yesterday.isoformat()),
    )
    assert response.status_code == 400
    assert f"{yesterday.isoformat()} is in the past" in response.text
    assert not Assignment.objects.exists()


def test_assign_conflicted_reviewer_shows_reason_and_changes_nothing(
    client, world, django_capture_on_commit_callbacks
):
    conflicted = UserFactory(username="carl", profile__institution="Org Institute")
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, world.chair).post(
            reverse("reviews:assign", args=[world.challenge.pk]),
            form("assign", reviewer=conflicted.username, role="technical"),
        )
    assert response.status_code == 409
    assert "carl is affiliated with &#x27;Org Institute&#x27;" in response.text
    assert "Nothing was changed." in response.text
    assert not Assignment.objects.exists()
    world.challenge.refresh_from_db()
    assert world.challenge.status == ChallengeStatus.SUBMITTED
    assert mail.outbox == []


def test_assign_unknown_reviewer_names_the_field(client, world):
    response = signed_in(client, world.chair).post(
        reverse("reviews:assign", args=[world.challenge.pk]),
        form("assign", reviewer="nobody", role="technical"),
    )
    assert response.status_code == 400
    assert "No user &#x27;nobody&#x27;." in response.text
    assert not Assignment.objects.exists()


def test_manage_page_shows_identities_confidential_and_draft_letter(
    client, under_review
):
    review(under_review, under_review.tech1)
    html = page_html(
        client, under_review.chair, "reviews:manage", under_review.challenge.pk
    )
    assert 'Reviewer 1 <span class="reviewer-name">(tina)</span>' in html
    assert "Secret of alpha." in html
    letter_start = html.index('name="decision-letter"')
    letter = html[letter_start : html.index("</textarea>", letter_start)]
    assert "Reviewer 1 (technical reviewer): Major revision" in letter
    assert "tina" not in letter
    assert "Secret" not in letter


def test_draft_letter_quotes_parameter_comments_and_drops_withdrawn_reviews(
    client, under_review
):
    review(
        under_review,
        under_review.tech1,
        parameters=[{"number": 46, "task": "Brain", "comment": "Which order?"}],
    )
    withdrawn = review(under_review, under_review.clinical)
    withdrawn.assignment.status = "withdrawn"  # a conflict appeared afterwards
    withdrawn.assignment.save(update_fields=["status"])
    letter = selectors.draft_decision_letter(under_review.challenge)
    assert "- Task Brain, 46. Rank computation method: Which order?" in letter
    assert "Comments of alpha." in letter
    assert "Comments of gamma." not in letter  # the withdrawn reviewer's review
    assert "1 = poor to 5 = excellent" in letter


def test_decide_page_requests_revision_and_mails_organizers(
    client, under_review, django_capture_on_commit_callbacks
):
    review(under_review, under_review.tech1)
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, under_review.chair).post(
            reverse("reviews:decide", args=[under_review.challenge.pk]),
            form(
                "decision", decision="revision", letter="Please revise.", confirm="on"
            ),
        )
    assert response.status_code == 302
    under_review.challenge.refresh_from_db()
    assert under_review.challenge.status == ChallengeStatus.REVISION_REQUESTED
    assert [m.to for m in mail.outbox] == [[under_review.organizer.email]]
    assert "Please revise." in mail.outbox[0].body
    assert f"/reviews/proposals/{under_review.challenge.pk}/resubmit/" in (
        mail.outbox[0].body
    )


def test_decide_twice_is_refused_with_conflict(client, under_review):
    client = signed_in(client, under_review.chair)
    url = reverse("reviews:decide", args=[under_review.challenge.pk])
    client.post(
        url,
        form("decision", decision="accept", letter="Yes.", confirm="on"),
    )
    response = client.post(url, form("decision", decision="reject", letter="No."))
    assert response.status_code == 409
    assert "a decision needs a proposal under review" in response.text
    assert under_review.challenge.decisions.count() == 1


# --- reviewer ---------------------------------------------------------------------


def test_my_reviews_lists_assignments_with_due_dates(client, under_review):
    html = page_html(client, under_review.tech1, "reviews:mine")
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    assert under_review.challenge.name in html
    assert assignment.due.isoformat() in html
    assert reverse("reviews:review", args=[under_review.challenge.pk]) in html
    assert f'name="decline-{assignment.pk}-reason"' in html


def test_my_reviews_starts_with_the_reviews_waiting_soonest_due_first(
    client, under_review
):
    html = page_html(client, under_review.tech1, "reviews:mine")
    waiting = lxml.html.fromstring(html).xpath("//*[@id='waiting']//li")
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    assert [li.get("data-waiting") for li in waiting] == [str(assignment.pk)]
    assert f"Review “{under_review.challenge.name}”" in waiting[0].text_content()
    review(under_review, under_review.tech1)  # written: nothing waits any more
    html = page_html(client, under_review.tech1, "reviews:mine")
    assert "No review is waiting for you." in html


def test_decline_with_reason_declines(client, under_review):
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    response = signed_in(client, under_review.tech1).post(
        reverse("reviews:decline", args=[assignment.pk]),
        {f"decline-{assignment.pk}-reason": "I co-authored with them."},
    )
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.DECLINED
    assert assignment.decline_reason == "I co-authored with them."


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        ("  ", "Give a reason for declining."),
        ("x" * (TEXT_LIMIT + 1), f"At most {TEXT_LIMIT} characters."),
    ],
    ids=["blank", "too long"],
)
def test_decline_refused_says_why_keeps_the_text_and_changes_nothing(
    client, under_review, reason, said
):
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    response = signed_in(client, under_review.tech1).post(
        reverse("reviews:decline", args=[assignment.pk]),
        {f"decline-{assignment.pk}-reason": reason},
    )
    assert response.status_code == 400
    page = lxml.html.fromstring(response.text)
    (row,) = page.xpath(f"//tr[@data-assignment='{assignment.pk}']")
    assert row.find(".//details").get("open") is not None
    assert said in row.text_content()
    assert row.find(".//textarea").text.strip() == reason.strip()
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.ASSIGNED


def test_declining_twice_says_it_is_declined_whatever_was_sent(client, under_review):
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    reviewer = signed_in(client, under_review.tech1)
    url = reverse("reviews:decline", args=[assignment.pk])
    field = f"decline-{assignment.pk}-reason"
    assert reviewer.post(url, {field: "Busy."}).status_code == 302
    for reason in ("Busy again.", ""):
        response = reviewer.post(url, {field: reason})
        assert response.status_code == 409
        assert "The assignment is declined" in response.text
    assignment.refresh_from_db()
    assert assignment.decline_reason == "Busy."


def test_review_page_shows_proposal_read_only_with_checks(client, under_review):
    task = under_review.challenge.tasks.get()
    html = page_html(
        client, under_review.tech1, "reviews:review", under_review.challenge.pk
    )
    assert 'id="design-checks"' in html
    assert 'data-check="missing_data_rule_missing"' in html
    assert f'href="#t{task.pk}-p48"' in html
    assert f'id="t{task.pk}-p48"' in html
    assert "Source: Maier-Hein et al., Nat Commun 2018, Discussion" in html
    assert reverse("registry:edit", args=[under_review.challenge.pk]) not in html
    assert 'name="clinical_relevance"' not in html


def test_review_page_links_the_design_pdf_and_names_the_good_end_of_scores(
    client, under_review
):
    challenge = under_review.challenge
    html = page_html(client, under_review.tech1, "reviews:review", challenge.pk)
    pdf_url = reverse("registry:design-pdf", args=[challenge.pk])
    assert f'href="{pdf_url}" id="design-pdf"' in html
    assert "1 = poor … 5 = excellent; higher is better" in html
    assert ">5 – excellent</option>" in html
    # ... and the reviewer may open it
    response = signed_in(client, under_review.tech1).get(pdf_url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"


def test_review_page_asks_clinical_reviewers_for_clinical_relevance(
    client, under_review
):
    html = page_html(
        client, under_review.clinical, "reviews:review", under_review.challenge.pk
    )
    assert 'name="clinical_relevance"' in html


def test_submit_review_form_stores_review_and_mails_chairs(
    client, under_review, django_capture_on_commit_callbacks
):
    task = under_review.challenge.tasks.get()
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, under_review.clinical).post(
            reverse("reviews:review", args=[under_review.challenge.pk]),
            {
                **REVIEW_FORM,
                "parameter_1": f"48@{task.pk}",
                "parameter_1_comment": "Say what happens to missing cases.",
                "confidential": "Weak team.",
                "clinical_relevance": "5",
            },
        )
    assert response.status_code == 302
    stored = Review.objects.get()
    assert stored.recommendation == "major_revision"
    assert stored.confidence == 4
    assert stored.sections == {
        "Assessment method": {"score": 2, "comment": "The ranking is vague."}
    }
    assert stored.parameters == [
        {
            "number": 48,
            "task": task.name,
            "comment": "Say what happens to missing cases.",
        }
    ]
    assert (stored.confidential, stored.clinical_relevance) == ("Weak team.", 5)
    assert [m.to for m in mail.outbox] == [[under_review.chair.email]]


def test_submit_review_form_with_comment_but_no_score_names_field(client, under_review):
    response = signed_in(client, under_review.tech1).post(
        reverse("reviews:review", args=[under_review.challenge.pk]),
        {**REVIEW_FORM, "section_5_score": ""},
    )
    assert response.status_code == 400
    assert "Give a score with your comment." in response.text
    assert not Review.objects.exists()


def test_co_reviews_visible_only_after_own_review(client, under_review):
    review(under_review, under_review.tech2)
    client = signed_in(client, under_review.tech1)
    url = reverse("reviews:review", args=[under_review.challenge.pk])
    assert "Comments of beta." not in client.get(url).text
    client.post(url, REVIEW_FORM)
    html = client.get(url).text
    assert "Comments of beta." in html
    assert "Secret of beta." not in html
    assert "(tom)" not in html
    assert "You have reviewed revision 1." in html


def test_second_review_of_same_revision_is_refused(client, under_review):
    review(under_review, under_review.tech1)
    response = signed_in(client, under_review.tech1).post(
        reverse("reviews:review", args=[under_review.challenge.pk]), REVIEW_FORM
    )
    assert response.status_code == 409
    assert Review.objects.count() == 1


def test_review_page_of_revision_shows_diff_and_response(client, under_review):
    revise_and_resubmit(under_review)
    html = page_html(
        client, under_review.tech1, "reviews:review", under_review.challenge.pk
    )
    assert "Changes since revision 1" in html
    assert "We added it." in html
    assert html.count('class="changed-parameter"') == 1
    assert 'data-parameter="48"' in html
    assert '<del class="diff-del">A free-text description.</del>' in html
    assert (
        '<ins class="diff-ins">Missing results are set to the worst value.</ins>'
        in html
    )
    assert 'name="recommendation"' in html


# --- organizer --------------------------------------------------------------------


def test_overview_panel_shows_timeline_decision_and_blind_reviews(client, under_review):
    request_revision(under_review)
    html = page_html(
        client, under_review.organizer, "registry:overview", under_review.challenge.pk
    )
    assert 'id="timeline"' in html
    assert 'data-to="revision_requested"' in html
    assert "Please add a missing-data rule." in html
    assert "Comments of alpha." in html
    assert "Reviewer 1" in html
    for name in ("tina", "tom", "clara"):
        assert re.search(rf"\b{name}\b", html) is None
    assert "Secret of" not in html
    assert reverse("reviews:resubmit", args=[under_review.challenge.pk]) in html
    assert reverse("registry:submit", args=[under_review.challenge.pk]) not in html


def test_overview_shows_design_checks_linking_to_editor(client, world):
    challenge = registry_services.create_challenge(
        owner=world.organizer, call=world.call, name="Draft"
    )
    task = registry_services.add_task(
        challenge=challenge, name="Brain", actor=world.organizer
    )
    html = page_html(client, world.organizer, "registry:overview", challenge.pk)
    edit = reverse("registry:edit-task-section", args=[challenge.pk, task.pk, "x"])
    assert 'data-check="ranking_scheme_not_executable"' in html
    assert edit.replace("/x/", "/assessment-method/") + "#p46" in html
    assert 'id="review-status"' not in html


def test_section_editor_sidebar_shows_design_checks(client, world):
    challenge = registry_services.create_challenge(
        owner=world.organizer, call=world.call, name="Draft"
    )
    html = page_html(
        client,
        world.organizer,
        "registry:edit-section",
        challenge.pk,
        "participation-conditions",
    )
    assert 'data-check="organizer_participation_missing"' in html
    assert "participation-conditions/#p10" in html


def test_resubmit_page_resubmits_and_mails_reviewers(
    client, under_review, django_capture_on_commit_callbacks
):
    request_revision(under_review)
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, under_review.organizer).post(
            reverse("reviews:resubmit", args=[under_review.challenge.pk]),
            {"response": "We added the rule."},
        )
    assert response.status_code == 302
    under_review.challenge.refresh_from_db()
    assert under_review.challenge.status == ChallengeStatus.UNDER_REVIEW
    assert under_review.challenge.revision == 2
    assert sorted(to for m in mail.outbox for to in m.to) == sorted(
        u.email for u in (under_review.tech1, under_review.tech2, under_review.clinical)
    )


def test_resubmit_below_completeness_is_refused_with_missing_parameters(
    client, under_review
):
    request_revision(under_review)
    Answer.objects.filter(
        challenge=under_review.challenge, number__in=range(2, 40)
    ).delete()
    response = signed_in(client, under_review.organizer).post(
        reverse("reviews:resubmit", args=[under_review.challenge.pk]),
        {"response": "Done."},
    )
    assert response.status_code == 409
    assert 'id="resubmit-refused"' in response.text
    assert 'id="missing-required"' in response.text
    under_review.challenge.refresh_from_db()
    assert under_review.challenge.status == ChallengeStatus.REVISION_REQUESTED
    assert under_review.challenge.revision == 1


def test_resubmit_without_response_names_the_field(client, under_review):
    request_revision(under_review)
    response = signed_in(client, under_review.organizer).post(
        reverse("reviews:resubmit", args=[under_review.challenge.pk]),
        {"response": ""},
    )
    assert response.status_code == 400
    assert "This field is required." in response.text
    under_review.challenge.refresh_from_db()
    assert under_review.challenge.status == ChallengeStatus.REVISION_REQUESTED


# --- navigation -------------------------------------------------------------------


def test_navbar_shows_review_entries_by_role(client, under_review):
    calls, mine = reverse("reviews:calls"), reverse("reviews:mine")
    chair_html = page_html(client, under_review.chair, "home")
    assert calls in chair_html
    assert mine not in chair_html
    reviewer_html = page_html(client, under_review.tech1, "home")
    assert mine in reviewer_html
    assert calls not in reviewer_html
    organizer_html = page_html(client, under_review.organizer, "home")
    assert calls not in organizer_html
    assert mine not in organizer_html


def test_review_page_puts_form_beside_proposal_with_section_navigation(
    client, under_review
):
    client.force_login(under_review.tech1)
    html = client.get(
        reverse("reviews:review", args=[under_review.challenge.pk])
    ).content.decode()
    assert 'id="section-nav"' in html
    assert 'class="review-pane"' in html
    assert html.index('id="section-nav"') < html.index('id="proposal-title"')
    # Every section of the proposal has an anchor the navigation links to.
    anchors = set(re.findall(r'class="mb-3 design-section" id="([^"]+)"', html))
    links = set(re.findall(r'href="#(sec-[^"]+)"', html))
    assert anchors
    assert anchors == links
    assert "js/sectionnav.js" in html


def test_assign_form_date_picker_starts_today(client, world):
    html = (
        signed_in(client, world.chair)
        .get(reverse("reviews:manage", args=[world.challenge.pk]))
        .text
    )
    assert f'min="{dt.date.today().isoformat()}"' in html


def test_review_page_shows_the_reviewed_revision_not_the_organizers_new_edits(
    client, under_review
):
    """While a revision is prepared the live rows change; the reviewer's page
    keeps showing revision 1 as it was reviewed, until it is resubmitted."""
    request_revision(under_review)
    registry_services.answer_parameter(
        challenge=under_review.challenge,
        task=under_review.challenge.tasks.get(),
        number=48,
        value="Half-written new rule",
        actor=under_review.organizer,
    )
    html = page_html(
        client, under_review.tech1, "reviews:review", under_review.challenge.pk
    )
    assert "Half-written new rule" not in html
    assert "revision 1" in html
    services.resubmit_challenge(
        challenge=under_review.challenge, actor=under_review.organizer, response="Ok."
    )
    html = page_html(
        client, under_review.tech1, "reviews:review", under_review.challenge.pk
    )
    assert "Half-written new rule" in html
    assert "revision 2" in html


def test_frozen_rendering_of_an_unchanged_design_equals_the_live_one(under_review):
    from registry.overview import frozen_parts, proposal_parts
    from registry.selectors import completeness_of

    challenge = under_review.challenge

    def shown(parts):
        return [
            (
                part.task.pk if part.task else None,
                section.group,
                tally,
                [(r.parameter.number, r.text, r.not_applicable, r.url) for r in rows],
            )
            for part in parts
            for section, _, rows, tally in part.sections
        ]

    live = shown(proposal_parts(challenge, completeness_of(challenge)))
    frozen = shown(frozen_parts(challenge, selectors.reviewed_design(challenge)))
    assert frozen == live
    assert any(rows for *_, rows in live)
