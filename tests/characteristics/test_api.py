"""Case metadata and model runs through the API (preview → commit → run)."""

import pytest

from characteristics.models import CaseMetadataVersion, CaseModelRun
from tests.factories import UserFactory

from .conftest import SPEC, metadata_file

pytestmark = pytest.mark.django_db


def _post_metadata(api, results, data, *, commit, name="meta.csv"):
    suffix = "?commit=true" if commit else ""
    return api.post(
        f"/api/v1/results/{results.pk}/case-metadata/{suffix}",
        {"file": metadata_file(data, name)},
        format="multipart",
    )


def test_preview_reports_the_checks_and_stores_nothing(organizer_api, results, tables):
    meta = tables[1].replace(b"\nc000,", b"\nx999,")  # one unknown, one missing
    response = _post_metadata(organizer_api, results, meta, commit=False)
    assert response.status_code == 200
    checks = response.json()
    assert checks["metadata_without_results"] == ["x999"]
    assert checks["cases_without_metadata"] == ["c000"]
    assert {c["name"]: c["kind"] for c in checks["columns"]} == {
        "blur": "numeric",
        "occluded": "binary",
        "patient": "categorical",
    }
    assert CaseMetadataVersion.objects.count() == 0


def test_commit_stores_an_immutable_numbered_version(organizer_api, results, tables):
    first = _post_metadata(organizer_api, results, tables[1], commit=True)
    second = _post_metadata(organizer_api, results, tables[1], commit=True)
    assert (first.status_code, second.status_code) == (201, 201)
    assert [first.json()["version"], second.json()["version"]] == [1, 2]
    assert first.json()["sha256"] == second.json()["sha256"]
    listed = organizer_api.get(f"/api/v1/results/{results.pk}/case-metadata/").json()
    assert [v["version"] for v in listed] == [1, 2]


def test_a_table_without_case_column_is_refused(organizer_api, results):
    response = _post_metadata(organizer_api, results, b"id,blur\n1,0.5\n", commit=True)
    assert response.status_code == 400
    assert response.json()["errors"] == ["the metadata table has no 'case' column"]
    assert CaseMetadataVersion.objects.count() == 0


def test_run_fits_every_model_and_labels_it_exploratory(organizer_api, results, tables):
    version = _post_metadata(organizer_api, results, tables[1], commit=True).json()
    response = organizer_api.post(
        f"/api/v1/case-metadata/{version['id']}/models/", SPEC, format="json"
    )
    assert response.status_code == 202
    run = organizer_api.get(f"/api/v1/case-models/{response.json()['id']}/").json()
    assert run["status"] == "done"
    assert run["exploratory"] is True
    output = run["output"]
    assert [m["algorithm"] for m in output["models"]] == [None, "A1", "A2", "A3"]
    blur = next(f for f in output["models"][0]["fixed"] if f["term"] == "blur")
    assert blur["ci_low"] > 0  # the simulated effect (log-odds 2) is found
    assert output["exploratory"] is True


def test_bad_specification_is_refused_and_nothing_is_queued(
    organizer_api, results, tables
):
    version = _post_metadata(organizer_api, results, tables[1], commit=True).json()
    response = organizer_api.post(
        f"/api/v1/case-metadata/{version['id']}/models/",
        {**SPEC, "characteristics": ["glare"]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == ["unknown column 'glare' in the metadata"]
    assert CaseModelRun.objects.count() == 0


def test_outsiders_see_nothing_and_chairs_cannot_upload(api, chair, results, tables):
    api.force_authenticate(UserFactory(username="mallory"))
    assert _post_metadata(api, results, tables[1], commit=True).status_code == 404
    api.force_authenticate(chair)
    assert _post_metadata(api, results, tables[1], commit=True).status_code == 403
    assert CaseMetadataVersion.objects.count() == 0


def test_report_pdf_is_served_for_a_finished_run(organizer_api, results, tables):
    version = _post_metadata(organizer_api, results, tables[1], commit=True).json()
    run = organizer_api.post(
        f"/api/v1/case-metadata/{version['id']}/models/", SPEC, format="json"
    ).json()
    response = organizer_api.get(f"/api/v1/case-models/{run['id']}/report.pdf")
    assert response.status_code == 200
    assert b"".join(response.streaming_content).startswith(b"%PDF")


def test_report_pdf_is_409_while_the_run_has_no_output(organizer_api, results, tables):
    version = _post_metadata(organizer_api, results, tables[1], commit=True).json()
    run = organizer_api.post(
        f"/api/v1/case-metadata/{version['id']}/models/", SPEC, format="json"
    ).json()
    CaseModelRun.objects.filter(pk=run["id"]).update(output=None, status="queued")
    response = organizer_api.get(f"/api/v1/case-models/{run['id']}/report.pdf")
    assert response.status_code == 409
    assert response.json() == {"detail": "The run has no output (status queued)."}


def test_hidden_results_answer_as_missing_ones(api, results):
    """No existence leak: the same 404 for results one may not see and none."""
    api.force_authenticate(UserFactory(username="mallory"))
    hidden = api.get(f"/api/v1/results/{results.pk}/case-metadata/")
    missing = api.get(f"/api/v1/results/{results.pk + 1000}/case-metadata/")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json() == {"detail": "No such results version."}
