import json
import threading
import time

import lxml.html
import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from analysis import services, staging, uploads
from analysis.ingest import checked, commit_results, parse_upload, read_upload
from analysis.models import AnalysisRun, AnalysisStatus, ResultsVersion
from registry.numbers import percent_text
from tests.analysis.django.conftest import SCHEME, results_csv
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

IDENT = "miccai-2027-001"
RESULTS = f"/results/{IDENT}/"
UPLOAD = f"/results/{IDENT}/upload/"


def post_upload(client, data, *, name="results.csv", teams=""):
    file = SimpleUploadedFile(name, data, content_type="text/csv")
    return client.post(UPLOAD, {"file": file, "teams": teams})


def staged_files():
    return sorted(staging.staging_dir().glob("results-*.upload"))


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def organizer_client(client, organizer, registration):
    client.force_login(organizer)
    return client


@pytest.fixture
def results(registration, organizer):
    return commit_results(
        registration=registration,
        table=parse_upload("results.csv", results_csv(n_cases=30)),
        original_name="results.csv",
        actor=organizer,
        teams={"A1": "Institute 1"},
    )


def test_results_page_anonymous_is_sent_to_login(client, registration):
    response = client.get(RESULTS)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_results_page_other_user_gets_404(client, registration):
    client.force_login(UserFactory(username="mallory"))
    assert client.get(RESULTS).status_code == 404
    assert client.get(UPLOAD).status_code == 404


def test_results_page_chair_sees_versions_but_cannot_upload(client, chair, results):
    client.force_login(chair)
    response = client.get(RESULTS)
    assert response.status_code == 200
    assert results.sha256 in response.content.decode()
    assert b"Upload results" not in response.content
    assert post_upload(client, results_csv()).status_code == 403
    assert client.get(UPLOAD).status_code == 403


def test_run_analysis_other_user_gets_404(client, results):
    client.force_login(UserFactory(username="mallory"))
    response = client.post(f"/results/versions/{results.pk}/analyses/")
    assert response.status_code == 404
    assert AnalysisRun.objects.count() == 0


def test_upload_preview_stores_nothing_and_shows_findings(organizer_client):
    response = post_upload(organizer_client, results_csv(n_cases=90), teams="A1, Inst")
    assert response.status_code == 302
    preview = organizer_client.get(response["Location"])
    html = preview.content.decode()
    assert preview.status_code == 200
    assert 'data-finding="case_count_mismatch"' in html
    assert "90 test cases, 100 registered." in html
    assert 'data-missing-cells="Brain">0<' in html
    assert ResultsVersion.objects.count() == 0
    assert len(staged_files()) == 1


def test_upload_commit_creates_a_version_and_deletes_the_bytes(
    organizer_client, registration
):
    preview = post_upload(organizer_client, results_csv(), teams="Team A, Inst A")
    response = organizer_client.post(preview["Location"] + "commit/")
    assert response.status_code == 302
    assert response["Location"] == RESULTS
    version = ResultsVersion.objects.get()
    assert (version.number, version.row_count) == (1, 2 * 4 * 100 * 2)
    assert version.teams == {"Team A": "Inst A"}
    assert staged_files() == []
    # Sent again (a double click): the one-time token already stored version 1.
    again = organizer_client.post(preview["Location"] + "commit/")
    assert (again.status_code, again["Location"]) == (302, RESULTS)
    assert ResultsVersion.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_second_commit_while_the_first_stores_is_shown_the_stored_version(
    organizer_client, monkeypatch
):
    """A double click: the second request comes while the first holds the
    one-time token and is still storing; it waits for the version and leads
    to the same page (it was a 404: the token looked taken, nothing stored)."""
    preview = post_upload(organizer_client, results_csv())
    first_stores = threading.Event()
    checked_preview = uploads.preview

    def slow_preview(*args, **kwargs):
        first_stores.set()
        time.sleep(1)  # the first request is still storing
        return checked_preview(*args, **kwargs)

    monkeypatch.setattr(uploads, "preview", slow_preview)
    answers = {}

    def first_click():
        try:
            answers["first"] = organizer_client.post(preview["Location"] + "commit/")
        finally:
            connection.close()

    first = threading.Thread(target=first_click)
    first.start()
    assert first_stores.wait(10)
    second = Client()
    second.cookies = organizer_client.cookies
    answers["second"] = second.post(preview["Location"] + "commit/")
    first.join(30)

    locations = {k: (a.status_code, a.get("Location")) for k, a in answers.items()}
    assert locations == {"first": (302, RESULTS), "second": (302, RESULTS)}
    assert ResultsVersion.objects.count() == 1
    shown = [m.message for m in get_messages(second.get(RESULTS).wsgi_request)]
    assert shown == ["These results are stored as version 1."]


