"""Attack: claim someone else's ORCID iD (issue 30).

Anyone could type anyone's iD (only the check digit was asked), two users held
the same one, Arabic-Indic digits were accepted, and the typed iD went into
DataCite and Zenodo as the person's. Now a typed iD is "unverified", shown as
such and left out of every export; an iD is exported only when ORCID itself
confirmed it (`publicrecord.profiles.set_verified_orcid`, what sign-in with
ORCID calls); one iD belongs to one account (a database constraint, and a
clear error on the API and the page); only the digits 0-9 are accepted.
"""

import json
import threading
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from publicrecord import orcid_signin
from publicrecord.citation import NAMESPACE, citation_record, schema_org
from publicrecord.deposit import zenodo_metadata
from publicrecord.models import ResearcherProfile
from publicrecord.profiles import set_verified_orcid
from tests.factories import UserFactory
from tests.publicrecord.conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db

ORCID = "0000-0002-1825-0097"
OTHER = "0000-0002-1694-233X"
ARABIC_INDIC = "٠٠٠٠-٠٠٠٢-١٨٢٥-٠٠٩٧"  # the same iD in Arabic-Indic digits
NS = {"d": NAMESPACE}


def patch_me(api, user, orcid):
    api.force_authenticate(user)
    return api.patch("/api/v1/me/", {"orcid": orcid}, format="json")


def datacite_orcids(api, registration) -> list[str]:
    xml = api.get(f"/api/v1/registrations/{registration.identifier}/datacite.xml")
    root = ET.fromstring(xml.content)
    return [i.text for i in root.findall(".//d:creator/d:nameIdentifier", NS)]


def every_export(api, registration) -> str:
    """DataCite XML and JSON, CSL-JSON, BibTeX, Zenodo and schema.org metadata of
    the latest version, as one text."""
    base = f"/api/v1/registrations/{registration.identifier}/"
    served = [
        api.get(base + name).content.decode()
        for name in ("datacite.xml", "datacite.json", "citation.json", "citation.bib")
    ]
    record = citation_record(registration.versions.get(number=1))
    made = [json.dumps(zenodo_metadata(record)), json.dumps(schema_org(record))]
    return "\n".join(served + made)


def test_arabic_indic_digits_are_refused_with_a_clear_message(api, organizer):
    response = patch_me(api, organizer, ARABIC_INDIC)
    assert response.status_code == 400
    assert response.json() == {
        "orcid": [
            f"orcid: write the iD with the digits 0-9 only; {ARABIC_INDIC!r} "
            "contains '٠' (ARABIC-INDIC DIGIT ZERO)."
        ]
    }
    assert not ResearcherProfile.objects.exclude(orcid="").exists()


def test_full_width_digits_are_refused(api, organizer):
    response = patch_me(api, organizer, "０000-0002-1825-0097")
    assert response.status_code == 400
    assert "FULLWIDTH DIGIT ZERO" in response.json()["orcid"][0]


def test_two_accounts_cannot_hold_one_orcid_on_the_api(api, organizer):
    assert patch_me(api, organizer, ORCID).status_code == 200
    impostor = UserFactory(username="impostor")
    response = patch_me(api, impostor, f"https://orcid.org/{ORCID}")
    assert response.status_code == 400
    assert response.json() == {
        "orcid": [
            f"orcid: {ORCID} is already claimed by another account; an ORCID iD "
            "belongs to one person. If it is yours, ask the registry's staff."
        ]
    }
    assert ResearcherProfile.objects.get(orcid=ORCID).user == organizer


def test_two_accounts_cannot_hold_one_orcid_on_the_page(client, organizer):
    ResearcherProfile.objects.create(user=organizer, orcid=ORCID)
    impostor = UserFactory(username="impostor")
    client.force_login(impostor)
    page = client.post(
        "/profile/", {"orcid": ORCID.replace("-", ""), "first_name": "I"}
    )
    assert page.status_code == 200
    body = page.content.decode()
    assert 'data-error-for="orcid"' in body
    assert "is already claimed by another account" in body
    assert not ResearcherProfile.objects.filter(user=impostor).exclude(orcid="")


