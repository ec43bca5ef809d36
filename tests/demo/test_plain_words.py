"""No raw code in what a person reads (issue 28): every demo page each role
reaches by links, and the text of every demo report, are scanned for the codes
of `ranking.vocabulary` (scheme options, deviation kinds, check ids, data-set
ids, table names, scheme fields). Single-word codes ("value", "mean") are
ordinary English too, so the scan looks for the codes with "_" or "." only.
"""

from __future__ import annotations

import io
import re

import lxml.html
import pytest
from django.core.management import call_command
from django.test import Client
from pypdf import PdfReader

from analysis.models import AnalysisRun
from demo.crawl import crawl
from ranking import vocabulary

ACCOUNTS = {
    "organizer": "demo-organizer-pw",
    "reviewer1": "demo-reviewer1-pw",
    "reviewer2": "demo-reviewer2-pw",
    "clinician": "demo-clinician-pw",
    "chair": "demo-chair-pw",
}
# Text a person types (their own words) is theirs: not scanned.
UNREAD = ("script", "style", "textarea", "template")
CODES = sorted(
    code
    for code in (*vocabulary.TERMS, *vocabulary.FIELD_TERMS)
    if "_" in code or "." in code
)
RAW_CODE = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, CODES)) + r")(?![\w-])")
# ... and the one-word codes where they read as codes: a rule named by its code.
RULE_CODE = re.compile(r"rule:? \(?(value|ignore|none)\b")


def visible_text(html: str) -> str:
    tree = lxml.html.fromstring(html)
    for node in tree.xpath("|".join(f"//{tag}" for tag in UNREAD)):
        node.drop_tree()
    return " ".join(tree.xpath("//body")[0].itertext())


def pages_of(client: Client, *, limit: int = 200, per_kind: int = 2):
    """(url, text) of every kind of page reachable from "/" by links."""
    for url, response in crawl(client, limit=limit, per_kind=per_kind):
        if response.status_code == 200 and "text/html" in response["Content-Type"]:
            yield url, visible_text(response.content.decode())


def raw_codes(where: str, text: str) -> list[str]:
    found = set(RAW_CODE.findall(text)) | set(RULE_CODE.findall(text))
    return [f"{where}: {code}" for code in sorted(found)]


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        call_command("load_demo", stdout=io.StringIO())
        yield
        call_command("flush", "--noinput", stdout=io.StringIO())


@pytest.mark.parametrize("account", [None, *ACCOUNTS])
def test_no_demo_page_shows_a_raw_code(demo, db, account):
    client = Client()
    if account:
        assert client.login(username=account, password=ACCOUNTS[account])
    pages = list(pages_of(client))
    assert len(pages) > 10  # the crawl reached the role's pages
    found = [hit for url, text in pages for hit in raw_codes(url, text)]
    assert found == []


def test_no_demo_report_shows_a_raw_code(demo, db):
    runs = [run for run in AnalysisRun.objects.all() if run.report]
    assert len(runs) >= 2  # MSD and RobustMIS
    found = []
    for run in runs:
        with run.report.open("rb") as file:
            pages = PdfReader(file).pages
            text = " ".join(page.extract_text() for page in pages)
        found += raw_codes(f"report of analysis {run.pk}", text)
    assert found == []


def test_the_scan_finds_a_code_in_running_text():
    hits = raw_codes("p", "Kind: missing_cases, method test_then_rank.")
    assert hits == ["p: missing_cases", "p: test_then_rank"]
    assert raw_codes("p", "Missing results; instrument_overlap") == []
    assert raw_codes("p", "under the registered missing rule (value).") == ["p: value"]
