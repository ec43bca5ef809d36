"""The public record's files are downloads, and its JSON link gives JSON
(issue 28): CSL-JSON, DataCite and BibTeX are saved, not opened as raw text
where a page is expected; the quality profile's link is not the REST
framework's browsable page."""

import lxml.html
import pytest

from .conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(client, call, organizer, chair):
    registration = registered(
        call, organizer, chair, name="Decathlon", scheme=CLEAN_SCHEME
    )
    html = client.get(f"/registry/{registration.identifier}/").content
    return lxml.html.fromstring(html)


@pytest.mark.parametrize("link", ["cite-datacite", "cite-csl", "cite-bibtex"])
def test_citation_links_download_a_file(client, page, link):
    [anchor] = page.xpath(f"//a[@id='{link}']")
    assert anchor.get("download") is not None
    response = client.get(anchor.get("href"))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment; filename=")


def test_quality_json_link_gives_json_to_a_browser(client, page):
    [anchor] = page.xpath("//a[@id='quality-json']")
    # What a browser sends for a link it follows: HTML first.
    response = client.get(anchor.get("href"), HTTP_ACCEPT="text/html,*/*;q=0.8")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["criteria"]
