"""Test helpers that fill proposals through the real services."""

from registry import services
from registry.parameters import PARAMETERS


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
