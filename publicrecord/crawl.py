"""What crawlers read: `robots.txt` and the sitemaps (https://www.sitemaps.org).

`/sitemap.xml` is an index of `/sitemap-pages.xml` (the public pages) and of
`/sitemap-registrations-<n>.xml`, pages of `SITEMAP_PAGE_SIZE` registered
records (the protocol allows 50,000 URLs a file), each with the date of its
latest version. Every URL is under SITE_URL.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import Max
from django.urls import reverse
from lxml import etree

from config.site import absolute_url
from registry.models import Registration

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


def registration_pages() -> int:
    """How many registration sitemaps there are (at least one, maybe empty)."""
    count = Registration.objects.count()
    return max(1, -(-count // settings.SITEMAP_PAGE_SIZE))


def sitemap_index() -> bytes:
    locations = [absolute_url(reverse("publicrecord:sitemap-pages"))] + [
        absolute_url(reverse("publicrecord:sitemap-registrations", args=[n]))
        for n in range(1, registration_pages() + 1)
    ]
    return _urlset([(loc, None) for loc in locations], tag="sitemapindex")


def pages_sitemap() -> bytes:
    return _urlset([(absolute_url(reverse(name)), None) for name in PUBLIC_PAGES])


def registrations_sitemap(page: int) -> bytes | None:
    """Page `page` (from 1) of the registered records; None past the last."""
    if not 1 <= page <= registration_pages():
        return None
    size = settings.SITEMAP_PAGE_SIZE
    rows = (
        Registration.objects.order_by("pk")
        .annotate(modified=Max("versions__created"))
        .values_list("identifier", "modified")[(page - 1) * size : page * size]
    )
    return _urlset(
        [
            (absolute_url(reverse("registry:public-detail", args=[i])), modified)
            for i, modified in rows
        ]
    )


def robots_txt() -> str:
    lines = ["User-agent: *", *(f"Disallow: {p}" for p in PRIVATE_PREFIXES)]
    lines += [
        "Allow: /",
        "",
        f"Sitemap: {absolute_url(reverse('publicrecord:sitemap'))}",
    ]
    return "\n".join(lines) + "\n"