def test_the_database_refuses_a_second_holder(organizer):
    ResearcherProfile.objects.create(user=organizer, orcid=ORCID)
    with pytest.raises(IntegrityError), transaction.atomic():
        ResearcherProfile.objects.create(user=UserFactory(), orcid=ORCID)
    # accounts without an iD are not one "" holder
    ResearcherProfile.objects.create(user=UserFactory(), orcid="")
    ResearcherProfile.objects.create(user=UserFactory(), orcid="")


def test_a_typed_orcid_is_shown_unverified_and_never_exported(
    api, client, call, organizer, chair
):
    assert patch_me(api, organizer, ORCID).json()["orcid_verified"] is False
    registration = registered(call, organizer, chair, name="Typed", scheme=CLEAN_SCHEME)
    api.force_authenticate(None)
    assert datacite_orcids(api, registration) == []
    assert ORCID not in every_export(api, registration)
    client.force_login(organizer)
    page = client.get("/profile/").content.decode()
    assert "unverified" in page
    assert "left out of the DataCite, Zenodo and schema.org metadata" in page


def test_an_orcid_confirmed_by_orcid_is_exported(api, client, call, organizer, chair):
    set_verified_orcid(organizer, ORCID)
    registration = registered(
        call, organizer, chair, name="Proven", scheme=CLEAN_SCHEME
    )
    assert datacite_orcids(api, registration) == [f"https://orcid.org/{ORCID}"]
    assert f"https://orcid.org/{ORCID}" in json.dumps(
        schema_org(citation_record(registration.versions.get()))
    )
    client.force_login(organizer)
    assert (
        "ORCID confirmed that this iD is yours"
        in client.get("/profile/").content.decode()
    )


def test_typing_over_a_verified_orcid_makes_it_unverified(api, organizer):
    set_verified_orcid(organizer, ORCID)
    assert patch_me(api, organizer, ORCID).json()["orcid_verified"] is True  # same
    assert patch_me(api, organizer, OTHER).json()["orcid_verified"] is False


def test_the_confirmed_owner_takes_the_orcid_from_a_squatter(api, organizer):
    squatter = UserFactory(username="squatter")
    assert patch_me(api, squatter, ORCID).status_code == 200
    set_verified_orcid(organizer, ORCID)
    assert ResearcherProfile.objects.get(orcid=ORCID).user == organizer
    assert ResearcherProfile.objects.get(user=squatter).orcid == ""
    # and the squatter cannot take it back
    assert patch_me(api, squatter, ORCID).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_orcids_frozen_before_verification_are_not_exported(
    api, call, organizer, chair
):
    registration = registered(call, organizer, chair, name="Old", scheme=CLEAN_SCHEME)
    ResearcherProfile.objects.create(user=organizer, orcid=ORCID)  # typed
    # citations frozen by the earlier code (migration 0003 backfills from the
    # profiles as they are): the typed iD, no verification flag
    call_command("migrate", "publicrecord", "0002_deposit", verbosity=0)
    call_command("migrate", "publicrecord", verbosity=0)
    version = registration.versions.get()
    [creator] = version.frozen_citation.creators
    assert creator["orcid"] == ORCID
    assert "orcid_verified" not in creator
    assert [c.orcid for c in citation_record(version).creators] == [""]
    assert ORCID not in every_export(api, registration)


@pytest.mark.django_db(transaction=True)
def test_the_migration_clears_an_orcid_several_accounts_held(organizer):
    call_command("migrate", "publicrecord", "0004_publication", verbosity=0)
    other, third = UserFactory(), UserFactory()
    table = ResearcherProfile._meta.db_table
    with connection.cursor() as cursor:  # the model as it was: no constraint
        for user, orcid in ((organizer, ORCID), (other, ORCID), (third, OTHER)):
            cursor.execute(
                f"INSERT INTO {table} (user_id, orcid) VALUES (%s, %s)",
                [user.pk, orcid],
            )
    call_command("migrate", "publicrecord", verbosity=0)
    held = dict(ResearcherProfile.objects.values_list("user__username", "orcid"))
    assert held == {organizer.username: "", other.username: "", third.username: OTHER}


# --- sign-in with ORCID (off unless configured; no network in these tests) --------

ORCID_SETTINGS = {
    "ORCID_CLIENT_ID": "APP-TEST",
    "ORCID_CLIENT_SECRET": "client-secret",
    "ORCID_URL": "https://sandbox.orcid.org",
    "SITE_URL": "https://registry.example.org",
}


