"""Post-challenge reporting in the browser: upload, preview, commit, run, watch
the progress bar, read the analysis page and download the PDF report."""

import pytest

from analysis.ingest import commit_results, parse_upload
from analysis.models import AnalysisRun, AnalysisStatus, ResultsVersion
from analysis.reports import RANK_CI_MEANINGS
from analysis.services import start_analysis
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from tests.analysis.django.conftest import SCHEME, results_csv
from tests.analysis.reports.conftest import pdf_pages
from tests.browser.helpers import assert_on_screen, phone_sized, sign_in
from tests.factories import CallFactory, ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal


def wait_until(page, condition, *, timeout_ms: int = 10_000) -> None:
    """Poll from Python: the CSP forbids the eval that wait_for_function uses."""
    for _ in range(timeout_ms // 100):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("condition not met in time")


pytestmark = pytest.mark.django_db(transaction=True)


RANK_CI = ["bootstrap", "id_wilcoxon_one_sided"]
TWO_INTERVALS = {**SCHEME, "uncertainty": {**SCHEME["uncertainty"], "rank_ci": RANK_CI}}


def registered_challenge(scheme=SCHEME):
    """Like tests/analysis/django/conftest.py: two tasks, Wilcoxon on DSC."""
    olga = UserFactory(username="olga")
    chair = UserFactory(username="chair")
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    call.chairs.add(chair)
    challenge = ChallengeFactory(call=call, owner=olga, name="Decathlon")
    for name in ("Brain", "Heart"):
        TaskFactory(challenge=challenge, name=name)
    fill_proposal(challenge, olga)
    for task in challenge.tasks.all():
        set_task_scheme(task=task, scheme=scheme, actor=olga)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


def committed_results(registration) -> ResultsVersion:
    """20 simulated cases per task, stored as results by the owner."""
    return commit_results(
        registration=registration,
        table=parse_upload("results.csv", results_csv(n_cases=20)),
        original_name="results.csv",
        actor=registration.challenge.owner,
    )


@pytest.fixture
def quiet(page):
    """Wait, at the end, until the browser's requests are answered: figures are
    drawn on request, and a request still running when the live server stops
    uses a database connection that is no longer shared with it."""
    pending = set()
    page.on("request", lambda request: pending.add(request))
    page.on("requestfinished", lambda request: pending.discard(request))
    page.on("requestfailed", lambda request: pending.discard(request))
    yield
    page.wait_for_load_state("load")
    for _ in range(100):
        if not pending:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(200)  # the server closes its connection after replying


def test_organizer_uploads_runs_and_downloads_the_report(page, quiet, tmp_path):
    registration = registered_challenge(TWO_INTERVALS)
    csv = tmp_path / "results.csv"
    csv.write_bytes(results_csv(n_cases=30))
    sign_in(page, "olga")

    page.goto(f"/proposals/{registration.challenge.pk}/")
    page.get_by_role("link", name="Results & analyses").click()
    page.get_by_role("link", name="Upload results").click()
    page.set_input_files("input[name=file]", str(csv))
    page.fill("textarea[name=teams]", "A1, Institute 1")
    page.get_by_role("button", name="Check the file").click()

    finding = page.locator('[data-finding="case_count_mismatch"]').first
    assert "30 test cases, 100 registered." in finding.inner_text()
    assert ResultsVersion.objects.count() == 0
    page.get_by_role("button", name="Commit results").click()
    page.wait_for_url(f"**/results/{registration.identifier}/")
    assert "Stored results version 1" in page.content()

    page.get_by_role("button", name="Run the registered analysis").click()
    page.wait_for_url("**/analyses/*/")
    run = AnalysisRun.objects.get()
    box = page.locator("#analysis-progress")
    assert box.get_attribute("data-status") == "done"
    assert box.get_attribute("data-polling") == "finished"  # the script saw it
    assert page.locator("#progress-bar").evaluate("bar => bar.value") == 100
    assert page.locator("#progress-label").inner_text() == "100 %"
    assert page.locator("#deviations [data-deviation='case_count_mismatch']").count()
    tables = page.locator(".ranking-table")
    assert tables.count() == 2  # Brain and Heart, DSC
    for table in tables.all():  # one interval column per registered method
        heads = table.locator("th.rank-interval")
        methods = [
            heads.nth(i).get_attribute("data-method") for i in range(heads.count())
        ]
        assert methods == RANK_CI
    # On a phone each algorithm is a card: its rank, name, score and every
    # interval on screen, not in columns scrolled off to the right.
    with phone_sized(page):
        assert_on_screen(tables.locator("tbody td"))
        rank = tables.first.locator("tbody td.stack-title").first
        assert rank.inner_text() == "1"
    blob = page.get_by_role(
        "img", name="Blob plot of bootstrap ranks — task Brain, DSC"
    )
    blob.scroll_into_view_if_needed()
    wait_until(page, lambda: blob.evaluate("i => i.complete && i.naturalWidth > 0"))

    with page.expect_download() as download_info:
        page.get_by_role("link", name="PDF report").click()
    pdf = tmp_path / "report.pdf"
    download_info.value.save_as(pdf)
    assert pdf.read_bytes().startswith(b"%PDF")
    text = " ".join(pdf_pages(pdf.read_bytes()))
    for method in RANK_CI:  # one column per method in each task's table
        assert text.count(f"{method}: {RANK_CI_MEANINGS[method][:20]}") == 2
    assert "individual interval for one algorithm, not a simultaneous" in text
    assert download_info.value.suggested_filename == (
        f"{registration.identifier}-analysis-{run.pk}.pdf"
    )


def test_progress_bar_follows_a_queued_run_without_reload(page, quiet):
    registration = registered_challenge()
    olga = registration.challenge.owner

    results = committed_results(registration)
    finished = start_analysis(results=results, actor=olga)  # synchronous in tests
    finished.refresh_from_db()
    queued = AnalysisRun.objects.create(
        results=results,
        scheme=finished.scheme,
        seed=finished.seed,
        requested_by=olga,
        progress=30,
    )
    sign_in(page, "olga")

    page.goto(f"/analyses/{queued.pk}/")
    bar = page.locator("#progress-bar")
    assert bar.evaluate("bar => bar.value") == 30
    assert page.locator("#waiting").is_visible()
    page.evaluate("window.notReloaded = true")

    AnalysisRun.objects.filter(pk=queued.pk).update(
        status=AnalysisStatus.RUNNING, progress=70
    )
    bar = page.locator("#progress-bar")
    wait_until(page, lambda: bar.evaluate("bar => bar.value") == 70)
    assert page.locator("[data-run-status]").inner_text() == "Running"

    AnalysisRun.objects.filter(pk=queued.pk).update(
        status=AnalysisStatus.DONE,
        progress=100,
        output=finished.output,
        deviations=finished.deviations,
    )
    page.wait_for_selector("#analysis-body[data-loaded=true]")
    assert bar.evaluate("bar => bar.value") == 100
    assert page.locator("[data-run-status]").inner_text() == "Done"
    assert page.locator(".ranking-table").count() == 2
    assert page.evaluate("window.notReloaded") is True
