from registry import services
from registry.completeness import StoredAnswer, compute_completeness
from registry.models import Challenge
from registry.parameters import PARAMETERS, parameters_at
from registry.selectors import completeness_of, completeness_of_many
from tests.factories import ChallengeFactory, TaskFactory

CHALLENGE_LEVEL = parameters_at("challenge")
TASK_LEVEL = parameters_at("task")
REQUIRED_CHALLENGE = [p for p in CHALLENGE_LEVEL if p.required_for_submission]
REQUIRED_TASK = [p for p in TASK_LEVEL if p.required_for_submission]


def filled(parameter):
    return StoredAnswer(parameter.example_value)


def full_answers(task_ids):
    answers = {(None, p.number): filled(p) for p in CHALLENGE_LEVEL}
    for task_id in task_ids:
        answers.update({(task_id, p.number): filled(p) for p in TASK_LEVEL})
    return answers


def test_level_split_counts():
    assert len(CHALLENGE_LEVEL) + len(TASK_LEVEL) == 53
    assert len(REQUIRED_CHALLENGE) + len(REQUIRED_TASK) == 40


def test_empty_proposal_without_tasks_cannot_submit():
    result = compute_completeness(answers={}, tasks=[], threshold_percent=0)
    assert result.overall.total == len(CHALLENGE_LEVEL)
    assert result.can_submit is False


def test_task_parameters_count_once_per_task():
    result = compute_completeness(
        answers={}, tasks=[(1, "A"), (2, "B")], threshold_percent=90
    )
    assert result.overall.total == len(CHALLENGE_LEVEL) + 2 * len(TASK_LEVEL)
    assert result.submission.total == len(REQUIRED_CHALLENGE) + 2 * len(REQUIRED_TASK)
    assert result.submission.done == 0


def test_complete_proposal_is_100_percent():
    result = compute_completeness(
        answers=full_answers([1, 2]), tasks=[(1, "A"), (2, "B")], threshold_percent=90
    )
    assert (result.overall.percent, result.submission.percent) == (100.0, 100.0)
    assert result.can_submit


def test_not_applicable_counts_as_answered_and_empty_value_does_not():
    answers = full_answers([1])
    answers[(None, 7)] = StoredAnswer(None, not_applicable="No human data.")
    answers[(None, 2)] = StoredAnswer("")
    result = compute_completeness(
        answers=answers, tasks=[(1, "A")], threshold_percent=90
    )
    states = {(e.task_id, e.parameter.number): e.state for e in result.entries}
    assert states[(None, 7)] == "not_applicable"
    assert states[(None, 2)] == "missing"
    assert [e.parameter.number for e in result.missing_required] == [2]


def test_threshold_is_compared_exactly_without_rounding():
    # One task: 40 required entries. Leaving 4 out gives exactly 90 %.
    answers = full_answers([1])
    missing = list(REQUIRED_TASK)[:4]
    for parameter in missing:
        del answers[(1, parameter.number)]
    at_threshold = compute_completeness(
        answers=answers, tasks=[(1, "A")], threshold_percent=90
    )
    assert at_threshold.submission.done * 100 == 90 * at_threshold.submission.total
    assert at_threshold.can_submit
    del answers[(1, REQUIRED_TASK[4].number)]
    below = compute_completeness(
        answers=answers, tasks=[(1, "A")], threshold_percent=90
    )
    assert below.submission.percent == 87.5
    assert not below.can_submit


def test_missing_entries_name_their_task():
    answers = full_answers([1])
    result = compute_completeness(
        answers=answers, tasks=[(1, "A"), (2, "B")], threshold_percent=90
    )
    assert {e.task_name for e in result.missing_required} == {"B"}
    assert len(result.missing_required) == len(REQUIRED_TASK)


def test_sections_cover_every_entry_once():
    result = compute_completeness(
        answers=full_answers([1]), tasks=[(1, "A"), (2, "B")], threshold_percent=90
    )
    assert sum(t.total for *_, t in result.sections()) == len(result.entries)
    assert len(PARAMETERS) == 53


def test_completeness_of_many_is_completeness_of_each(
    accepted, organizer, call, django_assert_num_queries
):
    partial = ChallengeFactory(call=call, owner=organizer, name="Partial")
    TaskFactory(challenge=partial, name="A")
    TaskFactory(challenge=partial, name="B")
    services.answer_parameter(
        challenge=partial, number=5, value="Venue", actor=organizer
    )
    services.answer_parameter(
        challenge=partial, number=7, not_applicable="No humans.", actor=organizer
    )
    empty = ChallengeFactory(call=call, owner=organizer, name="Empty")
    page = list(Challenge.objects.select_related("call").order_by("pk"))
    with django_assert_num_queries(2):
        many = completeness_of_many(page)
    assert many == {c.pk: completeness_of(c) for c in page}
    assert many[accepted.pk].can_submit
    assert many[empty.pk].overall.done == 0
    assert 0 < many[partial.pk].overall.done < many[accepted.pk].overall.done


def test_design_tally_leaves_out_the_challenge_outcome_only():
    from registry.parameters import OUTCOME_PARAMETERS

    outcome = {p.number for p in OUTCOME_PARAMETERS}
    answers = {
        key: answer
        for key, answer in full_answers([1]).items()
        if key[1] not in outcome
    }
    result = compute_completeness(
        answers=answers, tasks=[(1, "A")], threshold_percent=90
    )
    per_task = len([p for p in TASK_LEVEL if p.number in outcome])
    assert per_task > 0
    assert result.overall.total - result.design.total == per_task
    assert result.design.percent == 100.0
    assert result.overall.done == result.design.done
