import pytest

from registry import services
from tests.factories import UserFactory
from tests.registry.helpers import fill_proposal


@pytest.fixture
def proposal(organizer, call):
    """A draft with one task, every parameter answered with its example value."""
    challenge = services.create_challenge(owner=organizer, call=call, name="Decathlon")
    services.add_task(challenge=challenge, name="Brain", actor=organizer)
    fill_proposal(challenge, organizer)
    return challenge


@pytest.fixture
def stranger(db):
    return UserFactory(username="stranger")
