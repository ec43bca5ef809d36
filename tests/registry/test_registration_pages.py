"""Register button, public registry pages, version PDFs and amendment pages."""

import hashlib
import io
import re

import lxml.html
import pytest
from django.urls import reverse
from pypdf import PdfReader

from registry.amendments import (
    approve_amendment,
    propose_amendment,
    reject_amendment,
)
from registry.lock import registered_changes_allowed
from registry.models import Amendment, Registration
from registry.parameters import OUTCOME_PARAMETERS
from registry.registration import register_challenge
from tests.factories import (
    ChallengeFactory,
    ResultsVersionFactory,
    TaskFactory,
    UserFactory,
)
from tests.registry.helpers import proposal_with_scheme
from tests.schemes import SIGNIFICANCE_SCHEME
from tests.stacked_tables import assert_cells_labelled_by_headers

pytestmark = pytest.mark.django_db

SCHEME = SIGNIFICANCE_SCHEME
IDENTIFIER = "miccai-2027-001"
QUERIES = 6  # calls and metrics (form choices), count, page, published outcomes,
# published results (publicrecord results_tags.published_results_of)


@pytest.fixture
def accepted(call, organizer):
    challenge = proposal_with_scheme(call, organizer, SCHEME)
    challenge.status = "accepted"
    challenge.save()
    return challenge


@pytest.fixture
def registration(accepted, chair):
    return register_challenge(challenge=accepted, actor=chair)


def amend(registration, organizer, chair, *, approve=True, **changes):
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Holm is the safer choice.",
        changes=changes
        or {"tasks": {"Brain": {"scheme": {**SCHEME, "test": {"p_adjust": "holm"}}}}},
    )
    if approve:
        approve_amendment(amendment=amendment, actor=chair)
    return amendment


def detail(identifier=IDENTIFIER):
    return reverse("registry:public-detail", args=[identifier])


# --- register -------------------------------------------------------------------


def test_overview_shows_register_button_to_chair_of_accepted(client, accepted, chair):
    client.force_login(chair)
    body = client.get(reverse("registry:overview", args=[accepted.pk])).content
    assert b'id="register-proposal"' in body


def test_overview_of_a_registered_proposal_offers_its_registered_pdf(
    client, registration, organizer
):
    client.force_login(organizer)
    url = reverse("registry:overview", args=[registration.challenge.pk])
    body = client.get(url).content.decode()
    assert 'id="draft-pdf"' not in body  # not a draft any more
    pdf = reverse("registry:version-pdf", args=[IDENTIFIER, 1])
    assert f'href="{pdf}" id="registered-pdf"' in body
    assert "Registered design PDF (version 1)" in body


def test_overview_hides_register_button_from_others(client, accepted, call):
    reviewer_like = UserFactory()
    accepted.call.chairs.remove(*accepted.call.chairs.all())
    client.force_login(accepted.owner)
    assert (
        b'id="register-proposal"'
        in client.get(reverse("registry:overview", args=[accepted.pk])).content
    )
    client.force_login(reviewer_like)
    assert client.get(reverse("registry:overview", args=[accepted.pk])).status_code == (
        404
    )


def test_register_redirects_to_public_page(client, accepted, chair):
    client.force_login(chair)
    response = client.post(reverse("registry:register", args=[accepted.pk]))
    assert response.status_code == 302
    assert response["Location"] == detail()
    accepted.refresh_from_db()
    assert accepted.status == "registered"


