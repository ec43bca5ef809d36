"""The analysis page's wide tables stack into labelled cards on phones: every
cell's data-label is its column's header (tests/stacked_tables.py), and each
ranking card is titled by the rank and the algorithm."""

import lxml.html
import pytest

from analysis import services
from analysis.ingest import commit_results, parse_upload
from tests.analysis.django.conftest import results_csv
from tests.stacked_tables import assert_cells_labelled_by_headers

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_page(client, organizer, registration) -> str:
    """The page of a finished registered analysis: 30 cases where 100 are
    registered (a deviation), two tasks ranked with bootstrap rank intervals."""
    results = commit_results(
        registration=registration,
        table=parse_upload("results.csv", results_csv(n_cases=30)),
        original_name="results.csv",
        actor=organizer,
    )
    run = services.start_analysis(results=results, actor=organizer)
    client.force_login(organizer)
    return client.get(f"/analyses/{run.pk}/").text


def test_analysis_tables_cells_are_labelled_by_their_headers(run_page):
    # Deviations, then per task (Brain, Heart): ranking, bootstrap ranks,
    # robustness audit.
    assert_cells_labelled_by_headers(run_page, tables=7)


def test_ranking_cards_are_titled_by_rank_and_algorithm(run_page):
    tree = lxml.html.fromstring(run_page)
    for table in tree.find_class("ranking-table"):
        assert "stack-compact" in table.classes
        rows = table.xpath("./tbody/tr")
        assert rows
        for tr in rows:
            titles = tr.xpath(
                "./td[contains(concat(' ', @class, ' '), ' stack-title ')]"
            )
            assert [td.get("data-label") for td in titles] == ["Rank", "Algorithm"]


def test_interval_methods_are_explained_where_the_header_is_hidden(run_page):
    # On phones the header (with each method's meaning) is hidden: the list
    # above the cards says what each method means.
    tree = lxml.html.fromstring(run_page)
    meanings = tree.xpath("//ul[@data-method-meanings]/li")
    assert meanings
    assert all(li.text_content().startswith("bootstrap: 2.5–97.5 %") for li in meanings)
