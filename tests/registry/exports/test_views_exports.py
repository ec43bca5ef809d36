import json

import lxml.html
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from registry.exports import export_challenge
from registry.models import Challenge

pytestmark = pytest.mark.django_db


def upload(document, name="proposal.json"):
    return SimpleUploadedFile(
        name, json.dumps(document).encode(), content_type="application/json"
    )


def test_import_page_lists_export_links(client, organizer, proposal):
    client.force_login(organizer)

    response = client.get("/proposals/import/")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'enctype="multipart/form-data"' in html
    assert f'href="/proposals/{proposal.pk}/export.json"' in html
    assert f'href="/proposals/{proposal.pk}/design.pdf"' in html


def test_import_page_requires_sign_in(client, db):
    response = client.get("/proposals/import/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_import_page_creates_a_draft_and_redirects(client, organizer, proposal):
    client.force_login(organizer)
    before = Challenge.objects.count()

    response = client.post(
        "/proposals/import/", {"file": upload(export_challenge(proposal))}
    )

    assert response.status_code == 302
    assert response["Location"] == "/proposals/"
    assert Challenge.objects.count() == before + 1


def test_my_proposals_tells_an_imported_copy_from_its_original(
    client, organizer, proposal
):
    client.force_login(organizer)
    file = upload(export_challenge(proposal), name="brain <2027>.json")
    client.post("/proposals/import/", {"file": file})
    copy = Challenge.objects.exclude(pk=proposal.pk).get(name=proposal.name)
    assert copy.imported_from == "brain <2027>.json"

    html = client.get("/proposals/").content.decode()
    rows = {
        row.get("data-proposal"): row
        for row in lxml.html.fromstring(html).xpath("//tr[@data-proposal]")
    }
    imported = rows[str(copy.pk)].xpath(".//*[@data-imported]")
    assert "imported from brain <2027>.json on" in imported[0].text_content()
    assert rows[str(proposal.pk)].xpath(".//*[@data-imported]") == []


def test_import_page_says_the_file_is_not_an_export_in_plain_words(client, organizer):
    client.force_login(organizer)
    file = SimpleUploadedFile("slides.pdf", b"%PDF-1.7\n\xe2\xe3\xcf\xd3")
    html = client.post("/proposals/import/", {"file": file}).content.decode()
    assert "The file is not an exported proposal: it is not plain text" in html
    assert "file: is" not in html


def test_import_page_shows_escaped_errors_and_creates_nothing(
    client, organizer, proposal
):
    document = export_challenge(proposal)
    document["tasks"].append({"name": "<script>x</script>", "answers": []})
    document["tasks"].append({"name": "<script>x</script>", "answers": []})
    client.force_login(organizer)
    before = Challenge.objects.count()

    response = client.post("/proposals/import/", {"file": upload(document)})

    assert response.status_code == 200
    html = response.content.decode()
    assert "The file was not imported." in html
    assert (
        "tasks[3].name: &#x27;&lt;script&gt;x&lt;/script&gt;&#x27; is already" in html
    )
    assert "<script>x</script>" not in html
    assert Challenge.objects.count() == before


def test_export_json_page_downloads_for_organizer(client, organizer, proposal):
    client.force_login(organizer)

    response = client.get(f"/proposals/{proposal.pk}/export.json")

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert json.loads(response.content)["name"] == "Decathlon"


def test_design_pdf_page_is_a_pdf(client, organizer, proposal):
    client.force_login(organizer)

    response = client.get(f"/proposals/{proposal.pk}/design.pdf")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")


@pytest.mark.parametrize("suffix", ["export.json", "design.pdf"])
def test_export_pages_are_404_for_other_users(client, stranger, proposal, suffix):
    client.force_login(stranger)

    response = client.get(f"/proposals/{proposal.pk}/{suffix}")

    assert response.status_code == 404
