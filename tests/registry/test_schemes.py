import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from registry import services
from registry.models import Answer
from registry.schemes import set_task_scheme
from tests.factories import ChallengeFactory, TaskFactory
from tests.schemes import MSD_SCHEME

pytestmark = pytest.mark.django_db


@pytest.fixture
def task(organizer):
    challenge = ChallengeFactory(owner=organizer)
    task = TaskFactory(challenge=challenge, name="Brain")
    services.answer_parameter(
        challenge=challenge,
        task=task,
        number=44,
        actor=organizer,
        value={
            "metrics": [
                {"name": "DSC", "higher_is_better": True, "worst_value": 0},
                {"name": "HD95", "higher_is_better": False, "worst_value": 373},
            ]
        },
    )
    return task


def prose(task, number):
    return Answer.objects.get(task=task, number=number).value


def test_scheme_is_stored_normalised_and_fills_prose(task, organizer):
    set_task_scheme(task=task, scheme=MSD_SCHEME, actor=organizer)
    task.refresh_from_db()
    assert task.scheme["method"] == "test_then_rank"
    assert task.scheme["aggregate"] == "mean"  # default filled in
    assert "Wilcoxon" in prose(task, 46)
    assert "fixed value: 0 for DSC" in prose(task, 48)
    assert "1000 bootstrap samples" in prose(task, 49)
    assert "without multiplicity adjustment" in prose(task, 50)


def test_invalid_scheme_is_refused_naming_the_field(task, organizer):
    bad = {**MSD_SCHEME, "missing": {"policy": "value"}}
    with pytest.raises(ValidationError, match=r"scheme\.missing\.value"):
        set_task_scheme(task=task, scheme=bad, actor=organizer)
    task.refresh_from_db()
    assert task.scheme is None
    assert not Answer.objects.filter(task=task, number=46).exists()


def test_scheme_metric_must_be_registered_in_parameter_44(task, organizer):
    with pytest.raises(ValidationError, match="'NSD' is not among the task's metrics"):
        set_task_scheme(
            task=task, scheme={**MSD_SCHEME, "metric": "NSD"}, actor=organizer
        )


def test_scheme_direction_must_match_parameter_44(task, organizer):
    scheme = {
        **MSD_SCHEME,
        "metric": "HD95",
        "higher_is_better": True,
        "missing": {"policy": "value", "value": 373},
    }
    with pytest.raises(ValidationError, match="lower is better"):
        set_task_scheme(task=task, scheme=scheme, actor=organizer)


def test_only_organizers_set_schemes(task):
    from tests.factories import UserFactory

    with pytest.raises(PermissionDenied):
        set_task_scheme(task=task, scheme=MSD_SCHEME, actor=UserFactory())
