"""`GET /api/v1/`: the entry points, each of them served."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_api_root_lists_entry_points_that_answer():
    client = APIClient()
    response = client.get("/api/v1/")
    assert response.status_code == 200
    entries = response.json()
    assert {"registrations", "challenges", "parameters", "schema"} <= set(entries)
    for name, url in entries.items():
        assert url.startswith("http://testserver/"), name
        # public ones answer 200, the others ask for credentials; none is missing
        assert client.get(url).status_code in (200, 401), name
    assert client.get(entries["registrations"]).json()["results"] == []