def test_a_file_with_problems_is_stored_only_when_the_organizer_says_so(
    organizer_client,
):
    preview = post_upload(organizer_client, results_csv(tasks=("Brain", "Lung")))
    html = organizer_client.get(preview["Location"]).content.decode()
    assert 'data-finding="unknown_task"' in html
    assert 'name="accept_problems"' in html
    refused = organizer_client.post(preview["Location"] + "commit/")
    assert refused["Location"] == preview["Location"]  # back to the preview
    page = organizer_client.get(preview["Location"]).content.decode()
    assert "does not match the registered design in 1 way" in page
    assert ResultsVersion.objects.count() == 0
    assert len(staged_files()) == 1  # still waiting for the organizer's word
    stored = organizer_client.post(
        preview["Location"] + "commit/", {"accept_problems": "on"}
    )
    assert stored["Location"] == RESULTS
    assert ResultsVersion.objects.get().row_count == 2 * 4 * 100 * 2


def test_a_file_without_problems_asks_no_confirmation(organizer_client):
    preview = post_upload(organizer_client, results_csv())
    html = organizer_client.get(preview["Location"]).content.decode()
    assert 'name="accept_problems"' not in html


def test_upload_cancel_deletes_the_bytes(organizer_client):
    preview = post_upload(organizer_client, results_csv())
    assert len(staged_files()) == 1
    response = organizer_client.post(preview["Location"] + "cancel/")
    assert response.status_code == 302
    assert staged_files() == []
    assert ResultsVersion.objects.count() == 0
    assert organizer_client.get(preview["Location"]).status_code == 404


def test_upload_token_of_another_session_is_refused(organizer_client, organizer):
    preview = post_upload(organizer_client, results_csv())
    other = type(organizer_client)()
    other.force_login(organizer)  # a fresh session of the same user has no token
    assert other.get(preview["Location"]).status_code == 404
    assert other.post(preview["Location"] + "commit/").status_code == 404
    assert ResultsVersion.objects.count() == 0


def test_upload_bad_file_shows_row_errors_and_stores_nothing(organizer_client):
    def break_rows(frame):
        frame.loc[3, "value"] = "n.a.x"
        return frame

    response = post_upload(organizer_client, results_csv(edit=break_rows))
    assert response.status_code == 400
    assert (
        "line 5: value &#x27;n.a.x&#x27; is not a number" in response.content.decode()
    )
    assert staged_files() == []
    assert ResultsVersion.objects.count() == 0


def test_upload_bad_team_line_names_the_line(organizer_client):
    response = post_upload(organizer_client, results_csv(), teams="A1, Inst\nnocomma")
    assert response.status_code == 400
    assert "Line 2: write" in response.content.decode()
    assert staged_files() == []


