"""The public record fits a phone (issue 28): a table of contents whose links
all land on the page, and the design folded into one <details> per section
and per task scheme, where those changed by the shown version are open."""

import lxml.html
import pytest
from django.urls import reverse

from registry.registration import register_challenge
from tests.registry.test_registration_pages import amend

pytestmark = pytest.mark.django_db


@pytest.fixture
def registration(accepted, chair):
    return register_challenge(challenge=accepted, actor=chair)


def page(client, identifier: str, query: str = ""):
    url = reverse("registry:public-detail", args=[identifier])
    return lxml.html.fromstring(client.get(url + query).content)


def test_every_contents_link_lands_on_the_page(client, registration):
    tree = page(client, registration.identifier)
    links = tree.xpath("//nav[@id='page-toc']//a/@href")
    ids = set(tree.xpath("//@id"))
    assert "#design" in links
    assert len([link for link in links if link.startswith("#design-")]) == 2
    assert [link for link in links if link[1:] not in ids] == []


def test_design_sections_are_folded_and_none_open_without_changes(client, registration):
    tree = page(client, registration.identifier)
    sections = tree.xpath("//div[@id='design-parts']//details")
    schemes = tree.xpath("//div[@id='design-parts']//details[@data-scheme]")
    assert len(schemes) == 1  # one task, one scheme
    assert len(sections) > 5
    assert [d for d in sections if d.get("open") is not None] == []
    # every parameter row is inside a folded section
    rows = tree.xpath(
        "//div[@id='design-parts']//dt[contains(@class, 'parameter-row')]"
    )
    assert rows
    assert all(row.xpath("ancestor::details") for row in rows)


def test_the_sections_a_version_changed_are_open(
    client, registration, organizer, chair
):
    amend(registration, organizer, chair)  # the Brain scheme: Holm
    tree = page(client, registration.identifier, "?version=2")
    opened = tree.xpath("//div[@id='design-parts']//details[@open]")
    assert [d.get("data-scheme") for d in opened if d.get("data-scheme")] == ["Brain"]
    # the generated prose of parameters 49/50 changes with the scheme
    changed = tree.xpath("//details[@open]//span[@data-changed]")
    assert changed
