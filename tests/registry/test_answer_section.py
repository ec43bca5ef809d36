import pytest
from django.core.exceptions import ValidationError

from registry import services
from registry.models import Answer
from registry.services import SectionAnswer

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposal(organizer, call):
    return services.create_challenge(owner=organizer, call=call, name="Decathlon")


def test_answer_section_stores_values_reasons_and_clears(proposal, organizer):
    services.answer_parameter(
        challenge=proposal, number=5, value="Old venue", actor=organizer
    )
    services.answer_section(
        challenge=proposal,
        actor=organizer,
        answers={
            2: SectionAnswer(value="https://d.example.org"),
            5: SectionAnswer(),
            7: SectionAnswer(not_applicable="Public data."),
        },
    )
    stored = {a.number: (a.value, a.not_applicable) for a in proposal.answers.all()}
    assert stored == {
        1: ("Decathlon", ""),
        2: ("https://d.example.org", ""),
        7: (None, "Public data."),
    }


def test_answer_section_one_bad_value_saves_nothing_and_names_each_field(
    proposal, organizer
):
    with pytest.raises(ValidationError) as caught:
        services.answer_section(
            challenge=proposal,
            actor=organizer,
            answers={
                2: SectionAnswer(value="https://d.example.org"),
                4: SectionAnswer(value={"choice": "sometimes"}),
                6: SectionAnswer(value={"events": []}),
            },
        )
    assert set(caught.value.message_dict) == {"p04", "p06"}
    assert "'sometimes' is not one of" in caught.value.message_dict["p04"][0]
    assert not Answer.objects.filter(challenge=proposal, number=2).exists()
