import io
import json

import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from analysis.models import AnalysisRun, ResultsVersion
from ranking import vocabulary
from tests.analysis.django.conftest import results_csv
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/registrations/miccai-2027-001/results/"


def upload(api, data, *, name="results.csv", commit=False, **extra):
    file = SimpleUploadedFile(name, data, content_type="text/csv")
    url = URL + ("?commit=true" if commit else "")
    return api.post(url, {"file": file, **extra}, format="multipart")


def test_preview_stores_nothing_and_counts(organizer_api, registration):
    response = upload(organizer_api, results_csv(n_cases=90))
    assert response.status_code == 200
    preview = response.json()
    assert preview["rows"] == 2 * 4 * 90 * 2
    assert preview["tasks"]["Brain"]["cases"] == 90
    assert preview["tasks"]["Brain"]["registered_test_cases"] == 100
    assert {f["code"] for f in preview["findings"]} == {"case_count_mismatch"}
    assert {f["severity"] for f in preview["findings"]} == {"warning"}
    assert ResultsVersion.objects.count() == 0


def test_preview_marks_an_unregistered_task_a_problem(organizer_api, registration):
    response = upload(organizer_api, results_csv(tasks=("Brain", "Lung")))
    found = {f["code"]: f["severity"] for f in response.json()["findings"]}
    assert found["unknown_task"] == "problem"


def test_invalid_file_is_refused_with_row_errors(organizer_api, registration):
    def break_rows(frame):
        frame.loc[3, "value"] = "n.a.x"
        return frame

    response = upload(organizer_api, results_csv(edit=break_rows), commit=True)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        "line 5: value 'n.a.x' is not a number; expected a number such as 0.93, "
        "or an empty cell for a missing result"
    ]
    assert ResultsVersion.objects.count() == 0


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("results.txt", b"task,case\n", "Upload a .csv or .xlsx file."),
        ("results.csv", b"   ", "The file is empty."),
        ("results.csv", b"\xff\xfe\x00", "not UTF-8"),
        ("results.xlsx", b"not a zip", "not a valid Excel workbook"),
    ],
)
def test_bad_files_are_refused(organizer_api, registration, name, data, message):
    response = upload(organizer_api, data, name=name, commit=True)
    assert response.status_code == 400
    assert message in response.json()["errors"][0]


def test_only_organizers_upload_and_others_see_nothing(api, registration, chair):
    api.force_authenticate(UserFactory())
    assert upload(api, results_csv()).status_code == 404
    api.force_authenticate(chair)
    assert upload(api, results_csv()).status_code == 403


def test_commit_run_and_rerun_are_reproducible(organizer_api, registration):
    committed = upload(organizer_api, results_csv(), commit=True)
    assert committed.status_code == 201
    body = committed.json()
    assert body["version"] == 1
    second = upload(organizer_api, results_csv(seed=1), commit=True).json()
    assert second["version"] == 2  # a new version; the first one is kept
    assert ResultsVersion.objects.get(pk=body["id"]).sha256 == body["sha256"]

    outputs = []
    for _ in range(2):
        started = organizer_api.post(
            f"/api/v1/results/{body['id']}/analyses/", {}, format="json"
        )
        assert started.status_code == 202
        run = organizer_api.get(f"/api/v1/analyses/{started.json()['id']}/").json()
        assert (run["status"], run["progress"], run["exploratory"]) == (
            "done",
            100,
            False,
        )
        outputs.append(json.dumps(run["output"], sort_keys=True))
    assert outputs[0] == outputs[1]
    output = json.loads(outputs[0])
    brain = output["rankings"]["DSC"]["tasks"]["Brain"]
    assert brain["ranks"] == {"A1": 1, "A2": 2, "A3": 3, "A4": 4}
    assert output["rankings"]["DSC"]["consensus"]["ranks"]["A1"] == 1
    assert output["scheme"]["uncertainty"]["seed"] == 7