def test_register_page_says_what_registering_does_before_anything_happens(
    client, accepted, chair
):
    TaskFactory(challenge=accepted, name="Liver")  # accepted without a scheme
    client.force_login(chair)
    response = client.get(reverse("registry:register", args=[accepted.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="next-identifier">miccai-2027-001<' in html
    assert "cannot be withdrawn" in html
    assert "“Liver”" in html.split('id="tasks-without-scheme"')[1]
    assert (
        "“Brain”" not in html.split('id="tasks-without-scheme"')[1].split("</div>")[0]
    )
    assert Registration.objects.count() == 0
    accepted.refresh_from_db()
    assert accepted.status == "accepted"


def test_register_page_of_a_complete_design_has_no_scheme_warning(
    client, accepted, organizer
):
    client.force_login(organizer)
    html = client.get(reverse("registry:register", args=[accepted.pk])).text
    assert 'id="tasks-without-scheme"' not in html
    assert 'id="register-confirm"' in html


def test_register_page_of_a_draft_or_for_a_stranger_is_refused(
    client, call, organizer, accepted
):
    draft = ChallengeFactory(call=call, owner=organizer)
    client.force_login(organizer)
    response = client.get(reverse("registry:register", args=[draft.pk]), follow=True)
    assert "Only accepted proposals can be registered" in response.content.decode()
    client.force_login(UserFactory())
    url = reverse("registry:register", args=[accepted.pk])
    assert client.get(url).status_code == 404


def test_register_unaccepted_is_refused_with_message(client, call, organizer):
    draft = ChallengeFactory(call=call, owner=organizer)
    client.force_login(organizer)
    response = client.post(reverse("registry:register", args=[draft.pk]), follow=True)
    assert "Only accepted proposals can be registered" in response.content.decode()
    assert Registration.objects.count() == 0


def test_register_by_stranger_is_404(client, accepted):
    client.force_login(UserFactory())
    assert client.post(
        reverse("registry:register", args=[accepted.pk])
    ).status_code == (404)
    assert Registration.objects.count() == 0


# --- public pages ---------------------------------------------------------------


def test_public_list_and_detail_are_readable_anonymously(client, registration):
    listing = client.get(reverse("registry:public-list"))
    assert listing.status_code == 200
    assert f'data-registration="{IDENTIFIER}"' in listing.content.decode()
    page = client.get(detail())
    assert page.status_code == 200
    body = page.content.decode()
    version = registration.versions.get()
    assert version.sha256 in body
    assert "Propose an amendment" not in body


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("q=decath", True),
        ("q=nothing-like-this", False),
        ("call=miccai-2027", True),
        ("year=1999", False),
        ("category=segmentation", True),
        ("category=tracking", False),
        ("modality=MRI", True),
        ("modality=PET", False),
    ],
)
def test_public_list_search(client, registration, query, found):
    body = client.get(reverse("registry:public-list") + "?" + query).content.decode()
    assert (f'data-registration="{IDENTIFIER}"' in body) is found


@pytest.mark.parametrize(
    ("query", "label"),
    [
        ("year=20x7", "Year registered"),
        ("tasks=0", "Tasks"),
        ("q=" + "a" * 201, "Text"),
    ],
)
def test_public_list_bad_search_says_so_not_that_nothing_matches(
    client, registration, query, label
):
    """A refused search ran no search: "No registered design matches" would
    say the registry has none."""
    body = client.get(reverse("registry:public-list") + "?" + query).content.decode()
    assert "No registered design matches" not in body
    assert 'id="search-refused"' in body
    error = lxml.html.fromstring(body).find_class("invalid-feedback")[0]
    assert error.text_content().startswith(f"{label}: ")


def test_public_list_ignores_drafts_and_accepted(client, call, organizer):
    ChallengeFactory(call=call, owner=organizer, name="Secret draft")
    ChallengeFactory(
        call=call, owner=organizer, name="Accepted only", status="accepted"
    )
    body = client.get(reverse("registry:public-list") + "?q=e").content.decode()
    assert "Secret draft" not in body
    assert "Accepted only" not in body


def test_public_list_query_count_does_not_grow(
    client, call, organizer, chair, django_assert_num_queries
):
    def make(n):
        for _ in range(n):
            challenge = ChallengeFactory(call=call, owner=organizer, status="accepted")
            register_challenge(challenge=challenge, actor=chair)

    make(1)
    with django_assert_num_queries(QUERIES):
        client.get(reverse("registry:public-list"))
    make(2)
    with django_assert_num_queries(QUERIES):
        body = client.get(reverse("registry:public-list")).content.decode()
    assert body.count("data-registration=") == 3


def test_public_detail_unknown_identifier_is_404(client, accepted):
    assert client.get(detail("miccai-2027-999")).status_code == 404
    assert client.get(detail() + "?version=1").status_code == 404


def test_public_detail_renders_design_from_version_not_live_rows(
    client, registration, accepted
):
    # Even if a live row were changed behind the registry's back (the lock
    # opened by hand), the page shows what was hashed.
    with registered_changes_allowed():
        accepted.answers.filter(task=None, number=5).update(value="Changed silently")
    body = client.get(detail()).content.decode()
    assert "Changed silently" not in body
    assert "A free-text description." in body


def test_public_detail_shows_v2_changes_highlighted(
    client, registration, organizer, chair
):
    amend(registration, organizer, chair)
    body = client.get(detail()).content.decode()
    assert 'id="shown-version">version 2 (latest)' in body
    assert "Changes since version 1" in body
    assert 'data-field="test.p_adjust"' in body
    assert "<del>None</del>" in body  # the adjustment by its label
    assert "<ins>Holm</ins>" in body
    assert 'data-changed="scheme"' in body  # the scheme in the design
    assert 'data-changed="p50"' in body  # its prose, word-level
    assert "<ins>with Holm&#x27;s adjustment" in body
    assert "Holm is the safer choice." in body
    assert "post hoc" not in body.split('id="versions"')[0]
    assert 'data-post-hoc="2"' not in body


def test_public_detail_shows_post_hoc_badge(client, registration, organizer, chair):
    ResultsVersionFactory(registration=registration, uploaded_by=organizer)
    amend(registration, organizer, chair)
    body = client.get(detail()).content.decode()
    assert 'id="post-hoc-badge"' in body
    assert 'data-post-hoc="2"' in body
    assert 'data-post-hoc="1"' not in body


def test_comparing_a_design_of_one_version_says_so(client, registration):
    bad = client.get(detail() + "?from=1&to=2").content.decode()
    assert "to: this design has one version so far: 1." in bad
    assert "1–1" not in bad


def test_public_detail_compare_any_two_versions(client, registration, organizer, chair):
    amend(registration, organizer, chair)
    amend(registration, organizer, chair, challenge={"5": "A new description."})
    body = client.get(detail() + "?from=1&to=3").content.decode()
    assert "Changes from version 1 to version 3" in body
    assert 'data-change="|5"' in body
    assert 'data-change="Brain|scheme"' in body
    bad = client.get(detail() + "?from=1&to=9").content.decode()
    assert "to: choose one of the versions 1–3." in bad


def test_comparing_the_shown_version_with_its_predecessor_shows_it_once(
    client, registration, organizer, chair
):
    amend(registration, organizer, chair)
    body = client.get(detail() + "?from=1&to=2").content.decode()
    assert body.count('data-field="test.p_adjust"') == 1
    assert 'id="changes"' not in body  # the comparison is that section
    assert "Holm is the safer choice." in body.split('id="comparison"')[1]
    body = client.get(detail() + "?from=2&to=2").content.decode()
    assert 'id="changes"' in body  # not the same question: both answered


def test_public_detail_scheme_changes_stack_into_labelled_cards(
    client, registration, organizer, chair
):
    # On phones each changed field of the scheme is a card: the field, then
    # its value before and after (tests/stacked_tables.py).
    amend(registration, organizer, chair)
    for query in ("", "?from=1&to=2"):  # changes since v1; the comparison
        body = client.get(detail() + query).content.decode()
        assert_cells_labelled_by_headers(body)


def test_public_detail_chain_head_is_spaced_from_what_follows(client, registration):
    # The line sat on the next heading with no space between them.
    tree = lxml.html.fromstring(client.get(detail()).content)
    (head,) = tree.xpath("//*[@data-chain-head]")
    assert "mb-3" in head.getparent().classes


@pytest.mark.parametrize("version", ["abc", "", "0", "-1", "9"])
def test_public_detail_unknown_version_is_404_not_the_latest(
    client, registration, version
):
    response = client.get(detail() + f"?version={version}")
    assert response.status_code == 404


def test_public_detail_old_version_and_download_links(
    client, registration, organizer, chair
):
    amend(registration, organizer, chair)
    body = client.get(detail() + "?version=1").content.decode()
    assert 'id="shown-version">version 1<' in body
    canonical = reverse("api:registration-canonical", args=[IDENTIFIER, 1])
    assert canonical in body
    served = client.get(canonical)
    assert hashlib.sha256(served.content).hexdigest() == (
        registration.versions.get(number=1).sha256
    )


def test_version_pdf_is_rendered_from_the_version(
    client, registration, organizer, chair
):
    amend(registration, organizer, chair)
    for number in (1, 2):
        response = client.get(
            reverse("registry:version-pdf", args=[IDENTIFIER, number])
        )
        assert response.status_code == 200
        assert response["Content-Type"] == "application/pdf"
        assert response.content.startswith(b"%PDF")
    assert (
        client.get(reverse("registry:version-pdf", args=[IDENTIFIER, 3])).status_code
        == 404
    )


def test_unregistered_proposal_has_no_public_page(client, accepted):
    assert client.get(detail()).status_code == 404
    assert client.get(
        reverse("registry:version-pdf", args=[IDENTIFIER, 1])
    ).status_code == (404)


# --- amendments -----------------------------------------------------------------


def test_amendment_propose_page_anonymous_redirects_and_stranger_gets_404(
    client, registration
):
    url = reverse("registry:propose-amendment", args=[IDENTIFIER])
    assert client.get(url).status_code == 302
    client.force_login(UserFactory())
    assert client.get(url).status_code == 404


def test_amendment_list_is_public_but_shows_only_approved_ones(
    client, registration, organizer, chair
):
    approved = amend(registration, organizer, chair)
    pending = amend(registration, organizer, chair, approve=False)
    url = reverse("registry:amendments", args=[IDENTIFIER])
    anonymous = client.get(url)
    assert anonymous.status_code == 200
    html = anonymous.content.decode()
    assert f'data-amendment="{approved.pk}"' in html
    assert f'data-amendment="{pending.pk}"' not in html
    client.force_login(organizer)
    assert f'data-amendment="{pending.pk}"' in client.get(url).content.decode()


def test_amendment_propose_page_is_for_organizers_only(client, registration, chair):
    client.force_login(chair)
    url = reverse("registry:propose-amendment", args=[IDENTIFIER])
    assert client.get(url).status_code == 403
    assert client.get(
        reverse("registry:amendments", args=[IDENTIFIER])
    ).status_code == (200)


def amendment_form_data(client, url):
    """The propose page's form as the browser would post it back unchanged."""
    from registry.forms.amendment import AmendmentForm

    registration = Registration.objects.get(identifier=IDENTIFIER)
    form = AmendmentForm(challenge=registration.challenge)
    data = {}
    for item in form.schemes:
        for name in item.form.fields:
            value = item.form[name].value()
            if value is not None:
                data[item.form.add_prefix(name)] = value
    for _, _, section_form in form.sections:
        for name in section_form.fields:
            bound = section_form[name]
            value = bound.value()
            widget = bound.field.widget
            if hasattr(widget, "parts") and isinstance(value, dict):
                for part, text in value.items():
                    if part == "rows":
                        for column in getattr(widget, "columns", ()):
                            data[f"{bound.html_name}-{column}"] = [
                                str(r.get(column, "")) for r in text
                            ]
                        if "higher" in getattr(widget, "list_parts", ()):
                            data[f"{bound.html_name}-higher"] = [
                                str(i) for i, r in enumerate(text) if r.get("higher")
                            ]
                    else:
                        data[f"{bound.html_name}-{part}"] = text
            elif value not in (None, False):
                data[bound.html_name] = value
    return data


def post_amendment(client, fields: dict[str, str]):
    """Post the propose page's form back as the browser would, `fields` changed."""
    url = reverse("registry:propose-amendment", args=[IDENTIFIER])
    return client.post(url, {**amendment_form_data(client, url), **fields})


def proposed_amendment(client, fields: dict[str, str]) -> Amendment:
    """The amendment the propose page stores from its form with `fields` changed
    (the page must accept it and redirect)."""
    response = post_amendment(client, fields)
    assert response.status_code == 302, response.content.decode()[:3000]
    return Amendment.objects.get()


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"justification": "Nothing really."}, "changes: Give at least one change."),
        (
            {"c-challenge-organization-p05": "New text"},
            'data-error-for="justification"',
        ),
    ],
    ids=["unchanged form", "no justification"],
)
def test_a_refused_amendment_says_why_and_stores_nothing(
    client, registration, organizer, fields, reason
):
    client.force_login(organizer)
    response = post_amendment(client, fields)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert Amendment.objects.count() == 0


