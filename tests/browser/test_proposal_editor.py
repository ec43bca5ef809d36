"""Acceptance: an organizer designs a proposal in the browser and submits it."""

import re

import pytest

from registry.models import Challenge
from tests.browser.helpers import phone_sized, sign_in
from tests.factories import CallFactory, UserFactory
from tests.registry.helpers import fill_proposal

pytestmark = pytest.mark.django_db(transaction=True)


def percent(page, selector: str) -> float:
    return float(page.locator(selector).get_attribute("data-percent"))


def test_organizer_designs_and_submits_a_proposal(page):
    olga = UserFactory(username="olga")
    CallFactory(slug="miccai-2027", title="MICCAI 2027")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(  # JavaScript errors; HTTP statuses (400 on a refused form) aside
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )

    # sign in and create the proposal with two tasks
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "olga")
    page.fill("input[name=password]", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/proposals/")
    page.get_by_role("link", name="New proposal").first.click()
    page.select_option("select[name=call]", label="MICCAI 2027")
    page.fill("input[name=name]", "Decathlon 2027")
    page.click("input[type=submit][value='Create proposal']")
    page.wait_for_url(re.compile(r"/proposals/\d+/$"))
    for name in ("Brain", "Liver"):
        page.fill("#new-task-name", name)
        page.get_by_role("button", name="Add task").click()
        page.wait_for_selector(f"#tasks input[value='{name}']")
    challenge = Challenge.objects.get(name="Decathlon 2027")
    assert [t.name for t in challenge.tasks.all()] == ["Brain", "Liver"]

    # challenge organization: the meters move while typing, and after saving
    page.get_by_role("link", name="Edit design").click()
    page.wait_for_selector("#section-form")
    section_before = percent(page, "#section-meter")
    overall_before = percent(page, "#overall-meter")
    page.fill("#id_p02", "https://decathlon.example.org")
    page.fill("#id_p03", "German Cancer Research Center\nInria")
    page.fill("#id_p03-name", "Olga Organizer")
    page.fill("#id_p03-email", "olga@example.org")
    page.select_option("#id_p04", "open call")
    assert percent(page, "#section-meter") > section_before
    assert percent(page, "#overall-meter") > overall_before
    page.locator("#p06 [data-add-row]").click()
    assert page.locator("#p06 tr[data-row]").count() == 3
    page.locator("#p06 input[name=p06-date]").first.fill("2027-04-01")
    page.locator("#p06 input[name=p06-event]").first.fill("Training data release")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_selector(".alert-success")
    overall_saved = percent(page, "#overall-meter")
    assert overall_saved > overall_before

    # an invalid value: nothing saved, the typed text stays, the error is shown
    page.fill("#id_p02", "not a url")
    page.fill("#id_p05", "Grand Challenge")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_selector("[data-error-for=p02]")
    assert page.input_value("#id_p02") == "not a url"
    assert page.input_value("#id_p05") == "Grand Challenge"
    page.fill("#id_p02", "https://decathlon.example.org")

    # save and move on to the next section, then to the first task's mission
    page.get_by_role("button", name="Save and next section").click()
    page.wait_for_selector("h1:has-text('Participation conditions')")
    page.select_option("#id_p09", "fully automatic")
    page.get_by_role("button", name="Save and next section").click()
    page.wait_for_selector("h1:has-text('Mission of the challenge')")
    assert "Brain" in page.locator("h1").inner_text()
    page.fill("#id_p18", "Adults with glioma.")
    api = re.compile(r"/api/v1/challenges/\d+/completeness/$")
    with page.expect_response(api) as response:
        page.get_by_role("button", name="Save", exact=True).click()
    assert response.value.ok
    page.wait_for_selector(".alert-success")
    assert percent(page, "#overall-meter") > overall_saved

    # submitting is refused, with the missing parameters linked to their fields
    page.get_by_role("link", name="Decathlon 2027").click()
    page.click("#submit-proposal")
    missing = page.locator("#missing-required")
    missing.wait_for()
    text = missing.inner_text()
    assert "Metric(s)" in text
    assert "Ethics approval" in text
    assert "Challenge website" not in text
    metrics = missing.get_by_role("link", name="44. Metric(s)").first
    assert re.search(
        r"/tasks/\d+/edit/assessment-method/#p44$", metrics.get_attribute("href")
    )
    missing.get_by_role("link", name="7. Ethics approval").click()
    page.wait_for_url(re.compile(r"/edit/challenge-organization/#p07$"))
    assert page.locator("#p07").is_visible()

    # complete the rest through the services, then submit
    fill_proposal(challenge, olga, skip={2, 3, 4, 9, 18})
    page.goto(f"/proposals/{challenge.pk}/")
    page.click("#submit-proposal")
    page.wait_for_selector(".alert-success")
    assert page.locator("#status").inner_text() == "Submitted"
    challenge.refresh_from_db()
    assert challenge.status == "submitted"
    assert errors == []


def test_metric_name_is_wide_enough_to_type_on_a_phone(page):
    olga = UserFactory(username="olga")
    challenge = Challenge.objects.create(
        call=CallFactory(slug="miccai-2027"), owner=olga, name="Decathlon"
    )
    task = challenge.tasks.create(name="Brain", position=1)
    sign_in(page, "olga")
    page.goto(f"/proposals/{challenge.pk}/tasks/{task.pk}/edit/assessment-method/")
    name = page.locator("input[name$='-name'][aria-label='Name of metric 1']")
    with phone_sized(page):
        # A metric is a card on a phone: its name takes the card's width.
        assert name.bounding_box()["width"] > 250
        page.locator("#p44 [data-add-row]").click()
        added = page.locator("#p44 input[name$='-name']").last
        assert added.bounding_box()["width"] > 250
        overflow = page.evaluate("document.documentElement.scrollWidth - innerWidth")
        assert overflow <= 0
