"""A run's PDF and figures are drawn once and served from storage (issues 28
and 30): the PDF had been redrawn on every GET (1–14 s), the run page's two
figures too (the demo's /case-models/1/ took 4.2 s to load)."""

import hashlib

import pytest
from django.test import override_settings
from django.urls import reverse

from characteristics import files, services
from characteristics.models import CaseModelFile, CaseModelRun

from .conftest import SPEC

pytestmark = pytest.mark.django_db

KINDS = ["global", "per-algorithm", "report"]


@pytest.fixture
def fit(metadata, organizer, django_capture_on_commit_callbacks):
    """Fit a specification by its job (synchronous in tests), as a page would."""

    def fit(spec) -> CaseModelRun:
        with django_capture_on_commit_callbacks(execute=True):
            run = services.start_case_model_run(
                metadata=metadata, spec=spec, actor=organizer
            )
        run.refresh_from_db()
        return run

    return fit


@pytest.fixture
def fitted(fit) -> CaseModelRun:
    run = fit(SPEC)
    assert run.status == "done"
    return run


def _body(response) -> bytes:
    """The streamed body (which closes the stored file)."""
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def _stored(record: CaseModelFile) -> bytes:
    with record.file.open("rb") as stream:
        return stream.read()


def _urls(run) -> dict[str, str]:
    return {
        "global": reverse("characteristics:plot", args=[run.pk, "global"]),
        "per-algorithm": reverse(
            "characteristics:plot", args=[run.pk, "per-algorithm"]
        ),
        "report": reverse("characteristics:report", args=[run.pk]),
    }


def test_the_fit_stores_its_pdf_and_figures_with_their_sha256(fitted):
    stored = {f.kind: f for f in fitted.files.all()}
    assert sorted(stored) == KINDS
    for kind, record in stored.items():
        content = _stored(record)
        assert record.sha256 == hashlib.sha256(content).hexdigest()
        assert content.startswith(b"%PDF" if kind == "report" else b"\x89PNG")


def test_gets_serve_the_stored_files_and_draw_nothing(fitted, client_in):
    stored = {f.kind: f for f in fitted.files.all()}
    drawn = dict(files.DRAWN)
    for _ in range(2):
        for kind, url in _urls(fitted).items():
            response = client_in.get(url)
            assert response.status_code == 200
            assert _body(response) == _stored(stored[kind])
            assert response["ETag"] == f'"{stored[kind].sha256}"'
    assert dict(files.DRAWN) == drawn


def test_the_api_serves_the_same_stored_pdf(fitted, organizer_api, client_in):
    drawn = dict(files.DRAWN)
    api = organizer_api.get(f"/api/v1/case-models/{fitted.pk}/report.pdf")
    page = client_in.get(_urls(fitted)["report"])
    assert _body(api) == _body(page) == _stored(fitted.files.get(kind="report"))
    assert dict(files.DRAWN) == drawn


def test_a_run_without_stored_files_draws_each_at_its_first_get_only(fitted, client_in):
    CaseModelFile.objects.all().delete()  # as a run finished before issue 30
    drawn = files.DRAWN.copy()
    for _ in range(3):
        for url in _urls(fitted).values():
            _body(client_in.get(url))
    assert files.DRAWN - drawn == dict.fromkeys(KINDS, 1)
    assert sorted(fitted.files.values_list("kind", flat=True)) == KINDS


def test_a_file_missing_from_storage_is_drawn_again(fitted, client_in):
    record = fitted.files.get(kind="report")
    record.file.storage.delete(record.file.name)
    drawn = files.DRAWN["report"]
    response = client_in.get(_urls(fitted)["report"])
    assert _body(response).startswith(b"%PDF")
    assert files.DRAWN["report"] == drawn + 1
    assert fitted.files.get(kind="report").file.storage.exists(
        fitted.files.get(kind="report").file.name
    )


def test_no_per_algorithm_figure_without_per_algorithm_models(fit, client_in):
    run = fit(SPEC | {"per_algorithm": False})
    assert sorted(run.files.values_list("kind", flat=True)) == ["global", "report"]
    url = reverse("characteristics:plot", args=[run.pk, "per-algorithm"])
    assert client_in.get(url).status_code == 404


@pytest.mark.parametrize("n_algorithms", [1, 3])
def test_the_run_page_loads_in_few_queries_and_draws_nothing(
    n_algorithms, fit, client_in, django_assert_num_queries
):
    """The first load of the page and of its figures, whatever the number of
    per-algorithm models: session, user, run (and the stored file); nothing
    drawn."""
    run = fit(SPEC | {"algorithms": ["A1", "A2", "A3"][:n_algorithms]})
    drawn = dict(files.DRAWN)
    with django_assert_num_queries(4):
        page = client_in.get(reverse("characteristics:run", args=[run.pk]))
    assert page.status_code == 200
    for kind in ("global", "per-algorithm"):
        with django_assert_num_queries(4):
            _body(client_in.get(_urls(run)[kind]))
    assert dict(files.DRAWN) == drawn


def test_a_fit_past_its_iteration_bound_fails_with_the_reason(fit):
    with override_settings(CASE_MODEL_MAX_ITERATIONS=3):
        run = fit(SPEC)
    assert run.status == "failed"
    assert run.error.startswith(
        "2 crossed groupings (patient, algorithm; 15 levels), 360 observations, "
        "3 fixed effects: the global model did not converge in 3 iterations "
        "(the iteration limit; "
    )
    assert not run.files.exists()


def test_a_fit_past_its_time_bound_fails_with_the_reason(fit, client_in):
    with override_settings(CASE_MODEL_MAX_SECONDS=0.001):
        run = fit(SPEC)
    assert run.status == "failed"
    assert "did not converge within 0.001 s (the time limit;" in run.error
    page = client_in.get(reverse("characteristics:run", args=[run.pk]))
    assert "did not converge within 0.001 s" in page.text


@override_settings(CASE_MODEL_MAX_GROUPINGS=0)
def test_more_groupings_than_the_limit_are_a_400_before_anything_is_queued(
    metadata, organizer_api
):
    response = organizer_api.post(
        f"/api/v1/case-metadata/{metadata.pk}/models/", SPEC, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        "the specification names 1 grouping; the limit is 0 (each grouping is a "
        "crossed random intercept and the fit's cost grows steeply with their "
        "number: use fewer grouping factors)"
    ]
    assert not CaseModelRun.objects.exists()


def test_verify_registrations_rehashes_the_stored_files(fitted):
    """A restore's check (verify_registrations) notices a changed or lost
    case-model file, as it does a changed analysis report."""
    from io import StringIO

    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command("verify_registrations", stdout=out)
    assert f"OK: {len(KINDS)} case-model files verified." in out.getvalue()

    record = CaseModelFile.objects.get(run=fitted, kind="report")
    with open(record.file.path, "ab") as fh:
        fh.write(b"%tampered")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_registrations", stdout=StringIO(), stderr=err)
    assert f"case-model run {fitted.pk}: {record.file.name} does not match" in (
        err.getvalue()
    )
