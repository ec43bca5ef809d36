import io

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from registry.enums import ChallengeStatus
from registry.models import Call, Challenge
from registry.selectors import completeness_of
from reviews.enums import AssignmentStatus
from reviews.models import Assignment, Review

pytestmark = pytest.mark.django_db


def test_createcall_and_chair_account():
    call_command(
        "createcall",
        "isbi-2027",
        "--title",
        "ISBI 2027",
        "--threshold",
        "85",
        "--deadline",
        "2027-01-15",
    )
    call_command(
        "createaccount",
        "chairperson",
        "--password",
        "s3cret-pass",
        "--role",
        "chair",
        "--call",
        "isbi-2027",
        "--institution",
        "X",
    )
    call = Call.objects.get(slug="isbi-2027")
    assert (call.completeness_threshold, str(call.submission_deadline)) == (
        85,
        "2027-01-15",
    )
    assert list(call.chairs.values_list("username", flat=True)) == ["chairperson"]
    user = get_user_model().objects.get(username="chairperson")
    assert user.profile.institution == "X"


def test_createcall_refuses_duplicates_and_bad_dates():
    call_command("createcall", "a", "--title", "A")
    with pytest.raises(CommandError, match="already exists"):
        call_command("createcall", "a", "--title", "A")
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        call_command("createcall", "b", "--title", "B", "--deadline", "soon")


def test_createaccount_refuses_unknown_call():
    with pytest.raises(CommandError, match="No call"):
        call_command("createaccount", "x", "--password", "p", "--call", "nope")
    assert not get_user_model().objects.filter(username="x").exists()


def _row_counts() -> dict[str, int]:
    """Rows per model, every installed app."""
    return {m._meta.label: m._default_manager.count() for m in apps.get_models()}


def test_load_demo_twice_leaves_the_same_rows():
    call_command("load_demo", stdout=io.StringIO())
    first = _row_counts()
    again = io.StringIO()
    call_command("load_demo", stdout=again)
    assert _row_counts() == first
    assert Call.objects.filter(slug="miccai-2027").count() == 1
    assert get_user_model().objects.filter(username="chair").count() == 1
    assert Challenge.objects.count() == 4
    assert "Medical Segmentation Decathlon (registered, 2 tasks)" in again.getvalue()


def test_load_demo_leaves_a_path_for_every_role(capsys):
    call_command("load_demo")
    out = capsys.readouterr().out
    under_review = Challenge.objects.get(status=ChallengeStatus.UNDER_REVIEW)
    (open_review,) = Assignment.objects.filter(
        reviewer__username="reviewer1", status=AssignmentStatus.ASSIGNED
    )
    assert open_review.challenge == under_review
    assert open_review.due > timezone.localdate()
    assert list(
        Review.objects.filter(assignment__challenge=under_review).values_list(
            "assignment__reviewer__username", "revision"
        )
    ) == [("reviewer2", 1)]
    draft = Challenge.objects.get(status=ChallengeStatus.DRAFT)
    assert 50 <= completeness_of(draft).submission.percent <= 90
    assert draft.tasks.filter(scheme__isnull=True).exists()
    assert f"{under_review.name}” (under review)" in out
    assert "reviewer1    open technical review, due" in out
    assert "clinician    open clinical review, due" in out
    assert "chair        decision open, 1 of 3 reviews in" in out
    assert f"{draft.name}” (draft, " in out
