import pytest

from tests.factories import ChallengeFactory, TaskFactory
from tests.registry.helpers import fill_proposal


@pytest.fixture
def accepted(call, organizer):
    """An accepted one-task proposal ("Decathlon" / "Brain"), every parameter filled."""
    challenge = ChallengeFactory(call=call, owner=organizer, name="Decathlon")
    TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, organizer)
    challenge.status = "accepted"
    challenge.save()
    return challenge
