"""The review pages' wide tables stack into labelled cards on phones: every
cell's data-label is its column's header (tests/stacked_tables.py)."""

import lxml.html
import pytest
from django.urls import reverse

from tests.reviews.conftest import submit_review
from tests.stacked_tables import assert_cells_labelled_by_headers

pytestmark = pytest.mark.django_db


def page(client, user, name: str, *args) -> str:
    client.force_login(user)
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return response.text


def test_my_reviews_cells_are_labelled_by_their_headers(client, under_review):
    html = page(client, under_review.tech1, "reviews:mine")
    assert_cells_labelled_by_headers(html)


def test_my_reviews_leaves_the_action_cell_of_a_reviewed_row_empty(
    client, under_review
):
    # Empty, not blank: `td:empty` hides it on phones (no lone "Actions" label).
    submit_review(under_review.challenge, under_review.tech1)
    html = page(client, under_review.tech1, "reviews:mine")
    cell = lxml.html.fromstring(html).xpath(
        "//table[@id='my-reviews']//td[@data-label='Actions']"
    )
    assert [(c.text, len(c)) for c in cell] == [(None, 0)]


def test_call_overview_cells_are_labelled_by_their_headers(client, under_review):
    html = page(client, under_review.chair, "reviews:call", under_review.call.pk)
    assert_cells_labelled_by_headers(html)


def test_manage_page_reviewer_cells_are_labelled_by_their_headers(client, under_review):
    html = page(client, under_review.chair, "reviews:manage", under_review.challenge.pk)
    assert_cells_labelled_by_headers(html)