def test_amendment_scheme_change_through_page_then_chair_approves(
    client, registration, organizer, chair
):
    client.force_login(organizer)
    task = registration.challenge.tasks.get()
    amendment = proposed_amendment(
        client,
        {
            "justification": "Holm over all pairs.",
            f"scheme-{task.pk}-change": "on",
            f"scheme-{task.pk}-test_p_adjust": "holm",
        },
    )
    before = registration.challenge.tasks.get().scheme
    expected = {**before, "test": {**before["test"], "p_adjust": "holm"}}
    assert amendment.changes == {"tasks": {"Brain": {"scheme": expected}}}
    # The organizer cannot decide.
    decide = reverse("registry:decide-amendment", args=[IDENTIFIER, amendment.pk])
    assert client.post(decide, {"decision": "approve"}).status_code == 403
    client.force_login(chair)
    listing = client.get(reverse("registry:amendments", args=[IDENTIFIER]))
    body = listing.content.decode()
    assert 'data-field="test.p_adjust"' in body
    assert f'data-decide="{amendment.pk}"' in body
    response = client.post(decide, {"decision": "approve", "note": "Fine."})
    assert response["Location"] == detail()
    amendment.refresh_from_db()
    assert amendment.status == "approved"
    assert amendment.decision_note == "Fine."
    assert registration.versions.count() == 2


