"""A reviewer of a revision sees the ranking scheme's changes field by field
(the same structured differ amendments use), next to the prose it rewrote."""

import os

import pytest

from accounts.models import Role
from registry import services as registry_services
from registry.schemes import set_task_scheme
from reviews import services
from tests.browser.helpers import assert_on_screen, phone_sized
from tests.browser.test_review_cycle import sign_in
from tests.factories import CallFactory, UserFactory
from tests.registry.helpers import fill_proposal
from tests.reviews.conftest import submit_review
from tests.schemes import mean_scheme

pytestmark = pytest.mark.django_db(transaction=True)

FIRST = mean_scheme()
REVISED = {**FIRST, "aggregate": "median", "ties": "max"}
SCREENSHOTS = os.environ.get("SCREENSHOT_DIR", "")


def revision_with_a_new_scheme():
    """Revision 1 reviewed by "revtina" with scheme FIRST; revision 2 (REVISED)
    resubmitted and under review again."""
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="chairwoman", profile__role=Role.CHAIR)
    call.chairs.add(chair)
    organizer = UserFactory(username="olga")
    reviewer = UserFactory(username="revtina", profile__role=Role.REVIEWER)
    challenge = registry_services.create_challenge(
        owner=organizer, call=call, name="Decathlon"
    )
    task = registry_services.add_task(
        challenge=challenge, name="Brain", actor=organizer
    )
    fill_proposal(challenge, organizer)
    set_task_scheme(task=task, scheme=FIRST, actor=organizer)
    registry_services.submit_challenge(challenge=challenge, actor=organizer)
    services.assign_reviewer(
        challenge=challenge, reviewer=reviewer, role="technical", actor=chair
    )
    submit_review(challenge, reviewer, "minor_revision", comments="Rank by the median.")
    services.decide(
        challenge=challenge, actor=chair, decision="revision", letter="x", confirm=True
    )
    set_task_scheme(task=task, scheme=REVISED, actor=organizer)
    services.resubmit_challenge(
        challenge=challenge, actor=organizer, response="We rank by the median now."
    )
    return challenge


def test_reviewer_sees_the_scheme_diff_of_a_revision(browser, live_server):
    challenge = revision_with_a_new_scheme()
    page = sign_in(browser, live_server, "revtina")
    page.goto(f"/reviews/proposals/{challenge.pk}/review/")
    changes = page.locator("#changes")
    assert "Changes since revision 1" in changes.locator("h2").inner_text()

    scheme = changes.locator("tr.changed-scheme[data-task='Brain']")
    assert "Ranking scheme" in scheme.locator("th[scope=row]").inner_text()
    fields = scheme.locator("tr[data-field]")
    assert sorted(fields.evaluate_all("rows => rows.map(r => r.dataset.field)")) == [
        "aggregate",
        "ties",
    ]
    aggregate = scheme.locator("tr[data-field='aggregate']")
    assert aggregate.locator("del").inner_text() == "Mean"  # in words
    assert aggregate.locator("ins").inner_text() == "Median"

    # The prose rewritten from the scheme shows word by word beside it.
    prose = changes.locator("tr.changed-parameter[data-task='Brain']")
    assert prose.count() >= 1
    inserted = prose.locator("ins.diff-ins").all_inner_texts()
    assert any("median" in text.lower() for text in inserted)

    # On a phone each change is a card: both revisions of every row on screen.
    with phone_sized(page):
        assert_on_screen(changes.locator("#diff-table td"))

    if SCREENSHOTS:
        for width, height in ((1366, 768), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            changes.screenshot(path=f"{SCREENSHOTS}/review-scheme-diff-{width}.png")
