"""What every page must pass in the browser (issue 15): screenshots at a
desktop and a phone size into the test artefacts, no horizontal scroll at
either width, an axe-core scan without serious or critical violations, and no
seed codes or demo placeholders in the text a person reads.

`TEST_ARTEFACTS_DIR` (default `test-artefacts/`) receives the screenshots under
`journeys/<journey>/`.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

from axe_playwright_python.sync_playwright import Axe

VIEWPORTS = ((1366, 768), (390, 844))
SERIOUS = ("serious", "critical")
ARTEFACTS = Path(os.environ.get("TEST_ARTEFACTS_DIR", "test-artefacts")) / "journeys"
# Internal codes of the project's sources and demo markers: never in the UI.
SEED_CODES = re.compile(
    r"(?<![-\w])00[0-4][ \t]*(?:§|Table|Fig\.?|Discussion|Results|A\.\d)"
    r"|§\s*\d|Demo placeholder|Demo contact|\bseed\s+00\d",
)
# Not pages: files, downloads, sign-out, and forms reached by POST.
SKIPPED = re.compile(
    r"\.(pdf|json|png|txt|csv|xlsx|svg|ico)$|/accounts/logout/|/admin/|/api/"
)

# Stacked tables (.table-stack) whose table or cells lack explicit ARIA roles
# (static/js/tableroles.js): some browsers drop table semantics on phones.
STACKED_WITHOUT_ROLES = """() => [...document.querySelectorAll("table.table-stack")]
  .filter((table) => table.getAttribute("role") !== "table"
    || [...table.querySelectorAll("tr, th, td")].some(
      (node) => node.closest("table") === table && !node.getAttribute("role")))
  .map((table) => table.id || table.className)"""

# An id names one element: a repeated one sends links and labels to the first.
REPEATED_IDS = """() => {
  const seen = {};
  for (const e of document.querySelectorAll("[id]")) seen[e.id] = (seen[e.id] || 0) + 1;
  return Object.keys(seen).filter((id) => seen[id] > 1).slice(0, 5);
}"""

_axe = Axe()


@dataclass
class PageCheck:
    """Runs the checks page after page and remembers what failed."""

    journey: str
    problems: list[str] = field(default_factory=list)
    seen: int = 0

    def __post_init__(self) -> None:
        self.folder = ARTEFACTS / self.journey
        shutil.rmtree(self.folder, ignore_errors=True)  # this run's pages only
        self.folder.mkdir(parents=True, exist_ok=True)

    def check(self, page, name: str = "") -> None:
        self.seen += 1
        parts = urlsplit(page.url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        label = name or re.sub(r"[^\w.-]+", "_", path.strip("/")) or "home"
        folder = self.folder
        text = page.inner_text("body")
        for found in SEED_CODES.findall(text):
            self.problems.append(f"{path}: seed code or placeholder {found!r}")
        repeated = page.evaluate(REPEATED_IDS)
        if repeated:
            self.problems.append(f"{path}: ids used more than once {repeated}")
        unroled = page.evaluate(STACKED_WITHOUT_ROLES)
        if unroled:
            self.problems.append(f"{path}: stacked tables without ARIA roles {unroled}")
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(50)
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - window.innerWidth"
            )
            if overflow > 0:
                self.problems.append(
                    f"{path}: scrolls horizontally by {overflow}px at {width}px"
                )
            page.screenshot(
                path=str(folder / f"{self.seen:02d}-{label}-{width}x{height}.png")
            )
            for violation in _axe.run(page).response["violations"]:
                if violation["impact"] in SERIOUS:
                    targets = [n["target"] for n in violation["nodes"][:3]]
                    why = violation["nodes"][0].get("failureSummary", "")
                    self.problems.append(
                        f"{path} at {width}px: axe {violation['id']} "
                        f"({violation['impact']}): {violation['help']} {targets}"
                        f" — {why}"
                    )
        page.set_viewport_size({"width": VIEWPORTS[0][0], "height": VIEWPORTS[0][1]})

    def assert_clean(self) -> None:
        assert self.seen, "no page was checked"
        assert not self.problems, "\n".join(self.problems)


def same_site_links(page, origin: str) -> list[str]:
    """The page's links to other pages of this site (no files, no sign-out)."""
    hrefs = page.eval_on_selector_all(
        "a[href]:not([download])", "links => links.map(a => a.href)"
    )
    links = []
    for href in hrefs:
        url, _ = urldefrag(href)
        if url.startswith(origin) and not SKIPPED.search(urlsplit(url).path):
            links.append(url)
    return links


def page_key(url: str) -> str:
    """Pages that differ only by numbers (ids, page, version) count once, so a
    crawl visits each kind of page, not every row of every list."""
    parts = urlsplit(url)
    query = re.sub(r"=[^&]*", "=", parts.query)
    return re.sub(r"\d+", "N", parts.path) + ("?" + query if query else "")


def crawl(
    page,
    checker: PageCheck,
    start: str,
    *,
    limit: int = 80,
    per_kind: int = 2,
    within: str = "/",
) -> list[str]:
    """Visit every kind of page reachable from `start` by links (`per_kind` of
    each, e.g. two registrations' pages; paths under `within`), checking each."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url or start))
    queue, kinds, seen, visited = [urldefrag(start)[0]], Counter(), set(), []
    while queue and len(visited) < limit:
        url = queue.pop(0)
        key = page_key(url)
        if url in seen or kinds[key] >= per_kind:
            continue
        seen.add(url)
        kinds[key] += 1
        response = page.goto(url)
        if response is None or "text/html" not in response.headers.get(
            "content-type", ""
        ):
            continue
        if response.status >= 400:
            checker.problems.append(f"{url}: HTTP {response.status}")
            continue
        visited.append(url)
        checker.check(page)
        queue += [
            u
            for u in same_site_links(page, origin)
            if u not in seen
            and kinds[page_key(u)] < per_kind
            and urlsplit(u).path.startswith(within)
        ]
    return visited