def test_exploratory_analysis_is_labelled_and_flags_the_scheme(
    organizer_api, registration
):
    results = upload(organizer_api, results_csv(), commit=True).json()
    scheme = {
        "metric": "NSD",
        "higher_is_better": True,
        "method": "aggregate_then_rank",
        "aggregate": "median",
        "missing": {"policy": "ignore"},
        "uncertainty": {"bootstrap": 20, "seed": 3},
    }
    started = organizer_api.post(
        f"/api/v1/results/{results['id']}/analyses/", {"scheme": scheme}, format="json"
    )
    run = organizer_api.get(f"/api/v1/analyses/{started.json()['id']}/").json()
    assert run["exploratory"] is True
    assert run["status"] == "done"
    deviations = organizer_api.get(
        f"/api/v1/analyses/{started.json()['id']}/deviations/"
    ).json()
    assert {d["code"] for d in deviations} == {"scheme_changed"}
    assert all(d["severity"] == "critical" for d in deviations)


def test_invalid_exploratory_scheme_is_refused(organizer_api, registration):
    results = upload(organizer_api, results_csv(), commit=True).json()
    response = organizer_api.post(
        f"/api/v1/results/{results['id']}/analyses/",
        {"scheme": {"metric": "DSC", "higher_is_better": True, "method": "magic"}},
        format="json",
    )
    assert response.status_code == 400
    assert "method" in str(response.json())
    assert AnalysisRun.objects.count() == 0


def test_crafted_upload_produces_each_deviation(organizer_api, registration, chair):
    """Wrong case count, withheld hardest cases, unregistered metric, organizer team,
    post-hoc amendment."""
    first = upload(organizer_api, results_csv(), commit=True).json()
    amendment = organizer_api.post(
        "/api/v1/registrations/miccai-2027-001/amendments/",
        {
            "justification": "Clarify the website.",
            "challenge": {"2": "https://moved.example.org"},
        },
        format="json",
    ).json()
    chair_api = APIClient()
    chair_api.force_authenticate(chair)
    approved = chair_api.post(f"/api/v1/amendments/{amendment['id']}/approve/")
    assert approved.json()["version"] == 2

    def craft(frame):
        frame = frame[frame["case"] != "case099"].copy()  # 99 cases, 100 registered
        brain_dsc = frame[(frame["task"] == "Brain") & (frame["metric"] == "DSC")]
        others = brain_dsc[brain_dsc["algorithm"] != "A2"]
        hardest = others.groupby("case")["value"].mean().astype(float)
        hardest = hardest.nsmallest(8).index
        withheld = (
            (frame["task"] == "Brain")
            & (frame["algorithm"] == "A2")
            & (frame["case"].isin(hardest))
        )
        frame.loc[withheld, "value"] = ""
        extra = frame[frame["metric"] == "NSD"].assign(metric="HD95", value=3.0)
        frame = frame.assign(
            team=frame["algorithm"].map(
                {"A1": "Home team", "A2": "B", "A3": "C", "A4": "D"}
            )
        )
        extra = extra.assign(
            team=extra["algorithm"].map(
                {"A1": "Home team", "A2": "B", "A3": "C", "A4": "D"}
            )
        )
        return pd.concat([frame, extra], ignore_index=True)

    institution = registration.challenge.owner.profile.institution
    response = upload(
        organizer_api,
        results_csv(edit=craft),
        commit=True,
        teams=json.dumps({"Home team": institution}),
    )
    assert response.status_code == 201, response.json()
    crafted = response.json()
    assert crafted["version"] == first["version"] + 1
    run_id = organizer_api.post(
        f"/api/v1/results/{crafted['id']}/analyses/", {}, format="json"
    ).json()["id"]
    run = organizer_api.get(f"/api/v1/analyses/{run_id}/").json()
    assert run["status"] == "done", run["error"]
    codes = {
        d["code"]
        for d in organizer_api.get(f"/api/v1/analyses/{run_id}/deviations/").json()
    }
    assert {
        "case_count_mismatch",
        "selective_submission_suspected",
        "unregistered_metric",
        "post_hoc_amendment",
        "organizer_participation",
        "missing_cases",
    } <= codes
    report = organizer_api.get(f"/api/v1/analyses/{run_id}/report.pdf")
    text = pdf_text(b"".join(report.streaming_content)).replace("\n", "")
    # Each kind in words (ranking.vocabulary), never as its code.
    # (table cells wrap: compared without white space)
    squeezed = "".join(text.split())
    missing_from_pdf = {
        code
        for code in codes
        if "".join(vocabulary.label(code).split()) not in squeezed
    }
    assert missing_from_pdf == set()
    assert {code for code in codes if code in text} == set()


