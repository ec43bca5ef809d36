"""Schemathesis against /api/schema/ on the demo data: generated requests to
every operation, in-process through the WSGI app, as an anonymous reader, the
organizer, the chair and a reviewer, with every check Schemathesis has (no
5xx, documented statuses and content types, bodies that match their schema,
schema-valid input accepted, invalid input refused, credentials honoured).

The few exclusions are listed in ``EXCLUDED`` and in docs/api.md, each with its
reason."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import positive_data_acceptance

from config.wsgi import application
from demo.accounts import ensure_demo_accounts, ensure_demo_call
from demo.load import load_demo_challenges
from tests import api_contract

ROLES = ("anonymous", "organizer", "chair", "reviewer1")

# Operations whose input is checked beyond what a schema can say; a schema-
# valid body that names no existing object, or a document that fails the
# design's own rules, is a 400 with the reason (docs/api.md, "Exclusions").
SEMANTIC_INPUT = {
    "POST /api/v1/challenges/",  # `call` must name an open call
    "POST /api/v1/challenges/import/",  # an exported design document
    "POST /api/v1/conflicts/",  # an institution or an existing challenge
    "GET /api/v1/statistics/",  # `call` must name a call
    "GET /api/v1/statistics/statistics.csv",  # the same
    "PATCH /api/v1/me/",  # an ORCID iD's check digit (ISO 7064 11,2)
}
EXCLUDED = {label: [positive_data_acceptance] for label in SEMANTIC_INPUT}

FUZZ = settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture
def demo_world(db):
    call = ensure_demo_call()
    users = ensure_demo_accounts(call)
    load_demo_challenges(call, users)
    return users


@pytest.fixture
def api_schema(db):
    with api_contract.keep_test_connection():
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


def _headers(users, role: str) -> dict[str, str]:
    if role == "anonymous":
        return {}
    token, _ = Token.objects.get_or_create(user=users[role])
    return {"Authorization": f"Token {token.key}"}


@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_every_operation_keeps_its_contract(api_schema, demo_world, role, mode):
    headers = _headers(demo_world, role)
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 40  # the whole API, not an empty schema
    failures: list[str] = []

    for operation in operations:
        try:
            _fuzz(operation, mode, headers)
        except Unsatisfiable:  # nothing to send in this mode (no input, any string)
            continue
        except (Exception, BaseExceptionGroup) as exc:  # one line per failure
            failures.append(f"{operation.label}: {_summary(exc)}")
    assert not failures, "\n".join(failures)


def _summary(failure: BaseException) -> str:
    """Each distinct failure's title, and the request that reproduces it."""
    titles = [str(e).splitlines()[0] for e in getattr(failure, "exceptions", [])]
    lines = [line.strip() for line in str(failure).splitlines()]
    curl = next((line for line in lines if line.startswith("curl ")), "")
    return " | ".join([*(titles or [lines[0]]), curl])


def _fuzz(operation, mode, headers) -> None:
    excluded = EXCLUDED.get(operation.label)

    @FUZZ
    @given(case=operation.as_strategy(generation_mode=mode))
    def check(case):
        case.call_and_validate(headers=headers, excluded_checks=excluded)

    check()


@pytest.mark.django_db
def test_registration_search_refuses_a_year_out_of_range(api):
    response = api.get("/api/v1/registrations/", {"year": "9" * 30})
    assert response.status_code == 400
    assert "is not a year" in response.json()["year"][0]
    assert api.get("/api/v1/registrations/", {"year": "2027"}).json()["results"] == []


@pytest.mark.django_db
def test_missing_credentials_get_401_with_the_token_challenge(api):
    response = api.get("/api/v1/challenges/1/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.django_db
def test_an_unknown_api_url_is_a_json_404(client):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No such resource."}
    assert client.get("/no-such-page/")["Content-Type"].startswith("text/html")
