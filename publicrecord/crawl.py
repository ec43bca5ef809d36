"""What crawlers read: `robots.txt` and the sitemaps (https://www.sitemaps.org).

`/sitemap.xml` is an index of `/sitemap-pages.xml` (the public pages) and of
`/sitemap-registrations-<n>.xml`, pages of `SITEMAP_PAGE_SIZE` registered
records (the protocol allows 50,000 URLs a file), each with the date of its
latest version, and of `/sitemap-results-<n>.xml`, the pages of the public
published results (`selectors.published_results`: never an unpublished or
embargoed one), each with the day it became public. Every URL is under SITE_URL.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import Max
from django.urls import reverse
from lxml import etree

from config.site import absolute_url
from registry.models import Registration

from .results import page_url
from .selectors import public_since, published_results

SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
# Public pages (URL names) listed besides the records; more public pages join here.
PUBLIC_PAGES = ("home", "registry:public-list", "publicrecord:statistics")
# Signed-in or machine-only areas crawlers are asked to leave alone.
PRIVATE_PREFIXES = (
    "/admin/",
    "/accounts/",
    "/api/",
    "/reviews/",
    "/proposals/",
    "/results/",
    "/case-metadata/",
    "/profile/",
)


def _urlset(entries: list[tuple[str, datetime | None]], tag: str = "urlset") -> bytes:
    root = etree.Element(f"{{{SITEMAP}}}{tag}", nsmap={None: SITEMAP})
    child = "url" if tag == "urlset" else "sitemap"
    for location, modified in entries:
        element = etree.SubElement(root, f"{{{SITEMAP}}}{child}")
        etree.SubElement(element, f"{{{SITEMAP}}}loc").text = location
        if modified is not None:
            etree.SubElement(
                element, f"{{{SITEMAP}}}lastmod"
            ).text = modified.date().isoformat()
    return etree.tostring(
        root, encoding="UTF-8", xml_declaration=True, pretty_print=True
    )


def _page_count(rows: int) -> int:
    """How many sitemap files `rows` URLs take (at least one, maybe empty)."""
    return max(1, -(-rows // settings.SITEMAP_PAGE_SIZE))


def registration_pages() -> int:
    return _page_count(Registration.objects.count())


def results_pages() -> int:
    return _page_count(published_results(exploratory=None).count())


def sitemap_index() -> bytes:
    files = [reverse("publicrecord:sitemap-pages")]
    files += [
        reverse("publicrecord:sitemap-registrations", args=[n])
        for n in range(1, registration_pages() + 1)
    ]
    files += [
        reverse("publicrecord:sitemap-results", args=[n])
        for n in range(1, results_pages() + 1)
    ]
    return _urlset([(absolute_url(path), None) for path in files], tag="sitemapindex")


def _window(page: int) -> slice:
    size = settings.SITEMAP_PAGE_SIZE
    return slice((page - 1) * size, page * size)


def pages_sitemap() -> bytes:
    return _urlset([(absolute_url(reverse(name)), None) for name in PUBLIC_PAGES])


def registrations_sitemap(page: int) -> bytes | None:
    """Page `page` (from 1) of the registered records; None past the last."""
    if not 1 <= page <= registration_pages():
        return None
    rows = (
        Registration.objects.order_by("pk")
        .annotate(modified=Max("versions__created"))
        .values_list("identifier", "modified")[_window(page)]
    )
    return _urlset(
        [
            (absolute_url(reverse("registry:public-detail", args=[i])), modified)
            for i, modified in rows
        ]
    )


def results_sitemap(page: int) -> bytes | None:
    """Page `page` (from 1) of the public results pages, one per public
    publication (a superseded one stays readable); None past the last."""
    if not 1 <= page <= results_pages():
        return None
    publications = published_results(exploratory=None).order_by("pk")[_window(page)]
    return _urlset([(absolute_url(page_url(p)), public_since(p)) for p in publications])


def robots_txt() -> str:
    lines = ["User-agent: *", *(f"Disallow: {p}" for p in PRIVATE_PREFIXES)]
    lines += [
        "Allow: /",
        "",
        f"Sitemap: {absolute_url(reverse('publicrecord:sitemap'))}",
    ]
    return "\n".join(lines) + "\n"
