"""Test helpers that fill proposals through the real services."""

from registry import services
from registry.parameters import PARAMETERS
from registry.schemes import set_task_scheme
from tests.factories import ChallengeFactory, TaskFactory


def fill_proposal(challenge, actor, *, skip=frozenset()):
    """Answer every parameter (challenge level and every task) with its example,
    one `answer_section` per level and task, as the editor saves them."""
    for task in [None, *challenge.tasks.all()]:
        level = "challenge" if task is None else "task"
        services.answer_section(
            challenge=challenge,
            task=task,
            actor=actor,
            answers={
                p.number: services.AnswerInput(p.example_value)
                for p in PARAMETERS
                if p.level == level
                and p.number not in skip
                and p.number != services.NAME_PARAMETER
            },
        )


def proposal_with_scheme(call, owner, scheme, *, skip=frozenset()):
    """A draft "Decathlon" with one task "Brain": every parameter answered with
    its example (but those in `skip`), the task ranked by `scheme`."""
    challenge = ChallengeFactory(call=call, owner=owner, name="Decathlon")
    task = TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, owner, skip=skip)
    set_task_scheme(task=task, scheme=scheme, actor=owner)
    return challenge
