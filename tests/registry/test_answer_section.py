import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from registry import services
from registry.lock import RegisteredDataError, registered_changes_allowed
from registry.models import Answer
from registry.parameters import BY_NUMBER, PARAMETERS
from registry.services import AnswerInput

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
            2: AnswerInput(value="https://d.example.org"),
            5: AnswerInput(clear=True),
            7: AnswerInput(not_applicable="Public data."),
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
                2: AnswerInput(value="https://d.example.org"),
                4: AnswerInput(value={"choice": "sometimes"}),
                6: AnswerInput(value={"events": []}),
            },
        )
    assert set(caught.value.message_dict) == {"p04", "p06"}
    assert "'sometimes' is not one of" in caught.value.message_dict["p04"][0]
    assert not Answer.objects.filter(challenge=proposal, number=2).exists()


def _examples(numbers):
    return {n: AnswerInput(BY_NUMBER[n].example_value) for n in numbers}


CHALLENGE_LEVEL = [
    p.number
    for p in PARAMETERS
    if p.level == "challenge" and p.number != services.NAME_PARAMETER
]


def test_store_answers_costs_the_same_queries_for_3_and_for_all_answers(
    proposal, organizer
):
    counts = []
    for numbers in (CHALLENGE_LEVEL[:3], CHALLENGE_LEVEL[3:]):
        with CaptureQueriesContext(connection) as queries:
            services.store_answers(
                challenge=proposal, actor=organizer, answers=_examples(numbers)
            )
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 6  # savepoint, lock, read, insert, stamp
    assert proposal.answers.count() == 1 + len(CHALLENGE_LEVEL)


def test_store_answers_writes_only_changes_with_their_next_versions(
    proposal, organizer
):
    services.store_answers(
        challenge=proposal,
        actor=organizer,
        answers={2: AnswerInput("https://a.example.org"), 5: AnswerInput("Venue A")},
    )
    stamped = type(proposal).objects.get(pk=proposal.pk).updated
    result = services.store_answers(
        challenge=proposal,
        actor=organizer,
        answers={
            2: AnswerInput("https://a.example.org"),  # unchanged
            5: AnswerInput(not_applicable="Online only."),
            7: AnswerInput(clear=True),  # nothing stored: nothing to clear
        },
        expected_versions={2: 1, 5: 1, 7: 0},
    )
    rows = {
        a.number: (a.version, a.value, a.not_applicable) for a in proposal.answers.all()
    }
    assert rows == {
        1: (1, "Decathlon", ""),
        2: (1, "https://a.example.org", ""),
        5: (2, None, "Online only."),
    }
    assert result[7] is None
    assert result[5].version == 2
    # the changed row's value is SQL NULL (not JSON null), as a first save writes it
    assert Answer.objects.filter(challenge=proposal, value__isnull=True).count() == 1
    assert type(proposal).objects.get(pk=proposal.pk).updated > stamped


def test_store_answers_renames_the_challenge_once(proposal, organizer):
    version = proposal.version
    services.store_answers(
        challenge=proposal,
        actor=organizer,
        answers={1: AnswerInput("Pentathlon"), 2: AnswerInput("https://p.org")},
    )
    stored = type(proposal).objects.get(pk=proposal.pk)
    assert (stored.name, stored.version) == ("Pentathlon", version + 1)
    assert (proposal.name, proposal.version) == ("Pentathlon", version + 1)


def test_store_answers_on_a_registered_design_is_refused_and_writes_nothing(
    proposal, organizer
):
    type(proposal).objects.filter(pk=proposal.pk).update(status="registered")
    with pytest.raises(RegisteredDataError, match="answer"):
        services.store_answers(
            challenge=proposal,
            actor=organizer,
            answers={1: AnswerInput("Renamed"), 2: AnswerInput("https://p.org")},
        )
    assert list(proposal.answers.values_list("number", "value")) == [(1, "Decathlon")]
    with registered_changes_allowed():  # an approved amendment's door
        services.store_answers(
            challenge=proposal,
            actor=organizer,
            answers={2: AnswerInput("https://p.org")},
        )
    assert proposal.answers.filter(number=2).exists()
