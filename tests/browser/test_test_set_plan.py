"""Acceptance (issue 29): an organizer plans a task's test set on its page and
attaches the plan; a reviewer sees it beside parameter 38; the registered
version and its design PDF contain it."""

import io
import os

import pytest
from pypdf import PdfReader

from accounts.models import Role
from registry import services
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from reviews import services as review_services
from tests.browser.helpers import assert_on_screen, phone_sized, sign_in
from tests.factories import CallFactory, ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal
from tests.schemes import msd_scheme

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = os.environ.get("PLAN_SCREENSHOTS")  # a folder: save the pages as PNG


def _shot(page, name: str, *, full_page: bool = True) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=full_page)


def test_plan_is_attached_seen_by_a_reviewer_and_registered(page):
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="carla", profile__role=Role.CHAIR)
    call.chairs.add(chair)
    olga = UserFactory(username="olga")
    tina = UserFactory(username="tina", profile__role=Role.REVIEWER)
    challenge = ChallengeFactory(call=call, owner=olga, name="Decathlon 2027")
    task = TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, olga)  # parameter 38: 100 test cases
    set_task_scheme(task=task, scheme=msd_scheme(), actor=olga)

    # the organizer opens the planner from the overview and attaches a plan
    sign_in(page, "olga")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"/proposals/{challenge.pk}/")
    page.click(f'[data-plan-link="{task.pk}"]')
    page.wait_for_url(f"**/tasks/{task.pk}/plan/")
    page.fill("#id_algorithms", "4")
    page.fill("#id_gap", "0.03")
    page.fill("#id_n_grid", "10, 30, 100, 200")
    page.fill("#id_simulations", "100")
    page.click("#plan-compute")
    page.wait_for_selector("#plan-computed [data-plan-n='100']")
    _shot(page, "plan-page-1366")
    with phone_sized(page):
        _shot(page, "plan-page-390")
        assert_on_screen(page.locator("#plan-computed img"))
    page.click("#plan-attach")
    page.wait_for_selector("#plan-attached [data-test-set-plan='Brain']")
    task.refresh_from_db()
    assert [r["n"] for r in task.test_set_plan["n"]] == [10, 30, 100, 200]

    # the same plan in the background: a progress page, then the same plan
    page.click("#plan-background")
    page.wait_for_url("**/plan-runs/*/")
    page.wait_for_selector("#analysis-body [data-test-set-plan='Brain']")
    assert page.locator("#progress-label").inner_text() == "100 %"
    _shot(page, "plan-run-1366")

    # submitted and under review: the reviewer sees it beside parameter 38
    services.submit_challenge(challenge=challenge, actor=olga)
    review_services.assign_reviewer(
        challenge=challenge, reviewer=tina, role="technical", actor=chair
    )
    sign_in(page, "tina")
    page.goto(f"/reviews/proposals/{challenge.pk}/review/")
    row = page.locator(f"#t{task.pk}-p38")
    plan = page.locator("[data-test-set-plan='Brain']")
    assert row.is_visible()
    assert plan.is_visible()
    assert row.bounding_box()["y"] < plan.bounding_box()["y"]
    assert "With the chosen 100 test cases" in plan.inner_text()
    row.scroll_into_view_if_needed()
    _shot(page, "review-page-1366", full_page=False)
    with phone_sized(page):
        plan.scroll_into_view_if_needed()
        _shot(page, "review-page-390", full_page=False)

    # registered: the public version and its design PDF contain the plan
    for status in ("under_review", "accepted"):
        if challenge.status != status:
            services.set_challenge_state(challenge, status, actor=chair)
        challenge.refresh_from_db()
    registration = register_challenge(challenge=challenge, actor=chair)
    page.goto(f"/registry/{registration.identifier}/")
    plan = page.locator("[data-test-set-plan='Brain']")
    assert plan.count() == 1  # in the task's section, folded on a long record
    page.locator("[data-details-all='open']").first.click()
    assert plan.is_visible()
    pdf = page.request.get(f"/registry/{registration.identifier}/v1/design.pdf")
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.body())).pages)
    assert "Appendix: test-set plans" in text
    assert "100 (chosen)" in text
    if SHOTS:
        with open(os.path.join(SHOTS, "design.pdf"), "wb") as fh:
            fh.write(pdf.body())
