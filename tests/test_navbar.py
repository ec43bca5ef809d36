"""The navigation bar links the Django admin for staff only."""

import pytest
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

ADMIN_LINK = f'href="{reverse("admin:index")}"'


def home_as(client, user=None) -> str:
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return response.text


def test_staff_navbar_links_the_admin(client):
    assert ADMIN_LINK in home_as(client, UserFactory(username="sam", is_staff=True))


@pytest.mark.parametrize("signed_in", [True, False])
def test_non_staff_navbar_has_no_admin_link(client, signed_in):
    user = UserFactory(username="olga") if signed_in else None
    assert ADMIN_LINK not in home_as(client, user)
