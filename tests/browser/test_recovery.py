"""What people see when something went wrong: a failed run with its reason and
a Retry button; a section save refused because someone else saved first."""

import os

import pytest

from analysis.models import AnalysisRun, AnalysisStatus
from registry import services
from tests.browser.test_analysis import (
    committed_results,
    registered_challenge,
    sign_in,
)
from tests.factories import CallFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = os.environ.get("SCREENSHOTS_DIR")


def shoot(page, name: str) -> None:
    if SHOTS:
        for width, height in ((1366, 768), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=f"{SHOTS}/{name}-{width}.png", full_page=True)
        page.set_viewport_size({"width": 1366, "height": 768})


def test_a_failed_run_shows_its_reason_and_retry_finishes_it(page):
    registration = registered_challenge()
    olga = registration.challenge.owner
    results = committed_results(registration)
    schemes = {t.name: t.scheme for t in registration.challenge.tasks.all()}
    run = AnalysisRun.objects.create(
        results=results,
        scheme=schemes,
        seed=7,
        requested_by=olga,
        status=AnalysisStatus.FAILED,
        error="The disk is full (no space left on device) while writing the "
        "analysis files; nothing partial was kept. Free space, then retry.",
    )
    sign_in(page, "olga")
    page.goto(f"/analyses/{run.pk}/")
    alert = page.locator("#run-error")
    assert "The disk is full" in alert.inner_text()
    shoot(page, "failed-run")

    page.get_by_role("button", name="Retry the analysis").click()
    page.wait_for_url(f"**/analyses/{run.pk}/")
    run.refresh_from_db()
    assert run.status == "done"
    assert "is queued again" in page.content()


def test_a_section_saved_by_someone_else_first_is_refused_with_their_change(
    browser, live_server
):
    olga = UserFactory(username="olga")
    carla = UserFactory(username="carla")
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    challenge = services.create_challenge(owner=olga, call=call, name="Decathlon")
    challenge.co_organizers.add(carla)
    url = f"/proposals/{challenge.pk}/edit/challenge-organization/"
    pages = []
    for user in ("olga", "carla"):
        context = browser.new_context(base_url=live_server.url)
        page = context.new_page()
        page.set_default_timeout(10_000)
        sign_in(page, user)
        page.goto(url)
        pages.append(page)
    olga_page, carla_page = pages

    carla_page.fill("[name=p05]", "Carla's venue")
    carla_page.get_by_role("button", name="Save", exact=True).click()
    carla_page.wait_for_load_state("load")
    olga_page.fill("[name=p05]", "Olga's venue")
    olga_page.get_by_role("button", name="Save", exact=True).click()
    olga_page.wait_for_load_state("load")

    conflict = olga_page.locator("#edit-conflict")
    text = conflict.inner_text()
    assert "changed by carla" in text
    assert "Carla's venue" in text
    assert olga_page.input_value("[name=p05]") == "Olga's venue"  # input kept
    shoot(olga_page, "edit-conflict")
    assert challenge.answers.get(number=5, task=None).value == "Carla's venue"
    for page in pages:
        page.context.close()
