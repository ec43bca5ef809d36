"""Acceptance: the whole review cycle in the browser, each person in their own
browser context — assignment (one conflicted attempt refused), three reviews,
major revision, revise and resubmit, a reviewer reads the diff and reviews
again, acceptance; the organizer never sees a reviewer's name."""

import re

import pytest

from accounts.models import Role
from registry import services as registry_services
from registry.models import Challenge
from tests.browser.helpers import sign_in as sign_in_page
from tests.factories import CallFactory, UserFactory
from tests.registry.helpers import fill_proposal

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pw-for-tests-1"
REVIEWERS = {"revtina": "technical", "revtom": "technical", "revclara": "clinical"}
NEW_RULE = "Missing results are set to the worst metric value before ranking."


def sign_in(browser, live_server, username):
    """A new browser context (own cookies) signed in as `username`."""
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    sign_in_page(page, username)
    return page


def submit_review(page, challenge, *, recommendation, clinical=False):
    page.goto(f"/reviews/proposals/{challenge.pk}/review/")
    page.check(f"input[name=recommendation][value={recommendation}]")
    page.check("input[name=confidence][value='4']")
    page.fill("textarea[name=comments]", "The ranking needs a missing-data rule.")
    page.select_option("select[name=section_5_score]", "2")
    page.fill("textarea[name=section_5_comment]", "Say what happens to N/A.")
    if clinical:
        page.select_option("select[name=clinical_relevance]", "4")
    page.get_by_role("button", name="Submit review").click()
    page.wait_for_selector("#review-done")


def assign(page, username, role):
    page.fill("#id_assign-reviewer", username)
    page.select_option("#id_assign-role", role)
    page.get_by_role("button", name="Assign reviewer").click()


def test_review_cycle_in_the_browser(page, browser, live_server):
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="chairwoman", profile__role=Role.CHAIR)
    call.chairs.add(chair)
    organizer = UserFactory(username="olga", profile__institution="Org Institute")
    for username, role in REVIEWERS.items():
        UserFactory(
            username=username,
            profile__role=(
                Role.CLINICAL_REVIEWER if role == "clinical" else Role.REVIEWER
            ),
        )
    UserFactory(
        username="revcarl",
        profile__role=Role.REVIEWER,
        profile__institution="Org Institute",
    )
    challenge = registry_services.create_challenge(
        owner=organizer, call=call, name="Decathlon 2027"
    )
    task = registry_services.add_task(
        challenge=challenge, name="Brain", actor=organizer
    )
    fill_proposal(challenge, organizer)
    registry_services.submit_challenge(challenge=challenge, actor=organizer)

    # The chair finds the proposal through the navbar and the call overview.
    sign_in_page(page, "chairwoman")
    page.locator("#nav").get_by_role("link", name="Calls").click()
    page.get_by_role("link", name="MICCAI 2027").click()
    page.get_by_role("link", name="Decathlon 2027").click()
    page.wait_for_selector("#assign-form")

    # A conflicted reviewer is refused with the reason; nothing changes.
    assign(page, "revcarl", "technical")
    page.wait_for_selector("#refused")
    assert "affiliated with 'Org Institute'" in page.inner_text("#refused")
    assert page.locator("[data-assignment]").count() == 0

    for username, role in REVIEWERS.items():
        assign(page, username, role)
        page.wait_for_selector(f"[data-assignment={username}]")
    assert page.locator("#status [data-status]").get_attribute("data-status") == (
        "under_review"
    )
    # Every reviewer's Unassign button is whole beside the suggestions (1366 px).
    for button in page.locator("[data-unassign]").all():
        box = button.bounding_box()
        frame = button.locator(
            "xpath=ancestor::div[contains(@class, 'table-responsive')]"
        )
        outer = frame.bounding_box()
        assert box["x"] + box["width"] <= outer["x"] + outer["width"]

    # Three reviewers submit their reviews through the form.
    reviewer_pages = {}
    for username, role in REVIEWERS.items():
        reviewer = sign_in(browser, live_server, username)
        reviewer.get_by_role("link", name="My reviews").click()
        # what waits for the reviewer comes first, one click from the review
        reviewer.locator("#waiting").get_by_role(
            "link", name="Review “Decathlon 2027”"
        ).click()
        reviewer.wait_for_selector("#design-checks")
        submit_review(
            reviewer,
            challenge,
            recommendation="major_revision",
            clinical=role == "clinical",
        )
        reviewer_pages[username] = reviewer
    assert reviewer_pages["revclara"].locator("article.review").count() == 3

    # The chair requests a major revision with the prefilled anonymised letter.
    page.reload()
    letter = page.input_value("#id_decision-letter")
    assert "Reviewer 1 (technical reviewer): Major revision" in letter
    assert "revtina" not in letter
    page.check("input[name=decision-decision][value=revision]")
    page.get_by_role("button", name="Send decision").click()
    page.wait_for_selector(".alert-success")

    # The organizer revises one parameter in the editor and resubmits.
    olga = sign_in(browser, live_server, "olga")
    olga.goto(f"/proposals/{challenge.pk}/")
    olga.wait_for_selector("#revise-and-resubmit")
    olga.goto(f"/proposals/{challenge.pk}/tasks/{task.pk}/edit/assessment-method/")
    olga.fill("#id_p48", NEW_RULE)
    olga.get_by_role("button", name="Save", exact=True).click()
    olga.wait_for_selector(".alert-success")
    olga.goto(f"/proposals/{challenge.pk}/")
    olga.get_by_role("link", name="Resubmit with a response letter").click()
    olga.fill("#id_response", "We added a missing-data rule to the ranking.")
    olga.get_by_role("button", name="Resubmit revision").click()
    olga.wait_for_selector(".alert-success")
    challenge.refresh_from_db()
    assert (challenge.status, challenge.revision) == ("under_review", 2)

    # A reviewer sees exactly the changed parameter, highlighted, and reviews again.
    tina = reviewer_pages["revtina"]
    tina.goto(f"/reviews/proposals/{challenge.pk}/review/")
    changed = tina.locator("tr.changed-parameter")
    assert changed.count() == 1
    assert changed.get_attribute("data-parameter") == "48"
    assert NEW_RULE in changed.locator("ins.diff-ins").inner_text()
    assert "We added a missing-data rule" in tina.inner_text("#response-letter")
    submit_review(tina, challenge, recommendation="accept")

    # The chair accepts on one review of revision 2 of the three the call
    # requires: a warning the chair confirms.
    page.reload()
    assert "Only 1 of the 3 reviews" in page.inner_text("#decision-warnings")
    page.check("input[name=decision-decision][value=accept]")
    page.check("#id_decision-confirm")
    page.get_by_role("button", name="Send decision").click()
    page.wait_for_selector(".alert-success")

    # The organizer sees "Accepted" and no reviewer's name on their pages.
    olga.goto(f"/proposals/{challenge.pk}/")
    assert olga.inner_text("#status") == "Accepted"
    assert olga.locator("#review-status article.review").count() == 4
    for path in (f"/proposals/{challenge.pk}/", "/proposals/"):
        olga.goto(path)
        text = olga.content()
        for name in [*REVIEWERS, "revcarl"]:
            assert re.search(rf"\b{name}\b", text) is None, (path, name)
    assert Challenge.objects.get(pk=challenge.pk).status == "accepted"
    for other in [olga, *reviewer_pages.values()]:
        other.context.close()
