"""Acceptance: register an accepted design, amend its ranking scheme, approve it;
the public page shows version 2 with the change highlighted (and post hoc when
results existed before the approval)."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from registry import services
from registry.models import Registration
from registry.schemes import set_task_scheme
from tests.browser.helpers import sign_in
from tests.factories import (
    CallFactory,
    ChallengeFactory,
    ResultsVersionFactory,
    TaskFactory,
    UserFactory,
)
from tests.registry.helpers import fill_proposal
from tests.schemes import msd_scheme

pytestmark = pytest.mark.django_db(transaction=True)

SCHEME = msd_scheme(without=("ties", "targets"))
User = get_user_model()


def accepted_challenge():
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="carla")
    call.chairs.add(chair)
    olga = UserFactory(username="olga")
    challenge = ChallengeFactory(call=call, owner=olga, name="Decathlon 2027")
    task = TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, olga)
    set_task_scheme(task=task, scheme=SCHEME, actor=olga)
    for status in ("submitted", "under_review", "accepted"):
        services.set_challenge_state(challenge, status, actor=chair)
    return challenge, task


def register_and_amend(page, *, results_before_approval: bool):
    challenge, task = accepted_challenge()

    # the chair registers the accepted proposal from its overview
    sign_in(page, "carla")
    page.goto(f"/proposals/{challenge.pk}/")
    page.click("#register-proposal")
    page.wait_for_url(f"**/proposals/{challenge.pk}/register/")
    assert page.locator("#next-identifier").inner_text() == "miccai-2027-001"
    page.click("#register-confirm")
    page.wait_for_url("**/registry/miccai-2027-001/")
    assert page.locator("#shown-version").inner_text() == "version 1 (latest)"
    registration = Registration.objects.get()
    assert page.locator("#shown-sha").inner_text() == (
        registration.versions.get().sha256
    )

    # an organizer proposes to adjust the p-values with Holm
    sign_in(page, "olga")
    page.goto("/registry/miccai-2027-001/")
    page.click("#propose-amendment")
    page.wait_for_url("**/amendments/new/")
    page.fill("textarea[name=justification]", "Holm controls the error over all pairs.")
    page.check(f"#id_scheme-{task.pk}-change")
    page.select_option(f"select[name='scheme-{task.pk}-test_p_adjust']", "holm")
    page.click("#submit-amendment")
    page.wait_for_url("**/registry/miccai-2027-001/amendments/")
    assert page.locator("[data-status=pending]").count() == 1

    if results_before_approval:
        ResultsVersionFactory(
            registration=registration,
            content="task,case,algorithm,metric,value\nBrain,c1,A1,DSC,0.9\n",
        )

    # the chair is told: an e-mail, and the amendment on the page she lands on
    # after signing in (her call's dashboard), one click from its changes
    [sent] = [m for m in mail.outbox if "Amendment to decide" in m.subject]
    assert sent.to == [User.objects.get(username="carla").email]
    sign_in(page, "carla")
    assert page.url.endswith(f"/reviews/calls/{challenge.call.pk}/")
    waiting = page.locator("#amendments")
    assert "Holm controls the error over all pairs." in waiting.inner_text()
    waiting.get_by_role("link", name="Decathlon 2027").click()
    page.wait_for_url("**/registry/miccai-2027-001/amendments/")
    change = page.locator("[data-amendment] [data-field='test.p_adjust']")
    assert change.locator("del").inner_text() == "None"
    assert change.locator("ins").inner_text() == "Holm"
    page.fill("textarea[name=note]", "Agreed.")
    page.get_by_role("button", name="Approve").click()
    page.wait_for_url("**/registry/miccai-2027-001/")

    # the public page (anonymous) shows version 2 with the change highlighted
    page.context.clear_cookies()
    page.goto("/registry/miccai-2027-001/")
    assert page.locator("#shown-version").inner_text() == "version 2 (latest)"
    changes = page.locator("#changes")
    assert changes.locator("[data-field='test.p_adjust'] ins").inner_text() == "Holm"
    assert "Holm controls the error over all pairs." in changes.inner_text()
    prose = changes.locator("[data-change='Brain|50'] ins").first
    assert re.search(r"Holm", prose.inner_text())
    assert page.locator("[data-scheme=Brain] [data-changed=scheme]").is_visible()
    assert page.locator("[data-versions], [data-version]").count() == 2
    return page


def test_chair_registers_organizer_amends_scheme_chair_approves(page):
    register_and_amend(page, results_before_approval=False)
    assert page.locator("#post-hoc-badge").count() == 0
    assert page.locator("[data-post-hoc]").count() == 0


def test_amendment_approved_after_results_is_marked_post_hoc(page):
    register_and_amend(page, results_before_approval=True)
    assert page.locator("#post-hoc-badge").is_visible()
    assert page.locator("[data-post-hoc='2']").is_visible()
    assert page.locator("[data-post-hoc='1']").count() == 0
    # the mark is permanent: it stays on version 2 when viewing it later
    page.goto("/registry/?q=decathlon")
    assert page.locator(
        "[data-registration='miccai-2027-001'] .badge"
    ).inner_text() == ("post hoc")
