import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from registry.models import Call, Challenge

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


def test_load_demo_is_idempotent():
    call_command("load_demo")
    call_command("load_demo")
    assert Call.objects.filter(slug="miccai-2027").count() == 1
    assert get_user_model().objects.filter(username="chair").count() == 1


def test_load_demo_loads_both_designs_once(capsys):
    call_command("load_demo")
    call_command("load_demo")
    out = capsys.readouterr().out
    assert "Medical Segmentation Decathlon (registered, 2 tasks)" in out
    assert Challenge.objects.filter(name="Medical Segmentation Decathlon").count() == 1
    assert Challenge.objects.count() == 2