def test_registered_run_shows_rankings_and_downloads(organizer_client, results):
    response = organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    assert response["Location"] == f"/analyses/{run.pk}/"
    assert run.status == AnalysisStatus.DONE
    html = organizer_client.get(response["Location"]).content.decode()
    assert 'id="exploratory-banner"' not in html
    assert 'data-task="Brain" data-ranking="DSC"' in html
    assert f'href="/api/v1/analyses/{run.pk}/report.pdf"' in html
    assert html.index('id="deviations"') < html.index("ranking-table")
    # one format with the PDF's: a share as a percentage
    stability = run.output["rankings"]["DSC"]["tasks"]["Brain"]["winner_stability"]
    assert f"<strong>{percent_text(stability)}</strong>" in html
    output = organizer_client.get(f"/analyses/{run.pk}/output.json")
    assert (
        output["Content-Disposition"]
        == f'attachment; filename="analysis-{run.pk}.json"'
    )
    assert json.loads(output.content) == run.output


def test_bootstrap_percentiles_read_as_in_the_pdf(organizer_client, results):
    """An interpolated percentile carries float noise (4.025000000000006):
    the page prints it as the PDF does."""
    organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    boot = run.output["rankings"]["DSC"]["tasks"]["Brain"]["bootstrap"]
    algorithm = sorted(boot)[0]
    boot[algorithm].update(median=4.0, lower=3, upper=4.025000000000006)
    run.save(update_fields=["output"])
    html = organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    assert 'data-label="2.5–97.5 % percentiles">[3, 4.025]</td>' in html
    assert "4.0250000" not in html


def test_scores_and_taus_read_as_in_the_pdf(organizer_client, results):
    """The page printed scores to 4 places and τ to 3 with trailing zeros
    (1.1429, 7.0000, 1.000) where the PDF prints 1.143, 7 and 1."""
    organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    rankings = run.output["rankings"]["DSC"]
    brain = rankings["tasks"]["Brain"]
    first, second = sorted(brain["scores"])[:2]
    brain["scores"].update({first: 8 / 7, second: 7.0})
    brain["kendall_tau"].update(median=1.0, lower=0.92857142, upper=1.0)
    for alternative in brain["audit"]["alternatives"]:
        alternative["kendall_tau"] = 0.9636363
    run.save(update_fields=["output"])
    html = organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    assert 'data-label="Score">1.143</td>' in html
    assert 'data-label="Score">7</td>' in html
    assert "median 1,\n        95 % interval [0.929, 1]" in html
    assert 'data-label="Kendall\'s τ">0.964</td>' in html
    for padded in ("1.1429", "7.0000", "1.000"):
        assert padded not in html


def test_downloads_offer_a_consensus_table_only_when_there_is_one(
    organizer_client, results
):
    # Without a consensus the link gave a CSV of one empty line.
    organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    link = f"/analyses/{run.pk}/tables/consensus.csv"
    assert link in organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    for ranking in run.output["rankings"].values():
        ranking.pop("consensus", None)
    run.save(update_fields=["output"])
    html = organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    assert link not in html
    assert f"/analyses/{run.pk}/tables/rankings.csv" in html


def test_target_rankings_download_is_offered_for_tasks_with_targets(
    organizer_client, results
):
    organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    link = f"/analyses/{run.pk}/tables/target_rankings.csv"  # for people
    assert link not in organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    block = run.output["rankings"]["DSC"]["tasks"]["Brain"]
    block["targets"] = {"left": {"ranks": {"A1": 1}, "scores": {"A1": 0.9}}}
    run.save(update_fields=["output"])
    assert link in organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    plain = organizer_client.get(link).content.decode().splitlines()
    assert plain[0].startswith("Ranking,Task,Target,Algorithm,Rank,Score,")
    assert plain[1] == "DSC,Brain,left,A1,1,0.9,,,,,,,"
    csv = organizer_client.get(
        f"/api/v1/analyses/{run.pk}/tables/?table=target_rankings"
    )  # for programs: the column names
    assert csv["Content-Type"] == "text/csv; charset=utf-8"
    assert csv.content.decode().splitlines()[:2] == [
        "ranking,task,target,algorithm,rank,score,bootstrap_median_rank,"
        "bootstrap_lower,bootstrap_upper,winner_stability,kendall_tau_median,"
        "kendall_tau_lower,kendall_tau_upper",
        "DSC,Brain,left,A1,1,0.9,,,,,,,",
    ]


