import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_organizer_signs_in_and_sees_dashboard(page):
    UserFactory(username="olga")
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "olga")
    page.fill("input[name=password]", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/proposals/")
    assert page.locator("h1").inner_text() == "My proposals"
