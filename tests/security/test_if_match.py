"""Attack: slip a stale save past If-Match (issue 30).

Weak ETags and another object's ETag were accepted, and only the first tag of
a list was read. If-Match, when sent, is now strict: strong tags of this very
object, every tag of a list read, one version named; a missing If-Match is
still allowed for simple clients.
"""

import pytest

from registry import services
from registry.versions import version_from_if_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposal(organizer, call):
    return services.create_challenge(owner=organizer, call=call, name="Decathlon")


@pytest.fixture
def other(organizer, call):
    return services.create_challenge(owner=organizer, call=call, name="Other")


def patch(api, proposal, if_match: str | None):
    headers = {} if if_match is None else {"HTTP_IF_MATCH": if_match}
    return api.patch(
        f"/api/v1/challenges/{proposal.pk}/", {"name": "Mine"}, format="json", **headers
    )


def test_a_weak_etag_is_refused(organizer_api, proposal):
    response = patch(organizer_api, proposal, f'W/"challenge-{proposal.pk}-v1"')
    assert response.status_code == 412
    assert "is a weak ETag" in response.json()["detail"]
    proposal.refresh_from_db()
    assert proposal.name == "Decathlon"


def test_another_objects_etag_is_refused(organizer_api, proposal, other):
    response = patch(organizer_api, proposal, f'"challenge-{other.pk}-v1"')
    assert response.status_code == 412
    assert "is not an ETag of this challenge" in response.json()["detail"]


def test_every_tag_of_a_list_is_read(organizer_api, proposal, other):
    own = f'"challenge-{proposal.pk}-v1"'
    assert (
        patch(organizer_api, proposal, f'{own}, "challenge-{other.pk}-v9"').status_code
        == 412
    )
    assert patch(organizer_api, proposal, f"{own}, W/{own}").status_code == 412


def test_tags_naming_two_versions_are_refused():
    with pytest.raises(ValueError, match="names 2 versions"):
        version_from_if_match('"task-3-v1", "task-3-v2"', "task", {"3"})


def test_the_own_strong_etag_and_no_if_match_still_save(organizer_api, proposal):
    etag = organizer_api.get(f"/api/v1/challenges/{proposal.pk}/")["ETag"]
    assert patch(organizer_api, proposal, etag).status_code == 200
    assert patch(organizer_api, proposal, None).status_code == 200


def test_another_answers_etag_is_refused(organizer_api, proposal):
    url = f"/api/v1/challenges/{proposal.pk}/answers/"
    first = organizer_api.put(url + "5/", {"value": "A"}, format="json")
    organizer_api.put(url + "6/", {"value": "B"}, format="json")  # also v1
    response = organizer_api.put(
        url + "6/", {"value": "C"}, format="json", HTTP_IF_MATCH=first["ETag"]
    )
    assert response.status_code == 412
    assert "is not an ETag of this answer" in response.json()["detail"]
