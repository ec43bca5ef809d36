"""What search engines read: schema.org JSON-LD on record pages, sitemap.xml
and robots.txt."""

import json
import re

import pytest
from lxml import etree

from .conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db
SITE = "https://registry.example.org"
TITLE = "Seg </script><script>alert(1)</script> & co"


@pytest.fixture
def registration(call, organizer, chair, settings):
    settings.SITE_URL = SITE
    organizer.first_name, organizer.last_name = "Olga", "Organa"
    organizer.save()
    return registered(call, organizer, chair, name=TITLE, scheme=CLEAN_SCHEME)


def json_ld(html: str) -> list[dict]:
    blocks = re.findall(
        r'<script type="application/ld\+json">(.*?)</script>', html, re.DOTALL
    )
    return [json.loads(block) for block in blocks]


def test_record_page_carries_schema_org_json_ld(client, registration):
    html = client.get(f"/registry/{registration.identifier}/").content.decode()
    (item,) = json_ld(html)  # the title cannot close the script element
    assert item["@context"] == "https://schema.org"
    assert item["name"] == TITLE
    assert item["url"] == f"{SITE}/registry/{registration.identifier}/?version=1"
    assert item["creator"][0]["familyName"] == "Organa"
    assert item["version"] == "1"
    assert "<script>alert" not in html


SM = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def locations(client, path: str) -> list[str]:
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    return [e.text for e in etree.fromstring(response.content).iterfind(".//s:loc", SM)]


def test_sitemaps_list_the_public_pages_and_every_registered_record(
    client, registration, call, organizer, chair, settings
):
    other = registered(call, organizer, chair, name="Other", scheme=CLEAN_SCHEME)
    settings.SITEMAP_PAGE_SIZE = 1  # a file per record: the index lists both
    index = locations(client, "/sitemap.xml")
    assert index == [
        f"{SITE}/sitemap-pages.xml",
        f"{SITE}/sitemap-registrations-1.xml",
        f"{SITE}/sitemap-registrations-2.xml",
        f"{SITE}/sitemap-results-1.xml",  # none published: an empty file
    ]
    assert locations(client, "/sitemap-results-1.xml") == []
    assert locations(client, "/sitemap-pages.xml") == [
        f"{SITE}/",
        f"{SITE}/registry/",
        f"{SITE}/statistics/",
    ]
    records = [
        *locations(client, "/sitemap-registrations-1.xml"),
        *locations(client, "/sitemap-registrations-2.xml"),
    ]
    assert records == [
        f"{SITE}/registry/{registration.identifier}/",
        f"{SITE}/registry/{other.identifier}/",
    ]
    page = etree.fromstring(client.get("/sitemap-registrations-1.xml").content)
    lastmod = page.findtext(".//s:lastmod", namespaces=SM)
    assert lastmod == registration.versions.get().created.date().isoformat()
    assert client.get("/sitemap-registrations-3.xml").status_code == 404
    assert client.get("/sitemap-registrations-0.xml").status_code == 404


def test_robots_txt_points_to_the_sitemap_and_keeps_out_of_private_areas(
    client, settings
):
    settings.SITE_URL = SITE
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert "Disallow: /admin/" in lines
    assert "Disallow: /proposals/" in lines
    assert "Disallow: /registry/" not in lines
    assert lines[-1] == f"Sitemap: {SITE}/sitemap.xml"
