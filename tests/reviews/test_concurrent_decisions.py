"""Two chairs decide at the same moment: exactly one wins, the other gets 409."""

import threading

import pytest
from django.db import connection

from registry.models import StatusChange
from reviews.models import Decision
from tests.factories import UserFactory
from tests.reviews.conftest import client_for


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL row locks (set DATABASE_URL)",
)
@pytest.mark.django_db(transaction=True)
def test_two_chairs_deciding_at_once_one_wins_other_conflicts(under_review):
    second_chair = UserFactory(username="chair2")
    under_review.call.chairs.add(second_chair)
    url = f"/api/v1/challenges/{under_review.challenge.pk}/decision/"
    start = threading.Barrier(2)
    results: dict[str, tuple[int, dict]] = {}

    def decide(chair, decision):
        try:
            client = client_for(chair)
            start.wait(timeout=10)
            body = {"decision": decision, "letter": f"{decision}!", "confirm": True}
            response = client.post(url, body, format="json")
            results[decision] = (response.status_code, response.json())
        finally:
            connection.close()

    threads = [
        threading.Thread(target=decide, args=(under_review.chair, "accept")),
        threading.Thread(target=decide, args=(second_chair, "reject")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(code for code, _ in results.values()) == [201, 409]
    winner = next(d for d, (code, _) in results.items() if code == 201)
    loser = next(d for d, (code, _) in results.items() if code == 409)
    assert "a decision needs a proposal under review" in results[loser][1]["detail"]
    under_review.challenge.refresh_from_db()
    expected = {"accept": "accepted", "reject": "rejected"}[winner]
    assert under_review.challenge.status == expected
    assert list(Decision.objects.values_list("decision", "letter")) == [
        (winner, f"{winner}!")
    ]
    assert StatusChange.objects.filter(from_status="under_review").count() == 1
