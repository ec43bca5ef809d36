import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from demo import fetal, liver, msd, robustmis
from demo.accounts import ensure_demo_accounts, ensure_demo_call
from demo.answers import NotApplicable
from demo.load import DESIGNS, ensure_design, load_demo_challenges
from demo.story import ORGANS, advance_msd, latest_run, put_under_review
from registry.enums import ChallengeStatus
from registry.models import Answer, Challenge
from registry.parameters import get_parameter
from registry.selectors import completeness_of
from reviews.enums import AssignmentStatus
from reviews.models import Assignment, Review

# Every design module, the two that load_demo takes on to registration and the
# two invented ones it leaves under review and as a draft.
ALL_DESIGNS = (*DESIGNS, liver, fetal)


@pytest.fixture
def demo(db):
    call = ensure_demo_call()
    users = ensure_demo_accounts(call)
    return call, users


@pytest.fixture
def loaded(demo):
    call, users = demo
    msd_challenge, robustmis_challenge = load_demo_challenges(call, users)
    return msd_challenge, robustmis_challenge


@pytest.mark.parametrize("design", ALL_DESIGNS, ids=lambda d: d.__name__)
def test_design_data_names_parameters_at_their_level(design):
    assert all(get_parameter(n).level == "challenge" for n in design.CHALLENGE)
    for answers in design.TASKS.values():
        assert all(get_parameter(n).level == "task" for n in answers)
    assert 1 not in design.CHALLENGE  # the name comes from design.NAME


@pytest.mark.parametrize("design", ALL_DESIGNS, ids=lambda d: d.__name__)
def test_design_contact_is_a_labelled_placeholder(design):
    organization = design.CHALLENGE[3]
    assert organization["contact"]["email"].endswith("@example.org")
    assert organization["contact"]["name"].endswith("challenge office")
    assert organization["details"].startswith("Invented for the demonstration")


def test_load_demo_challenges_twice_creates_each_once(demo):
    call, users = demo
    first = load_demo_challenges(call, users)
    second = load_demo_challenges(call, users)
    assert [c.pk for c in first] == [c.pk for c in second]
    names = sorted(Challenge.objects.values_list("name", flat=True))
    assert names == sorted([msd.NAME, robustmis.NAME])


def test_demo_designs_reach_the_submission_threshold(loaded):
    for challenge in loaded:
        completeness = completeness_of(challenge)
        assert completeness.submission.percent >= 90, challenge.name
        assert completeness.can_submit, challenge.name


def test_demo_stored_values_pass_their_parameter_clean(demo, loaded):
    call, users = demo
    invented = [ensure_design(design, call, users) for design in (liver, fetal)]
    answers = Answer.objects.filter(challenge__in=[*loaded, *invented])
    assert answers.filter(challenge__in=loaded).count() > 100
    assert answers.filter(challenge__in=invented).count() > 60
    for answer in answers:
        parameter = get_parameter(answer.number)
        if answer.not_applicable:
            assert answer.value is None
            assert parameter.not_applicable_allowed
        else:
            assert parameter.clean(answer.value) == answer.value, answer


def test_demo_not_applicable_answers_keep_their_reason(loaded):
    msd_challenge, _ = loaded
    development = msd_challenge.tasks.get(name="Development phase")
    answer = Answer.objects.get(challenge=msd_challenge, task=development, number=47)
    assert answer.not_applicable == msd.DEVELOPMENT[47].reason
    assert isinstance(msd.DEVELOPMENT[47], NotApplicable)


def test_msd_has_phase_tasks_with_dsc_and_nsd(loaded):
    msd_challenge, _ = loaded
    tasks = list(msd_challenge.tasks.all())
    assert [t.name for t in tasks] == ["Development phase", "Mystery phase"]
    unit = {
        "higher_is_better": True,
        "worst_value": 0,
        "lower_bound": 0,
        "upper_bound": 1,
    }
    for task in tasks:
        metrics = Answer.objects.get(task=task, number=44).value["metrics"]
        assert metrics == [{"name": "DSC", **unit}, {"name": "NSD", **unit}]
    test_cases = {
        t.name: Answer.objects.get(task=t, number=38).value["count"] for t in tasks
    }
    assert test_cases == {"Development phase": 664, "Mystery phase": 224}


