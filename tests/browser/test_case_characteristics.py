"""Case characteristics in the browser: upload metadata, preview, commit, fit
the models, watch the run finish and open the forest plot."""

import os

import pytest

from analysis.ingest import commit_results, parse_upload
from characteristics.models import CaseMetadataVersion, CaseModelRun
from tests.browser.test_analysis import (
    quiet,  # noqa: F401 - a fixture
    registered_challenge,
    sign_in,
    wait_until,
)
from tests.characteristics.conftest import simulated

pytestmark = pytest.mark.django_db(transaction=True)
SCREENSHOTS = os.environ.get("CASE_MODEL_SCREENSHOTS")  # a folder, to look at pages


def _shoot(page, name):
    if SCREENSHOTS:
        for width, height in ((1366, 768), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=f"{SCREENSHOTS}/{name}-{width}.png", full_page=True)
        page.set_viewport_size({"width": 1366, "height": 768})


def test_organizer_uploads_metadata_fits_models_and_opens_the_figure(
    page,
    quiet,  # noqa: F811 - the fixture imported above
    tmp_path,
):
    registration = registered_challenge()
    results_bytes, metadata_bytes = simulated(n_cases=80)
    results = commit_results(
        registration=registration,
        table=parse_upload("results.csv", results_bytes),
        original_name="results.csv",
        actor=registration.challenge.owner,
    )
    meta = tmp_path / "meta.csv"
    meta.write_bytes(metadata_bytes.replace(b"\nc000,", b"\nx999,"))
    sign_in(page, "olga")

    page.goto(f"/results/{registration.identifier}/")
    page.get_by_role(
        "link", name="Case characteristics (strengths & weaknesses)"
    ).click()
    page.wait_for_url(f"**/results/versions/{results.pk}/case-characteristics/")
    page.set_input_files("input[name=file]", str(meta))
    page.get_by_role("button", name="Check the table").click()

    unknown = page.locator('[data-check="metadata_without_results"]')
    assert "1 metadata row(s) for unknown cases: x999" in unknown.inner_text()
    without = page.locator('[data-check="cases_without_metadata"]')
    assert "1 result case(s) without metadata: c000" in without.inner_text()
    _shoot(page, "preview")
    assert CaseMetadataVersion.objects.count() == 0
    page.get_by_role("button", name="Commit metadata").click()
    page.wait_for_url(f"**/results/versions/{results.pk}/case-characteristics/")
    assert "Stored case metadata version 1" in page.content()

    page.select_option("select[name=spec-task]", "Brain")
    page.check("input[name=spec-characteristics][value=blur]")
    page.check("input[name=spec-characteristics][value=occluded]")
    page.check("input[name=spec-groups][value=patient]")
    _shoot(page, "specification")
    page.get_by_role("button", name="Fit the models").click()
    page.wait_for_url("**/case-models/*/")
    run = CaseModelRun.objects.get()
    assert run.status == "done", run.error
    assert page.locator("#exploratory-banner").is_visible()
    assert (
        "blur raises the odds of failure"
        in page.locator("#global-findings").inner_text()
    )
    figure = page.get_by_role(
        "img",
        name="Forest plot of the global model: effect of each characteristic "
        "with its interval",
    )
    figure.scroll_into_view_if_needed()
    wait_until(page, lambda: figure.evaluate("i => i.complete && i.naturalWidth > 0"))
    _shoot(page, "run")

    response = page.goto(figure.get_attribute("src"))
    assert response.status == 200
    assert response.headers["content-type"] == "image/png"