def test_amendment_parameter_change_and_reject(client, registration, organizer, chair):
    client.force_login(organizer)
    fields = {"justification": "Clarify.", "c-challenge-organization-p05": "New text"}
    amendment = proposed_amendment(client, fields)
    assert amendment.changes == {"challenge": {"5": "New text"}}
    client.force_login(chair)
    decide = reverse("registry:decide-amendment", args=[IDENTIFIER, amendment.pk])
    client.post(decide, {"decision": "reject", "note": "Not needed."})
    amendment.refresh_from_db()
    assert amendment.status == "rejected"
    assert registration.versions.count() == 1


# --- the public reader (#15) ------------------------------------------------------

OUTCOME = frozenset(p.number for p in OUTCOME_PARAMETERS)


@pytest.fixture
def before_outcome(call, organizer, chair):
    """A registration made before the challenge ran: no outcome answers yet."""
    challenge = proposal_with_scheme(call, organizer, SCHEME, skip=OUTCOME)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


def test_public_page_never_says_missing_and_explains_the_outcome(
    client, before_outcome
):
    html = client.get(detail()).content.decode()
    assert 'data-missing="' not in html
    for key in ("p51", "p52", "p53"):
        assert f'data-not-applicable="{key}"' in html
    assert "Not applicable yet: reported after the challenge has run." in html
    assert 'id="no-outcome"' in html


