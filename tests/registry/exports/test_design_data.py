import datetime as dt

import pytest

from registry import services
from registry.exports import build_design_data
from registry.parameters import PARAMETERS
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_build_design_data_orders_challenge_level_then_tasks(proposal, organizer):
    services.add_task(challenge=proposal, name="Abdomen", actor=organizer)

    data = build_design_data(
        proposal, registry_url="https://r.example/p/1", today=dt.date(2027, 1, 2)
    )

    assert [s.title for s in data.sections] == [
        "Challenge level",
        "Task 1: Brain",
        "Task 2: Abdomen",
    ]
    numbers = [[a.number for g in s.groups for a in g.answers] for s in data.sections]
    assert numbers[0] == [p.number for p in PARAMETERS if p.level == "challenge"]
    assert numbers[1] == numbers[2] == list(range(16, 54))
    assert data.generated_on == dt.date(2027, 1, 2)
    assert data.registry_url == "https://r.example/p/1"
    assert data.status == "Draft"


def test_build_design_data_marks_missing_and_not_applicable(proposal, organizer):
    services.clear_answer(challenge=proposal, number=2, actor=organizer)
    services.answer_parameter(
        challenge=proposal, number=7, not_applicable=" Public data. ", actor=organizer
    )

    data = build_design_data(proposal, registry_url="https://r.example/p/1")

    answers = {a.number: a for g in data.sections[0].groups for a in g.answers}
    assert answers[2].state == "missing"
    assert answers[2].required is True
    assert answers[2].text == ""
    assert answers[7].state == "not_applicable"
    assert answers[7].text == "Public data."
    assert answers[6].state == "answered"
    assert answers[6].text.startswith("2027-04-01: Release of training data")


def test_build_design_data_summarises_completeness(proposal, organizer):
    services.clear_answer(challenge=proposal, number=2, actor=organizer)
    co = UserFactory(username="carl", first_name="Carl", last_name="Co")
    services.add_co_organizer(challenge=proposal, user=co, actor=organizer)

    data = build_design_data(proposal, registry_url="https://r.example/p/1")

    assert data.overall_percent == round(100 * 52 / 53, 1)
    assert data.threshold_percent == 90
    assert data.can_submit is True
    totals = [r for r in data.completeness_rows if r.is_total]
    assert [(r.label, r.done, r.total) for r in totals] == [
        ("Challenge level", 14, 15),
        ("Task: Brain", 38, 38),
    ]
    assert data.organizers[0].startswith("olga")
    assert data.organizers[1].startswith("Carl Co (Institute")
