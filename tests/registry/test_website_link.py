"""The challenge website (a "url" parameter) is a link wherever the design is
shown, but only for http(s): anything else stays escaped text."""

import pytest
from django.urls import reverse

from registry import services
from registry.models import Answer
from registry.registration import register_challenge
from registry.templatetags.registry_tags import web_link
from reviews.services import assign_reviewer
from tests.factories import UserFactory
from tests.reviews.conftest import submitted_proposal

pytestmark = pytest.mark.django_db

WEBSITE = 2  # parameter 2, "Challenge website"


@pytest.mark.parametrize(
    ("value", "html"),
    [
        (
            "https://brats.example.org/2027?a=1&b=2",
            '<a href="https://brats.example.org/2027?a=1&amp;b=2" '
            'rel="nofollow noopener">'
            "https://brats.example.org/2027?a=1&amp;b=2</a>",
        ),
        (
            "HTTP://example.org",
            '<a href="HTTP://example.org" rel="nofollow noopener">HTTP://example.org</a>',
        ),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("javascript://x.org/%0Aalert(1)", "javascript://x.org/%0Aalert(1)"),
        ("ftp://files.example.org", "ftp://files.example.org"),
        (" JavaScript:alert(1)//http://x", " JavaScript:alert(1)//http://x"),
        ("data:text/html,<b>x</b>", "data:text/html,&lt;b&gt;x&lt;/b&gt;"),
        ("http:no-host", "http:no-host"),
        (
            'https://x.org/"><script>',
            '<a href="https://x.org/&quot;&gt;&lt;script&gt;"',
        ),
        ("www.example.org", "www.example.org"),
    ],
)
def test_web_link_links_only_http_urls_and_escapes(value, html):
    assert web_link(value).startswith(html)
    assert "<script>" not in web_link(value)


def store_website(challenge, value: str) -> None:
    """Store the website answer as is: old or imported data can hold what the
    editor's validation would refuse."""
    Answer.objects.update_or_create(
        challenge=challenge, task=None, number=WEBSITE, defaults={"value": value}
    )


def test_draft_overview_links_the_website(client, organizer, call):
    challenge = services.create_challenge(owner=organizer, call=call, name="Brats")
    store_website(challenge, "https://brats.example.org")
    client.force_login(organizer)
    html = client.get(reverse("registry:overview", args=[challenge.pk])).text
    assert (
        '<a href="https://brats.example.org" rel="nofollow noopener">'
        "https://brats.example.org</a>" in html
    )


def test_draft_overview_shows_another_scheme_as_escaped_text(client, organizer, call):
    challenge = services.create_challenge(owner=organizer, call=call, name="Brats")
    store_website(challenge, 'javascript:alert("<x>")')
    client.force_login(organizer)
    html = client.get(reverse("registry:overview", args=[challenge.pk])).text
    assert "javascript:alert(&quot;&lt;x&gt;&quot;)</dd>" in html
    assert 'href="javascript:' not in html


def test_review_page_links_the_website(client, organizer, call, chair):
    challenge = submitted_proposal(organizer, call)
    # stored before the review starts: reviewers read the revision as frozen then
    store_website(challenge, "http://decathlon.example.org")
    reviewer = UserFactory(username="tina")
    assign_reviewer(
        challenge=challenge, reviewer=reviewer, role="technical", actor=chair
    )
    client.force_login(reviewer)
    html = client.get(reverse("reviews:review", args=[challenge.pk])).text
    assert '<a href="http://decathlon.example.org" rel="nofollow noopener">' in html


def test_registered_design_links_the_website(client, accepted, chair):
    store_website(accepted, "https://decathlon.example.org")
    registration = register_challenge(challenge=accepted, actor=chair)
    html = client.get(
        reverse("registry:public-detail", args=[registration.identifier])
    ).text
    assert '<a href="https://decathlon.example.org" rel="nofollow noopener">' in html
