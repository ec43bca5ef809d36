"""The review pages' wide tables stack into labelled cards on phones: every
cell's data-label is its column's header (tests/stacked_tables.py)."""

import lxml.html
import pytest
from django.urls import reverse

from registry.schemes import set_task_scheme
from reviews import services
from tests.reviews.conftest import decide_revision, submit_review
from tests.schemes import mean_scheme
from tests.stacked_tables import (
    ROW_HEADER,
    assert_cells_labelled_by_headers,
    stacked_table_labels,
)

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


def test_review_diff_cells_are_labelled_by_their_headers(client, under_review):
    # Revision 2 ranks the task by a scheme: its prose changed (a row per
    # parameter, headed by the parameter) and the scheme (a nested table of
    # its fields).
    submit_review(under_review.challenge, under_review.tech1)
    decide_revision(under_review)
    task = under_review.challenge.tasks.get()
    set_task_scheme(task=task, scheme=mean_scheme(), actor=under_review.organizer)
    services.resubmit_challenge(
        challenge=under_review.challenge,
        actor=under_review.organizer,
        response="Ranked.",
    )
    html = page(client, under_review.tech1, "reviews:review", under_review.challenge.pk)
    assert_cells_labelled_by_headers(html, tables=2)
    (diff_headers, parameters), (field_headers, fields) = stacked_table_labels(html)
    assert diff_headers == ["Parameter", "Revision 1", "Revision 2"]
    assert parameters
    assert {tuple(row) for row in parameters} == {
        (ROW_HEADER, "Revision 1", "Revision 2")
    }
    assert field_headers == ["Field", "Revision 1", "Revision 2"]
    assert fields
