"""The analysis page's table downloads are for people: plain-language headers
from `ranking.vocabulary` (issue 28). The API's CSV of the same table keeps
the column names programs read."""

import csv
import io
import re

import lxml.html
import pytest

from analysis import services
from analysis.ingest import commit_results, parse_upload
from tests.analysis.django.conftest import results_csv

pytestmark = pytest.mark.django_db
CODE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")  # a snake_case column name


@pytest.fixture
def run(client, organizer, registration):
    results = commit_results(
        registration=registration,
        table=parse_upload("results.csv", results_csv(n_cases=30)),
        original_name="results.csv",
        actor=organizer,
    )
    client.force_login(organizer)
    return services.start_analysis(results=results, actor=organizer)


def header(text: str) -> list[str]:
    return next(csv.reader(io.StringIO(text)))


def download_links(client, run) -> dict[str, str]:
    tree = lxml.html.fromstring(client.get(f"/analyses/{run.pk}/").text)
    return {
        a.text_content().strip(): a.get("href")
        for a in tree.xpath("//a[contains(@href, '/tables/')]")
    }


def test_the_page_offers_every_table_with_plain_headers(client, run):
    links = download_links(client, run)
    assert sorted(links) == [
        "Consensus ranking (CSV)",
        "Rankings (CSV)",
        "Summary statistics (CSV)",
    ]
    for url in links.values():
        response = client.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        columns = header(response.text)
        assert [c for c in columns if CODE.match(c)] == []


def test_the_rankings_download_names_each_column_in_words(client, run):
    text = client.get(f"/analyses/{run.pk}/tables/rankings.csv").text
    assert header(text) == [
        "Ranking",
        "Task",
        "Algorithm",
        "Rank",
        "Score",
        "Median rank over bootstrap samples",
        "Bootstrap rank, 2.5th percentile",
        "Bootstrap rank, 97.5th percentile",
        "Rank interval (Bootstrap percentile interval), lower",
        "Rank interval (Bootstrap percentile interval), upper",
        "Share of bootstrap samples with the same winner",
        "Kendall's tau to the full ranking, median",
        "Kendall's tau, 2.5th percentile",
        "Kendall's tau, 97.5th percentile",
    ]
    api = client.get(f"/api/v1/analyses/{run.pk}/tables/?table=rankings").text
    assert len(text.splitlines()) == len(api.splitlines())
    assert text.splitlines()[1:] == api.splitlines()[1:]  # same rows
    assert header(api)[:3] == ["ranking", "task", "algorithm"]  # codes kept


def test_an_unknown_table_is_not_found(client, run):
    assert client.get(f"/analyses/{run.pk}/tables/secrets.csv").status_code == 404


def test_another_users_table_is_not_served(client, run, django_user_model):
    client.force_login(django_user_model.objects.create_user("stranger"))
    response = client.get(f"/analyses/{run.pk}/tables/rankings.csv")
    assert response.status_code in (403, 404)
