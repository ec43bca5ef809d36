"""Every page a client reaches by links from "/": the walk the raw-code scan
(tests/demo/test_plain_words.py) and the first-load benchmark
(scripts/bench_pages.py) share."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from urllib.parse import urldefrag, urlsplit

import lxml.html

# Files, sign-out, the admin and the API are not pages (as tests/browser/pagecheck.py).
NOT_PAGES = re.compile(
    r"\.(pdf|json|png|txt|csv|xlsx|svg|ico|bib|xml)$|/accounts/logout/|/admin/"
    r"|/api/|/oai|/download"
)


def page_kind(url: str) -> str:
    """The URL's shape: its path with every number as N."""
    return re.sub(r"\d+", "N", urlsplit(url).path)


def crawl(
    client, *, limit: int = 200, per_kind: int = 2, get: Callable | None = None
) -> Iterator[tuple[str, object]]:
    """(url, response) of each page reachable from "/" by links, breadth
    first, at most `per_kind` pages of each URL shape and `limit` in all;
    `get(url)` requests a page (default ``client.get``)."""
    get = get or client.get
    queue, kinds, seen = ["/"], Counter(), set()
    while queue and len(seen) < limit:
        url = queue.pop(0)
        if url in seen or kinds[page_kind(url)] >= per_kind:
            continue
        seen.add(url)
        kinds[page_kind(url)] += 1
        response = get(url)
        yield url, response
        if response.status_code != 200 or "text/html" not in response.get(
            "Content-Type", ""
        ):
            continue
        for href in lxml.html.fromstring(response.content).xpath(
            "//a[not(@download)]/@href"
        ):
            link = urldefrag(href)[0]
            if link.startswith("/") and not NOT_PAGES.search(urlsplit(link).path):
                queue.append(link)
