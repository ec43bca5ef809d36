"""A registered challenge with a committed results version, built via services."""

import io

import pytest

from analysis import ingest
from registry.registration import register_challenge
from tests.factories import ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal

SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "aggregate_then_rank",
    "uncertainty": {"bootstrap": 200, "seed": 7},
}


def results_csv(*, cases: int = 12, algorithms=("A", "B", "C")) -> bytes:
    lines = ["task,case,algorithm,metric,value"]
    for case in range(cases):
        for index, algorithm in enumerate(algorithms):
            value = 0.5 + 0.1 * index + 0.01 * ((case * 7 + index) % 5)
            lines.append(f"Brain,c{case:03d},{algorithm},DSC,{value:.3f}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def chair(call):
    user = UserFactory(username="chair")
    call.chairs.add(user)
    return user


@pytest.fixture
def registration(call, organizer, chair):
    challenge = ChallengeFactory(call=call, owner=organizer, name="Decathlon")
    TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, organizer)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


@pytest.fixture
def results(registration, organizer):
    raw = ingest.read_upload("results.csv", results_csv())
    return ingest.commit_results(
        registration=registration,
        raw=raw,
        original_name="results.csv",
        actor=organizer,
    )


def upload(client, identifier: str, name: str, data: bytes, *, commit: bool = True):
    suffix = "?commit=true" if commit else ""
    file = io.BytesIO(data)
    file.name = name
    return client.post(
        f"/api/v1/registrations/{identifier}/results/{suffix}",
        {"file": file},
        format="multipart",
    )