def test_verify_box_gives_the_hash_and_the_exact_command(client, registration):
    version = registration.versions.get()
    html = client.get(detail()).content.decode()
    assert f'<code class="sha" id="shown-sha">{version.sha256}</code>' in html
    assert f"sha256sum {IDENTIFIER}-v1.json" in html
    canonical = client.get(reverse("api:registration-canonical", args=[IDENTIFIER, 1]))
    assert f'filename="{IDENTIFIER}-v1.json"' in canonical["Content-Disposition"]
    assert hashlib.sha256(canonical.content).hexdigest() == version.sha256


def test_published_results_are_linked_from_list_and_page(
    client, before_outcome, organizer, chair
):
    listing = client.get(reverse("registry:public-list")).content.decode()
    assert 'data-published="0"' in listing
    amend(
        before_outcome,
        organizer,
        chair,
        tasks={"Brain": {"52": "Ranking at https://example.org/r"}},
    )
    listing = client.get(reverse("registry:public-list")).content.decode()
    assert 'data-published="1"' in listing
    assert f"{detail()}#outcome" in listing
    page = client.get(detail()).content.decode()
    assert 'data-outcome="p52"' in page
    assert '<a href="https://example.org/r"' in page


def test_public_list_links_challenge_call_and_versions(client, registration):
    html = client.get(reverse("registry:public-list")).content.decode()
    assert f'<a href="{detail()}">Decathlon</a>' in html
    assert '?call=miccai-2027"' in html
    assert f'{detail()}?version=1"' in html