def test_msd_story_goes_from_draft_to_an_analysed_registration(demo, loaded):
    _, users = demo
    msd_challenge, _ = loaded
    assert msd_challenge.status == ChallengeStatus.DRAFT
    registration = advance_msd(msd_challenge, users)
    msd_challenge.refresh_from_db()
    assert msd_challenge.status == ChallengeStatus.REGISTERED
    assert [
        (c.from_status, c.to_status) for c in msd_challenge.status_changes.all()
    ] == [
        ("draft", "submitted"),
        ("submitted", "under_review"),
        ("under_review", "accepted"),
        ("accepted", "registered"),
    ]
    assert registration.identifier == "miccai-2027-001"
    assert {t.scheme["method"] for t in msd_challenge.tasks.all()} == {"test_then_rank"}
    run = latest_run(registration)
    assert run.status == "done", run.error
    development = run.output["rankings"]["DSC"]["tasks"]["Development phase"]
    assert set(development["targets"]) == set(ORGANS["Development phase"])
    assert development["ranks"]["team-01"] == 1  # the most skilled simulated team
    (publication,) = registration.publications.all()  # the public sees it
    assert (publication.run, publication.exploratory) == (run, False)
    assert publication.public_from is None
    assert advance_msd(msd_challenge, users) == registration  # idempotent
    assert registration.results_versions.count() == 1
    assert registration.publications.count() == 1


def test_robustmis_is_a_draft_with_co_organizer_and_three_tasks(loaded):
    _, robustmis_challenge = loaded
    assert robustmis_challenge.status == ChallengeStatus.DRAFT
    assert list(
        robustmis_challenge.co_organizers.values_list("username", flat=True)
    ) == ["coorganizer"]
    assert list(robustmis_challenge.tasks.values_list("name", flat=True)) == [
        "Binary segmentation",
        "Multiple instance detection",
        "Multiple instance segmentation",
    ]
    detection = robustmis_challenge.tasks.get(name="Multiple instance detection")
    metrics = Answer.objects.get(task=detection, number=44).value["metrics"]
    assert [m["name"] for m in metrics] == ["F1 score"]


def test_demo_challenge_name_answer_matches_design(loaded):
    for challenge, design in zip(loaded, DESIGNS, strict=True):
        name = Answer.objects.get(challenge=challenge, task=None, number=1)
        assert (challenge.name, name.value) == (design.NAME, design.NAME)


@pytest.fixture
def under_review(demo):
    call, users = demo
    challenge = put_under_review(
        ensure_design(liver, call, users),
        users,
        scheme=liver.SCHEME,
        review=liver.SUBMITTED_REVIEW,
        plan=liver.PLAN,
    )
    return challenge


def test_liver_is_under_review_with_two_open_reviews(under_review):
    challenge = under_review
    assert challenge.status == ChallengeStatus.UNDER_REVIEW
    assert challenge.tasks.get().scheme["method"] == "rank_then_aggregate"
    open_reviews = {
        a.reviewer.username: a
        for a in challenge.assignments.filter(status=AssignmentStatus.ASSIGNED)
    }
    assert {name: a.role for name, a in open_reviews.items()} == {
        "reviewer1": "technical",
        "clinician": "clinical",
    }
    # a full review period ahead, so the open reviews are not overdue
    today = timezone.localdate()
    assert all(a.due >= today + dt.timedelta(days=14) for a in open_reviews.values())
    review = Review.objects.get(assignment__challenge=challenge)
    assert (review.assignment.reviewer.username, review.revision) == ("reviewer2", 1)
    assert review.assignment.status == AssignmentStatus.SUBMITTED


def test_liver_reviewer_sees_its_test_set_plan_beside_parameter_38(
    client, demo, under_review
):
    _, users = demo
    plan = under_review.tasks.get().test_set_plan
    assert (plan["seed"], [r["n"] for r in plan["n"]]) == (
        liver.PLAN["seed"],
        liver.PLAN["n"],
    )
    assert plan["scheme"]["method"] == liver.SCHEME["method"]
    client.force_login(users["reviewer1"])
    html = client.get(reverse("reviews:review", args=[under_review.pk])).text
    row = html.index('data-test-set-plan="Lesion detection"')
    assert html.index('-p38"') < row
    assert "With the chosen 240 test cases (parameter 38)" in html


def test_liver_review_is_put_in_place_once(demo, under_review):
    call, users = demo
    challenge = under_review
    again = put_under_review(
        ensure_design(liver, call, users),
        users,
        scheme=liver.SCHEME,
        review=liver.SUBMITTED_REVIEW,
        plan=liver.PLAN,
    )
    assert again.pk == challenge.pk
    assert Challenge.objects.filter(name=liver.NAME).count() == 1
    assert Assignment.objects.filter(challenge=challenge).count() == 3
    assert Review.objects.filter(assignment__challenge=challenge).count() == 1


def test_fetal_draft_is_two_thirds_complete_without_a_scheme(demo):
    call, users = demo
    draft = ensure_design(fetal, call, users)
    assert draft.status == ChallengeStatus.DRAFT
    completeness = completeness_of(draft)
    assert 50 < completeness.submission.percent < 90
    assert 50 < completeness.design.percent < 90
    assert not completeness.can_submit
    assert [(t.name, t.scheme) for t in draft.tasks.all()] == [
        ("Head circumference", None)
    ]
    assert list(draft.co_organizers.values_list("username", flat=True)) == [
        "coorganizer"
    ]
    assert ensure_design(fetal, call, users).pk == draft.pk