@pytest.fixture
def orcid_answers(monkeypatch, settings):
    """ORCID configured; its token endpoint answers from the returned list and
    records each call (url, form)."""
    for name, value in ORCID_SETTINGS.items():
        setattr(settings, name, value)
    calls = []
    answers = [{"orcid": ORCID, "name": "Olga Organa", "access_token": "t"}]

    def post_token(url, body):
        calls.append((url, dict(parse_qsl(body.decode()))))
        return answers.pop(0)

    monkeypatch.setattr(orcid_signin, "_post_token", post_token)
    return calls


def start(client) -> str:
    """Begin sign-in with ORCID; the `state` sent to ORCID."""
    response = client.post("/profile/orcid/")
    assert response.status_code == 302
    url = urlsplit(response.url)
    assert (url.scheme, url.netloc, url.path) == (
        "https",
        "sandbox.orcid.org",
        "/oauth/authorize",
    )
    query = dict(parse_qsl(url.query))
    assert query["scope"] == "/authenticate"
    assert query["redirect_uri"] == (
        "https://registry.example.org/profile/orcid/return/"
    )
    return query["state"]


def test_orcid_signin_is_off_unless_configured(client, organizer):
    client.force_login(organizer)
    assert client.post("/profile/orcid/").status_code == 404
    assert client.get("/profile/orcid/return/?code=x&state=y").status_code == 404
    assert 'id="orcid-signin"' not in client.get("/profile/").content.decode()


def test_signing_in_with_orcid_verifies_the_id(client, organizer, orcid_answers):
    client.force_login(organizer)
    assert 'id="orcid-signin"' in client.get("/profile/").content.decode()
    state = start(client)
    response = client.get(f"/profile/orcid/return/?code=c0de&state={state}")
    assert response.status_code == 302
    [(url, form)] = orcid_answers
    assert url == "https://sandbox.orcid.org/oauth/token"
    assert form == {
        "client_id": "APP-TEST",
        "client_secret": "client-secret",
        "grant_type": "authorization_code",
        "code": "c0de",
        "redirect_uri": "https://registry.example.org/profile/orcid/return/",
    }
    profile = ResearcherProfile.objects.get(user=organizer)
    assert (profile.orcid, profile.orcid_verified) == (ORCID, True)


def test_an_answer_with_another_state_verifies_nothing(
    client, organizer, orcid_answers
):
    client.force_login(organizer)
    start(client)
    client.get("/profile/orcid/return/?code=c0de&state=forged")
    assert orcid_answers == []  # the code was not even exchanged
    assert not ResearcherProfile.objects.filter(orcid_verified=True).exists()


def test_the_state_is_used_once(client, organizer, orcid_answers):
    client.force_login(organizer)
    state = start(client)
    client.get(f"/profile/orcid/return/?code=c0de&state={state}")
    ResearcherProfile.objects.filter(user=organizer).update(orcid_verified=False)
    replay = client.get(f"/profile/orcid/return/?code=c0de&state={state}")
    assert replay.status_code == 302
    assert len(orcid_answers) == 1
    assert not ResearcherProfile.objects.filter(orcid_verified=True).exists()


def test_a_refusal_at_orcid_verifies_nothing(client, organizer, orcid_answers):
    client.force_login(organizer)
    state = start(client)
    response = client.get(
        f"/profile/orcid/return/?error=access_denied&state={state}", follow=True
    )
    assert "ORCID confirmed no iD: access_denied" in response.content.decode()
    assert orcid_answers == []
    assert not ResearcherProfile.objects.filter(orcid_verified=True).exists()


def test_the_client_secret_follows_no_redirect():
    """The token request to a server that redirects fails instead of
    re-sending the secret (a local server; no network)."""

    class Redirecting(BaseHTTPRequestHandler):
        def do_POST(self):
            self.send_response(307)
            self.send_header("Location", "http://198.51.100.1/steal")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Redirecting)
    thread = threading.Thread(target=server.handle_request)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/oauth/token"
    with pytest.raises(orcid_signin.OrcidSigninError, match="ORCID answered HTTP 307"):
        orcid_signin._post_token(url, b"client_secret=s")
    thread.join(5)
    server.server_close()