def test_design_pdf_prints_the_hash_shown_on_the_public_page(client, registration):
    html = client.get(detail()).content.decode()
    shown = re.search(r'id="shown-sha">([0-9a-f]{64})<', html).group(1)
    pdf = client.get(reverse("registry:version-pdf", args=[IDENTIFIER, 1]))
    text = "".join(
        page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages
    )
    assert shown in re.sub(r"\s+", "", text)


def test_amendment_page_says_when_a_task_has_no_registered_scheme(
    client, call, organizer, chair
):
    """The page shows the registered design: a task registered without a
    scheme must not seem to have the new-scheme defaults registered."""
    challenge = ChallengeFactory(call=call, owner=organizer, status="accepted")
    TaskFactory(challenge=challenge, name="Liver")
    registration = register_challenge(challenge=challenge, actor=chair)
    client.force_login(organizer)
    url = reverse("registry:propose-amendment", args=[registration.identifier])
    html = client.get(url).content.decode()
    assert 'data-no-scheme="Liver"' in html
    assert "Add a ranking scheme to task “Liver”" in html


def test_amendment_page_of_a_task_with_a_scheme_offers_to_change_it(
    client, registration, organizer
):
    client.force_login(organizer)
    url = reverse("registry:propose-amendment", args=[IDENTIFIER])
    html = client.get(url).content.decode()
    assert "data-no-scheme" not in html
    assert "Change the ranking scheme of task “Brain”" in html


def test_an_older_version_says_it_is_superseded_and_links_the_latest(
    client, registration, organizer, chair
):
    amend(registration, organizer, chair)
    old = lxml.html.fromstring(client.get(detail() + "?version=1").content)
    notice = old.get_element_by_id("superseded")
    assert "Version 1 is not the latest" in notice.text_content()
    assert notice.xpath(".//a/@href") == ["?version=2"]
    latest = client.get(detail()).content.decode()
    assert 'id="superseded"' not in latest


def test_an_older_version_still_shows_the_published_results(
    client, before_outcome, organizer, chair
):
    """Results are published by a later version: the page of an earlier one
    must not say "Not published yet" (the list says they are published)."""
    amend(
        before_outcome,
        organizer,
        chair,
        tasks={"Brain": {"52": "Ranking at https://example.org/r"}},
    )
    page = client.get(detail() + "?version=1").content.decode()
    assert 'id="no-outcome"' not in page
    assert 'data-outcome="p52"' in page
    assert 'id="outcome-version">As in version 2, the latest.' in page


def test_design_pdf_names_people_as_the_public_page_does(
    client, registration, organizer, chair
):
    """The hashed document keeps usernames; the page and the PDF both show
    people by name (the PDF said "olga" and "by chair")."""
    amend(registration, organizer, chair)
    for user, first, last in ((organizer, "Olga", "Berg"), (chair, "Carl", "Stein")):
        user.first_name, user.last_name = first, last
        user.save()
    institution = organizer.profile.institution
    page = client.get(detail()).content.decode()
    assert f"organizers Olga Berg ({institution})" in page
    pdf = client.get(reverse("registry:version-pdf", args=[IDENTIFIER, 2]))
    text = " ".join(
        page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages
    )
    text = re.sub(r"\s+", " ", text)
    assert f"Organizers Olga Berg ({institution})" in text
    assert re.search(r"Version created \S+ by Carl Stein", text)
    assert "olga" not in text
    assert "by chair" not in text


