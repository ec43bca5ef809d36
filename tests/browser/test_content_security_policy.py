"""The pages work under the Content-Security-Policy: the browser reports no
violation (inline script or style, foreign origin) on the main pages."""

import pytest

from tests.browser.helpers import csp_violations
from tests.factories import CallFactory, ChallengeFactory, TaskFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_main_pages_raise_no_csp_violation(page):
    organizer = UserFactory(username="olga")
    challenge = ChallengeFactory(owner=organizer, call=CallFactory())
    TaskFactory(challenge=challenge, name="Brain")
    violations = csp_violations(page)
    page.goto("/")
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "olga")
    page.fill("input[name=password]", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/proposals/")
    for url in (f"/proposals/{challenge.pk}/", f"/proposals/{challenge.pk}/edit/"):
        response = page.goto(url)
        assert response.status == 200, url
        assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    assert violations == []
