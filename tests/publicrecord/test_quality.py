import pytest

from analysis.models import AnalysisRun, ResultsVersion
from publicrecord.publication import publish_analysis
from registry.amendments import approve_amendment
from tests.factories import UserFactory
from tests.publicrecord.publishing import analysed

from .conftest import CLEAN_SCHEME, propose_more_cases, registered

pytestmark = pytest.mark.django_db

CODES = [
    "design_complete",
    "no_open_design_warnings",
    "reviewed_by_required_reviewers",
    "registered_before_data_release",
    "amendments_approved_justified",
    "results_analysed_as_registered",
]
PAST_RELEASE = {
    "events": [
        {"date": "2020-01-15", "event": "Release of training data"},
        {"date": "2030-01-01", "event": "Release of results"},
    ],
    "details": "",
}


def quality(api, identifier):
    response = api.get(f"/api/v1/registrations/{identifier}/quality/")
    assert response.status_code == 200
    return {c["code"]: c for c in response.json()["criteria"]}


def test_demo_profile_lists_every_criterion_with_evidence(api, demo_registered):
    registration, _ = demo_registered
    criteria = quality(api, registration.identifier)
    assert list(criteria) == CODES
    assert "complete" in CODES[0]
    assert "review" in CODES[2]
    for criterion in criteria.values():
        assert criterion["evidence"]
        assert criterion["link"].startswith("/")
        assert criterion["label"]
    assert criteria["reviewed_by_required_reviewers"]["met"] is True
    assert (
        "1 clinical reviewer" in criteria["reviewed_by_required_reviewers"]["evidence"]
    )
    assert criteria["results_analysed_as_registered"]["met"] is None
    page = api.get(f"/registry/{registration.identifier}/").content.decode()
    for code in CODES:
        assert f'data-criterion="{code}"' in page
    assert 'data-criterion="reviewed_by_required_reviewers" data-met="yes"' in page


def test_crafted_challenge_fails_exactly_the_expected_criteria(
    api, call, organizer, chair
):
    """Ethics approval left out, never reviewed, registered after the data
    release; a clean executable scheme, so the design checks pass."""
    registration = registered(
        call,
        organizer,
        chair,
        name="Crafted",
        scheme=CLEAN_SCHEME,
        skip={7},
        answers={6: PAST_RELEASE},
    )
    criteria = quality(api, registration.identifier)
    met = {code: c["met"] for code, c in criteria.items()}
    assert {c for c, m in met.items() if m is False} == {
        "design_complete",
        "reviewed_by_required_reviewers",
        "registered_before_data_release",
    }
    assert {c for c, m in met.items() if m is None} == {
        "results_analysed_as_registered"
    }
    assert "7 Ethics approval" in criteria["design_complete"]["evidence"]
    assert "2020-01-15" in criteria["registered_before_data_release"]["evidence"]


def test_a_clean_design_passes_the_design_criteria(api, call, organizer, chair):
    registration = registered(call, organizer, chair, name="Clean", scheme=CLEAN_SCHEME)
    met = {c: v["met"] for c, v in quality(api, registration.identifier).items()}
    assert met["design_complete"] is True
    assert met["no_open_design_warnings"] is True
    assert met["registered_before_data_release"] is True
    assert met["amendments_approved_justified"] is True


def test_a_design_check_warning_fails_its_criterion(api, call, organizer, chair):
    median = {**CLEAN_SCHEME, "method": "aggregate_then_rank", "aggregate": "median"}
    registration = registered(call, organizer, chair, name="Median", scheme=median)
    criterion = quality(api, registration.identifier)["no_open_design_warnings"]
    assert criterion["met"] is False
    assert "median" in criterion["evidence"]


def test_approved_amendment_is_reported_with_its_justification(
    api, call, organizer, chair
):
    registration = registered(
        call, organizer, chair, name="Amended", scheme=CLEAN_SCHEME
    )
    amendment = propose_more_cases(
        registration, organizer, "More test cases became available."
    )
    approve_amendment(amendment=amendment, actor=chair)
    criterion = quality(api, registration.identifier)["amendments_approved_justified"]
    assert criterion["met"] is True
    assert criterion["evidence"].startswith("1 amendment, each approved")
    stats = api.get("/api/v1/statistics/").json()["amendments"]
    assert stats["approved"] == 1
    assert stats["changed"] == {"Number of test cases": 1}


def _run(registration, deviations, *, status="done", exploratory=False):
    user = UserFactory()
    version = registration.versions.get(number=1)
    results, _ = ResultsVersion.objects.get_or_create(
        registration=registration,
        number=1,
        defaults={
            "registration_version": version,
            "content": "task,case,algorithm,metric,value\n",
            "sha256": "0" * 64,
            "original_name": "r.csv",
            "row_count": 0,
            "uploaded_by": user,
        },
    )
    return AnalysisRun.objects.create(
        results=results,
        scheme={},
        seed=1,
        status=status,
        exploratory=exploratory,
        deviations=deviations,
        requested_by=user,
    )


def _published(call, organizer, chair, deviations):
    """A registration whose finished analysis, with these deviations, is published."""
    registration, run = analysed(call, organizer, chair, name="Published")
    AnalysisRun.objects.filter(pk=run.pk).update(deviations=deviations)
    run.refresh_from_db()
    return registration, publish_analysis(run=run, actor=organizer)


def test_results_criterion_mentions_no_unpublished_analysis(
    api, call, organizer, chair
):
    registration = registered(call, organizer, chair, name="Run", scheme=CLEAN_SCHEME)
    code = "results_analysed_as_registered"
    _run(registration, [], status="failed")
    _run(registration, [{"code": "scheme_changed", "severity": "critical"}])
    criterion = quality(api, registration.identifier)[code]
    assert (criterion["met"], criterion["evidence"]) == (
        None,
        "No results published yet.",
    )
    # the statistics count published results only (more in test_follow_up.py)
    stats = api.get("/api/v1/statistics/").json()["deviations"]
    assert (stats["registered"], stats["published"], stats["by_code"]) == (1, 0, {})


@pytest.mark.parametrize(
    ("deviations", "met"),
    [
        ([{"code": "missing_cases", "severity": "warning"}], True),
        ([{"code": "scheme_changed", "severity": "critical"}], False),
    ],
)
def test_results_criterion_follows_the_published_result(
    api, call, organizer, chair, deviations, met
):
    registration, publication = _published(call, organizer, chair, deviations)
    criterion = quality(api, registration.identifier)["results_analysed_as_registered"]
    assert criterion["met"] is met
    day = publication.created.date().isoformat()
    critical = 0 if met else 1
    assert criterion["evidence"].startswith(
        f"The published result (publication 1, {day}): {critical} critical"
    )
    assert f"Analysis {publication.run_id}" not in criterion["evidence"]
    assert ("scheme_changed" in criterion["evidence"]) is not met
    # its evidence link opens for anyone
    assert api.get(criterion["link"]).status_code == 200


def test_unknown_registration_is_404(api, db):
    assert api.get("/api/v1/registrations/nope-001/quality/").status_code == 404


def test_outcome_parameters_do_not_count_against_completeness(
    api, call, organizer, chair
):
    registration = registered(
        call, organizer, chair, name="Outcome", scheme=CLEAN_SCHEME, skip={51, 52, 53}
    )
    criterion = quality(api, registration.identifier)["design_complete"]
    assert criterion["met"] is True
    assert criterion["evidence"].startswith("50 of 50 design answers")