def test_amendments_are_numbered_within_their_registration(
    client, call, registration, organizer, chair
):
    """ "Amendment 7" on a registration's first amendment (a database id shared
    by every registration) reads as six lost ones; the public list also says
    why a number is missing from it."""
    other = proposal_with_scheme(call, organizer, SCHEME)
    other.status = "accepted"
    other.save()
    other_registration = register_challenge(challenge=other, actor=chair)
    first = amend(registration, organizer, chair, approve=False)
    reject_amendment(amendment=first, actor=chair)
    amend(other_registration, organizer, chair)
    second = amend(registration, organizer, chair)
    page = lxml.html.fromstring(
        client.get(reverse("registry:amendments", args=[IDENTIFIER])).content
    )
    titles = [h.text_content() for h in page.xpath("//article//h2")]
    assert titles == ["Amendment 2"]
    assert page.xpath(f'//article[@data-amendment="{second.pk}"]')
    note = page.get_element_by_id("public-amendments-note").text_content()
    assert "Rejected and pending amendments are not listed" in note
    client.force_login(chair)
    page = lxml.html.fromstring(
        client.get(reverse("registry:amendments", args=[IDENTIFIER])).content
    )
    titles = [h.text_content() for h in page.xpath("//article//h2")]
    assert sorted(titles) == ["Amendment 1", "Amendment 2"]


def test_year_filters_say_they_filter_the_year_of_registration(client, registration):
    """A design registered in 2026 for MICCAI 2027 is not found by "2027":
    the filters must say which year they mean (list and statistics agree)."""
    for url in (reverse("registry:public-list"), reverse("publicrecord:statistics")):
        page = lxml.html.fromstring(client.get(url).content)
        year = page.xpath("//input[@name='year']")[0]
        label = page.xpath(f"//label[@for='{year.get('id')}']")[0]
        assert label.text_content() == "Year registered"
    later = registration.created.year + 1
    found = client.get(reverse("registry:public-list") + f"?year={later}").content
    assert b'data-registration="miccai-2027-001"' not in found


def test_design_pdf_says_of_unanswered_parameters_what_the_page_says(
    client, call, organizer, chair
):
    """A registered design is not a draft: the page says "not applicable yet"
    for the outcome and "not answered at registration" otherwise; the PDF
    printed "MISSING (optional parameter)" for both. An unanswered parameter is
    not "not applicable": the quality profile counts it as missing and the
    statistics not as not applicable."""
    challenge = proposal_with_scheme(call, organizer, SCHEME, skip=OUTCOME | {28})
    challenge.status = "accepted"
    challenge.save()
    register_challenge(challenge=challenge, actor=chair)
    page = client.get(detail()).content.decode()
    pdf = client.get(reverse("registry:version-pdf", args=[IDENTIFIER, 1]))
    text = " ".join(
        page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages
    )
    text = re.sub(r"\s+", " ", text)
    assert "MISSING" not in text
    assert "Not applicable: not answered" not in page + text
    for number, sentence in (
        (28, "Not answered at registration."),
        (52, "Not applicable yet: reported after the challenge has run."),
    ):
        assert f'data-not-applicable="p{number}">{sentence}<' in page
        assert re.search(rf"{number}\. [^.]+ {re.escape(sentence)}", text)


def test_live_design_pdf_of_a_registered_challenge_names_its_registration(
    client, registration, organizer, chair
):
    """Anyone can download the live design's PDF of a registered challenge;
    "Registered (revision 1)" beside registry version 2 reads as version 1."""
    amend(registration, organizer, chair)
    pdf = client.get(reverse("registry:design-pdf", args=[registration.challenge_id]))
    assert pdf.status_code == 200
    cover = re.sub(
        r"\s+", " ", PdfReader(io.BytesIO(pdf.content)).pages[0].extract_text()
    )
    assert f"Status Registered as {IDENTIFIER}, version 2 (the latest)" in cover
    assert "(revision" not in cover
    assert "each version's own design PDF and SHA-256" in cover


def test_public_amendments_page_marks_post_hoc_versions_not_organizer_advice(
    client, registration, organizer, chair
):
    """Readers see which amendments came after the results (as the versions
    list does); the advice on what approving will do is for the organizers."""
    before = amend(registration, organizer, chair)
    ResultsVersionFactory(registration=registration, uploaded_by=organizer)
    after = amend(registration, organizer, chair)
    url = reverse("registry:amendments", args=[IDENTIFIER])
    page = lxml.html.fromstring(client.get(url).content)
    marked = page.xpath("//article[.//*[@data-post-hoc]]/@data-amendment")
    assert marked == [str(after.pk)]
    assert str(before.pk) not in marked
    assert "will be marked" not in page.text_content()
    client.force_login(organizer)
    assert "will be marked" in client.get(url).content.decode()
