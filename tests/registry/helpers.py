"""Test helpers that fill proposals through the real services."""

from registry import services
from registry.parameters import PARAMETERS


def fill_proposal(challenge, actor, *, skip=frozenset()):
    """Answer every parameter (challenge level and every task) with its example."""
    for parameter in PARAMETERS:
        if parameter.number in skip or parameter.number == services.NAME_PARAMETER:
            continue
        targets = (
            [None] if parameter.level == "challenge" else list(challenge.tasks.all())
        )
        for task in targets:
            services.answer_parameter(
                challenge=challenge,
                task=task,
                number=parameter.number,
                value=parameter.example_value,
                actor=actor,
            )
