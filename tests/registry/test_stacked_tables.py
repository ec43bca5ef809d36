"""The registry's wide tables stack into labelled cards on phones: every cell's
data-label is its column's header (tests/stacked_tables.py)."""

import pytest
from django.urls import reverse

from registry.registration import register_challenge
from tests.stacked_tables import assert_cells_labelled_by_headers

pytestmark = pytest.mark.django_db


def test_my_proposals_cells_are_labelled_by_their_headers(client, organizer, accepted):
    client.force_login(organizer)
    html = client.get(reverse("registry:dashboard")).text
    assert_cells_labelled_by_headers(html)


def test_registry_list_cells_are_labelled_by_their_headers(client, accepted, chair):
    register_challenge(challenge=accepted, actor=chair)
    html = client.get(reverse("registry:public-list")).text
    assert_cells_labelled_by_headers(html)


def test_import_page_export_cells_are_labelled_by_their_headers(
    client, organizer, accepted
):
    client.force_login(organizer)
    html = client.get(reverse("registry:import")).text
    assert_cells_labelled_by_headers(html)