def pdf_text(data: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


@pytest.mark.slow
def test_report_pdf_has_every_section_and_tables_download(
    organizer_api, registration, settings
):
    settings.ANALYSIS_REPORT_FIGURES = True
    results = upload(organizer_api, results_csv(n_cases=99), commit=True).json()
    run_id = organizer_api.post(
        f"/api/v1/results/{results['id']}/analyses/", {}, format="json"
    ).json()["id"]
    response = organizer_api.get(f"/api/v1/analyses/{run_id}/report.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    text = pdf_text(b"".join(response.streaming_content))
    for expected in (
        "miccai-2027-001",
        registration.versions.get().sha256[:16],
        results["sha256"][:16],
        "Number of test cases differs",  # case_count_mismatch, in words
        "Brain",
        "Heart",
        "A1",
        "BIAS",
    ):
        assert "".join(expected.split()) in "".join(text.split()), expected
    tables = organizer_api.get(f"/api/v1/analyses/{run_id}/tables/").json()
    assert {"rankings", "descriptive_statistics"} <= set(tables)
    csv = organizer_api.get(f"/api/v1/analyses/{run_id}/tables/?table=rankings")
    assert csv["Content-Type"] == "text/csv; charset=utf-8"
    assert (
        csv.content.decode()
        .splitlines()[0]
        .startswith("ranking,task,algorithm,rank,score")
    )


def test_report_is_409_until_ready(organizer_api, registration):
    results = upload(organizer_api, results_csv(), commit=True).json()
    run = organizer_api.post(
        f"/api/v1/results/{results['id']}/analyses/", {}, format="json"
    ).json()
    ready = organizer_api.get(f"/api/v1/analyses/{run['id']}/report.pdf")
    assert ready.status_code == 200
    assert b"".join(ready.streaming_content).startswith(b"%PDF")
    AnalysisRun.objects.filter(pk=run["id"]).update(report="")
    missing = organizer_api.get(f"/api/v1/analyses/{run['id']}/report.pdf")
    assert missing.status_code == 409


def test_tasks_under_different_schemes_get_one_report(
    organizer_api, registration, settings
):
    settings.ANALYSIS_REPORT_FIGURES = True
    results = upload(organizer_api, results_csv(n_cases=30), commit=True).json()
    by_median = {
        "metric": "NSD",
        "higher_is_better": True,
        "method": "aggregate_then_rank",
        "aggregate": "median",
        "uncertainty": {"bootstrap": 20, "seed": 5},
    }
    by_mean = {**by_median, "metric": "DSC", "aggregate": "mean"}
    started = organizer_api.post(
        f"/api/v1/results/{results['id']}/analyses/",
        {"schemes": {"Brain": by_median, "Heart": by_mean}},
        format="json",
    ).json()
    run = organizer_api.get(f"/api/v1/analyses/{started['id']}/").json()
    assert run["status"] == "done", run["error"]
    assert set(run["output"]["schemes"]) == {"Brain", "Heart"}
    report = organizer_api.get(f"/api/v1/analyses/{started['id']}/report.pdf")
    text = pdf_text(b"".join(report.streaming_content)).replace("\n", " ")
    assert "(tasks Brain)" in text
    assert "(tasks Heart)" in text


def test_a_hidden_run_answers_as_a_missing_one(api, results, chair):
    """No existence leak: the 404 of a run one may not see is the 404 of none."""
    run = AnalysisRun.objects.create(
        results=results, scheme={}, seed=1, requested_by=chair
    )
    api.force_authenticate(UserFactory(username="mallory"))
    hidden = api.get(f"/api/v1/analyses/{run.pk}/")
    missing = api.get(f"/api/v1/analyses/{run.pk + 1000}/")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json() == {"detail": "No such analysis."}


@pytest.mark.parametrize(
    ("commit", "stored"),
    [
        ("true", True),
        ("YES", True),
        ("on", True),
        ("1", True),
        ("no", False),
        ("", False),
    ],
)
def test_commit_flag_is_read_like_every_other_flag(
    organizer_api, registration, commit, stored
):
    response = organizer_api.post(
        f"{URL}?commit={commit}",
        {"file": SimpleUploadedFile("r.csv", results_csv(), "text/csv")},
        format="multipart",
    )
    assert response.status_code == (201 if stored else 200)
    assert ResultsVersion.objects.exists() is stored