def test_an_empty_table_downloads_as_its_header_row(organizer_client, results):
    organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    base = f"/api/v1/analyses/{run.pk}/tables/?table="
    rankings = organizer_client.get(base + "rankings").content.decode()
    ranking_header = rankings.splitlines()[0].split(",")

    targets = organizer_client.get(base + "target_rankings").content.decode()

    assert targets.splitlines() == [
        ",".join([*ranking_header[:2], "target", *ranking_header[2:]])
    ]
    for ranking in run.output["rankings"].values():
        ranking.pop("consensus", None)
    run.save(update_fields=["output"])
    consensus = organizer_client.get(base + "consensus").content.decode()
    assert consensus == "ranking,algorithm,rank,score\n"


def test_exploratory_run_has_the_banner(organizer_client, results):
    scheme = {**SCHEME, "method": "aggregate_then_rank", "aggregate": "median"}
    scheme.pop("test")
    response = organizer_client.post(
        f"/results/versions/{results.pk}/analyses/",
        {"exploratory": "1", f"v{results.pk}-scheme": json.dumps(scheme)},
    )
    run = AnalysisRun.objects.get()
    assert run.exploratory
    html = organizer_client.get(response["Location"]).content.decode()
    assert "Exploratory — not pre-registered." in html
    listing = organizer_client.get(RESULTS).content.decode()
    assert "NOT PRE-REGISTERED" in listing


def _builder_data(organizer_client, results) -> dict[str, str | list[str]]:
    """What the exploratory form shows (the registered scheme), as posted back."""
    html = organizer_client.get(RESULTS).content.decode()
    [form] = lxml.html.fromstring(html).xpath(
        f"//form[@data-builder][contains(@action, '/versions/{results.pk}/')]"
    )
    data = dict(form.form_values())
    ci = f"v{results.pk}-rank_ci"
    data[ci] = [v for k, v in form.form_values() if k == ci]
    return data


