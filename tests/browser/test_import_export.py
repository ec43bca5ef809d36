import json

import pytest

from registry import services
from registry.exports import export_challenge
from registry.models import Challenge
from tests.browser.helpers import assert_on_screen, phone_sized, sign_in
from tests.factories import CallFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_organizer_exports_and_imports_a_proposal(page, tmp_path):
    olga = UserFactory(username="olga")
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    original = services.create_challenge(owner=olga, call=call, name="Decathlon")
    services.add_task(challenge=original, name="Brain", actor=olga)
    sign_in(page, "olga")

    page.goto("/proposals/import/")
    # On a phone the proposal is a card: its status and export links on screen.
    with phone_sized(page):
        assert_on_screen(page.locator("#exports td"))
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Export JSON").click()
    path = tmp_path / "proposal.json"
    download_info.value.save_as(path)
    assert json.loads(path.read_text())["tasks"][0]["name"] == "Brain"

    page.set_input_files("input[name=file]", str(path))
    page.get_by_role("button", name="Import JSON").click()
    page.wait_for_url("**/proposals/")

    assert "Imported “Decathlon” as a new draft" in page.content()
    copy = Challenge.objects.exclude(pk=original.pk).get()
    assert export_challenge(copy)["tasks"] == export_challenge(original)["tasks"]


def test_import_page_lists_the_errors_of_a_bad_file(page, tmp_path):
    UserFactory(username="olga")
    CallFactory(slug="miccai-2027")
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"schema": "challenge-registry/proposal", "schema_version": 9})
    )
    sign_in(page, "olga")

    page.goto("/proposals/import/")
    page.set_input_files("input[name=file]", str(bad))
    page.get_by_role("button", name="Import JSON").click()

    errors = page.locator("#import-errors")
    assert "schema_version: 9 is not supported" in errors.inner_text()
    assert Challenge.objects.count() == 0
