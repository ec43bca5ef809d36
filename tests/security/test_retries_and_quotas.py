"""Attack (or accident): the same upload stored twice; previews filling the disk."""

import threading

import pytest
from django.db import connection
from django.test import override_settings

from analysis import staging
from analysis.models import ResultsVersion
from tests.analysis.django.conftest import results_csv
from tests.analysis.django.test_results_api import URL
from tests.analysis.django.test_results_views import post_upload, staged_files

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def api_commit(api, data, *, key=None, query=""):
    from django.core.files.uploadedfile import SimpleUploadedFile

    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    file = SimpleUploadedFile("results.csv", data, content_type="text/csv")
    return api.post(
        URL + "?commit=true" + query, {"file": file}, format="multipart", **headers
    )


def test_same_idempotency_key_returns_the_first_version(organizer_api, registration):
    first = api_commit(organizer_api, results_csv(), key="upload-7")
    again = api_commit(organizer_api, results_csv(), key="upload-7")
    assert first.status_code == 201
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert ResultsVersion.objects.count() == 1


def test_idempotency_key_reused_for_another_file_is_422(organizer_api, registration):
    api_commit(organizer_api, results_csv(seed=1), key="upload-7")
    response = api_commit(organizer_api, results_csv(seed=2), key="upload-7")
    assert response.status_code == 422
    assert "version 1" in response.json()["detail"]
    assert ResultsVersion.objects.count() == 1


def test_same_file_again_is_409_naming_the_version(organizer_api, registration):
    api_commit(organizer_api, results_csv())
    response = api_commit(organizer_api, results_csv())
    assert response.status_code == 409
    body = response.json()
    assert "identical to results version 1" in body["detail"]
    assert body["version"] == 1
    assert ResultsVersion.objects.count() == 1
    forced = api_commit(organizer_api, results_csv(), query="&new_version=true")
    assert (forced.status_code, forced.json()["version"]) == (201, 2)


def test_web_double_commit_stores_one_version(client, organizer, registration):
    client.force_login(organizer)
    preview = post_upload(client, results_csv())
    responses = [client.post(preview["Location"] + "commit/") for _ in range(2)]
    assert [r.status_code for r in responses] == [302, 302]
    assert ResultsVersion.objects.count() == 1


def test_web_commit_of_an_identical_file_asks_first(client, organizer, registration):
    client.force_login(organizer)
    client.post(post_upload(client, results_csv())["Location"] + "commit/")
    preview = post_upload(client, results_csv())
    page = client.get(preview["Location"]).content.decode()
    assert "identical to results version 1" in page
    refused = client.post(preview["Location"] + "commit/")
    assert refused["Location"] == preview["Location"]
    assert ResultsVersion.objects.count() == 1
    client.post(preview["Location"] + "commit/", {"new_version": "on"})
    assert ResultsVersion.objects.count() == 2


def stage(session, organizer, registration, data: bytes, lines: bytes = b"") -> str:
    """Stage ``data`` (and ``lines``) as the organizer's preview of "r.csv"; its
    token."""
    return staging.stage_upload(
        session=session,
        user=organizer,
        registration=registration,
        name="r.csv",
        data=data,
        teams={},
        lines=lines,
    )


def test_claim_is_one_time(organizer, registration, rf):
    session = {}
    token = stage(session, organizer, registration, b"x")
    claims = []

    def claim():
        claimed = staging.claim_upload(
            session=session, user=organizer, registration=registration, token=token
        )
        claims.append(claimed)

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(c is not None for c in claims) == 1
    connection.close()


@override_settings(MAX_STAGED_UPLOADS_PER_USER=3)
def test_previews_per_user_are_capped_oldest_purged(organizer, registration):
    session = {}
    for number in range(5):
        stage(session, organizer, registration, b"x" * (number + 1))
    assert sorted(p.stat().st_size for p in staged_files()) == [3, 4, 5]


@override_settings(MAX_STAGED_BYTES_PER_USER=10)
def test_preview_bytes_per_user_are_capped(organizer, registration):
    session = {}
    for _ in range(3):
        stage(session, organizer, registration, b"x" * 4)
    assert sum(p.stat().st_size for p in staged_files()) == 8
    with pytest.raises(staging.StagingError, match="limited to 10 bytes"):
        stage(session, organizer, registration, b"x" * 11)


def staged_bytes() -> int:
    """All the disk the previews take: their CSVs and their lines."""
    return sum(p.stat().st_size for p in staging.staging_dir().iterdir())


@override_settings(MAX_STAGED_BYTES_PER_USER=10)
def test_preview_bytes_per_user_count_the_lines_kept_beside(organizer, registration):
    session = {}
    stage(session, organizer, registration, b"x" * 4, lines=b"l" * 4)
    stage(session, organizer, registration, b"y" * 4)
    # 8 + 4 bytes do not fit in 10: the first preview went, its lines with it
    assert [p.read_bytes() for p in staged_files()] == [b"y" * 4]
    assert staged_bytes() == 4
    with pytest.raises(staging.StagingError, match="takes 14 bytes"):
        stage(session, organizer, registration, b"x" * 6, lines=b"l" * 8)
    assert staged_bytes() == 4


@override_settings(MAX_STAGED_BYTES_PER_USER=10, MAX_STAGED_UPLOADS_PER_USER=2)
def test_an_upload_being_committed_counts_and_is_kept(organizer, registration):
    session = {}
    token = stage(session, organizer, registration, b"c" * 4, lines=b"l" * 2)
    claimed = staging.claim_upload(
        session=session, user=organizer, registration=registration, token=token
    )
    stage(session, organizer, registration, b"x" * 3)
    # 6 bytes being committed + 3 + 3 do not fit in 10: the preview goes
    stage(session, organizer, registration, b"y" * 3)
    assert [p.read_bytes() for p in staged_files()] == [b"y" * 3]
    assert staged_bytes() == 9
    # no room beside the commit even with every preview gone: refused, and
    # nothing purged
    with pytest.raises(staging.StagingError, match="still being stored"):
        stage(session, organizer, registration, b"z" * 5)
    assert claimed.read() == b"c" * 4
    assert claimed.read_lines() == b"l" * 2
    assert staged_bytes() == 9