def test_exploratory_scheme_is_chosen_in_a_form_not_typed_as_json(
    organizer_client, results
):
    data = _builder_data(organizer_client, results)
    assert f"v{results.pk}-scheme" not in data  # no JSON to type
    data |= {f"v{results.pk}-method": "rank_then_aggregate"}
    data[f"v{results.pk}-aggregate"] = "median"
    response = organizer_client.post(f"/results/versions/{results.pk}/analyses/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    run = AnalysisRun.objects.get()
    assert run.exploratory
    assert {s["method"] for s in run.scheme.values()} == {"rank_then_aggregate"}


def test_exploratory_form_puts_the_engines_refusal_at_its_input(
    organizer_client, results
):
    data = _builder_data(organizer_client, results)
    data[f"v{results.pk}-method"] = "aggregate_then_rank"
    data[f"v{results.pk}-missing_policy"] = "last_rank"
    response = organizer_client.post(f"/results/versions/{results.pk}/analyses/", data)
    assert response.status_code == 400
    page = lxml.html.fromstring(response.content.decode())
    [field] = page.xpath("//form[@data-builder]//*[@data-field='missing_policy']")
    assert "only applies to rank_then_aggregate" in field.text_content()
    assert AnalysisRun.objects.count() == 0


def test_exploratory_bad_scheme_is_refused_with_its_field(organizer_client, results):
    response = organizer_client.post(
        f"/results/versions/{results.pk}/analyses/",
        {"exploratory": "1", f"v{results.pk}-scheme": '{"metric": "DSC"}'},
    )
    assert response.status_code == 400
    assert "scheme." in response.content.decode()
    assert AnalysisRun.objects.count() == 0


def test_failed_run_shows_its_error(organizer_client, results, organizer):
    run = AnalysisRun.objects.create(
        results=results,
        scheme={},
        seed=1,
        requested_by=organizer,
        status=AnalysisStatus.FAILED,
        error="The <engine> broke on task Brain.",
    )
    html = organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    assert "The analysis failed." in html
    assert "The &lt;engine&gt; broke on task Brain." in html


def test_plot_is_a_png_for_allowed_users_only(organizer_client, client, results):
    run = services.start_analysis(results=results, actor=results.uploaded_by)
    url = f"/analyses/{run.pk}/plots/blob.png?key=DSC&task=Brain"
    response = organizer_client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG")
    assert organizer_client.get(url.replace("Brain", "Lung")).status_code == 404
    assert organizer_client.get(url.replace("blob", "nope")).status_code == 404
    client.force_login(UserFactory(username="mallory"))
    assert client.get(url).status_code == 404


def test_results_page_queries_do_not_grow_with_versions(
    organizer_client, registration, organizer
):
    def add_version():
        version = commit_results(
            registration=registration,
            table=parse_upload("results.csv", results_csv(n_cases=5)),
            original_name="results.csv",
            actor=organizer,
            new_version=True,  # the same file each time, on purpose
        )
        AnalysisRun.objects.create(
            results=version, scheme={}, seed=1, requested_by=organizer
        )

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert organizer_client.get(RESULTS).status_code == 200
        return len(queries)

    add_version()
    one = count()
    add_version()
    add_version()
    assert count() == one


def test_a_task_with_targets_shows_each_targets_figures(
    organizer_client, registration, organizer
):
    """Per-target figures on the page, each in its target's own case space."""

    def two_targets(frame):
        return frame.assign(
            target=frame["case"].map(lambda c: "liver" if c < "case050" else "spleen")
        )

    raw = read_upload(
        "results.csv", results_csv(tasks=("Brain",), n_cases=60, edit=two_targets)
    )
    results = commit_results(
        registration=registration,
        table=checked(raw),
        original_name="r.csv",
        actor=organizer,
    )
    scheme = {
        **SCHEME,
        "targets": "mean_rank",
        "uncertainty": {"bootstrap": 20, "seed": 1},
    }
    run = services.start_analysis(results=results, actor=organizer, scheme=scheme)
    page = organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    for kind in ("target_dot_box", "target_significance"):
        url = f"/analyses/{run.pk}/plots/{kind}.png?key=DSC&amp;task=Brain"
        assert url in page
        response = organizer_client.get(url.replace("&amp;", "&"))
        assert response.status_code == 200
        assert response.content.startswith(b"\x89PNG")
    assert f"/analyses/{run.pk}/plots/dot_box.png" not in page  # pooled targets: no


def test_upload_larger_than_the_limit_is_refused_by_its_size(
    organizer_client, settings
):
    settings.MAX_UPLOAD_BYTES = 100
    response = post_upload(organizer_client, results_csv())
    assert response.status_code == 400
    assert "the limit is 100 bytes" in response.content.decode()
    assert staged_files() == []


def test_upload_help_names_the_meta_columns_visibly(organizer_client):
    # help_text is not escaped by Django: a bare <name> became an unknown HTML
    # tag, and the page read "meta:)."
    html = organizer_client.get(UPLOAD).content.decode()
    assert "interaction, meta:&lt;name&gt;)." in html
    assert "<name>" not in html


def test_deviation_table_gives_shares_as_percentages(organizer_client, results):
    organizer_client.post(f"/results/versions/{results.pk}/analyses/")
    run = AnalysisRun.objects.get()
    run.deviations = [
        {
            "code": "missing_cases",
            "severity": "warning",
            "message": "Task Brain, DSC: A has no result for 3 of 12 cases (25.0 %).",
            "registered": None,
            "observed": 0.25,
            "task": "Brain",
            "evidence": None,
        }
    ]
    run.save(update_fields=["deviations"])
    html = organizer_client.get(f"/analyses/{run.pk}/").content.decode()
    assert '<td data-label="Observed" class="small">25.0 %</td>' in html
