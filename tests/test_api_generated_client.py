"""A client generated from the current schema by openapi-python-client drives a
challenge's whole life: create, answer, submit, assign, review, decide,
register, upload results, start the analysis, wait, read the rankings and the
deviations, download the report. Every answer is parsed into the generated
typed models (no untyped dict) and any status the schema does not declare
raises `UnexpectedStatus`. The client is generated into a temporary directory
for each run, never committed."""

import importlib
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from rest_framework.authtoken.models import Token

from config.wsgi import application
from registry.parameters import PARAMETERS
from registry.services import NAME_PARAMETER
from tests import api_contract
from tests.analysis.django.conftest import SCHEME, small_results_csv
from tests.factories import CallFactory, UserFactory

PACKAGE = "registry_client"
# Downloads that are not JSON: bytes (File) or text, as the client reads them.
CONFIG = {
    "content_type_overrides": {
        "application/pdf": "application/octet-stream",
        "application/xml": "text/plain",
        "application/x-bibtex": "text/plain",
        "text/csv": "text/plain",
    }
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The generated package, imported from a temporary directory."""
    out = tmp_path_factory.mktemp("client")
    schema, config = out / "openapi.json", out / "config.json"
    schema.write_text(json.dumps(api_contract.generate_schema(), default=str))
    config.write_text(json.dumps(CONFIG))
    generator = Path(sys.executable).with_name("openapi-python-client")
    arguments = ["--path", schema, "--config", config, "--meta", "none"]
    subprocess.run(
        [generator, "generate", *arguments, "--output-path", out / PACKAGE],
        check=True,
        capture_output=True,
        timeout=300,
    )
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def _op(name: str):
    return importlib.import_module(f"{PACKAGE}.api.v1.{name}")


def _models():
    return importlib.import_module(f"{PACKAGE}.models")


def _client(generated, user):
    token, _ = Token.objects.get_or_create(user=user)
    return generated.AuthenticatedClient(
        base_url="http://testserver",
        token=token.key,
        prefix="Token",
        raise_on_unexpected_status=True,
        httpx_args={"transport": httpx.WSGITransport(app=application)},
    )


def _ok(response, status: int, model):
    """The parsed body of an answer with `status`, of the generated `model`."""
    assert response.status_code == status, response.content[:500]
    assert isinstance(response.parsed, model), type(response.parsed)
    return response.parsed


@pytest.fixture
def people(db):
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="chair")
    call.chairs.add(chair)
    return {
        "call": call,
        "chair": chair,
        "organizer": UserFactory(username="olga"),
        "reviewers": [UserFactory(username=n) for n in ("tina", "tom", "clara")],
    }


@pytest.mark.slow
def test_a_generated_client_drives_the_whole_life_cycle(generated, people):
    with api_contract.keep_test_connection():
        identifier = _design_review_register(generated, people)
        _analyse(generated, people["organizer"], identifier)


def _design_review_register(generated, people) -> str:
    m = _models()
    olga = _client(generated, people["organizer"])
    chair = _client(generated, people["chair"])
    create = m.ChallengeCreate(name="Decathlon", call="miccai-2027")
    challenge = _ok(
        _op("v1_challenges_create").sync_detailed(client=olga, body=create),
        201,
        m.Challenge,
    )
    task = _ok(
        _op("v1_challenges_tasks_create").sync_detailed(
            challenge.id, client=olga, body=m.TaskWrite(name="Brain")
        ),
        201,
        m.Task,
    )
    _answer_everything(generated, olga, challenge.id, task.id)
    _ok(
        _op("v1_tasks_partial_update").sync_detailed(
            task.id, client=olga, body=m.PatchedTaskUpdate(scheme=SCHEME)
        ),
        200,
        m.Task,
    )
    submitted = _ok(
        _op("v1_challenges_submit_create").sync_detailed(
            challenge.id, client=olga, body=m.Note()
        ),
        200,
        m.Status,
    )
    assert submitted.status == "submitted"

    roles = ["technical", "technical", "clinical"]
    for reviewer, role in zip(people["reviewers"], roles, strict=True):
        assignment = _ok(
            _op("v1_challenges_assignments_create").sync_detailed(
                challenge.id,
                client=chair,
                body=m.AssignmentWrite(
                    reviewer=reviewer.username, role=m.RoleEnum(role), confirm=True
                ),
            ),
            201,
            m.Assignment,
        )
        assert assignment.reviewer == reviewer.username
    for reviewer in people["reviewers"]:
        review = _ok(
            _op("v1_challenges_reviews_create").sync_detailed(
                challenge.id,
                client=_client(generated, reviewer),
                body=m.ReviewWrite(
                    recommendation=m.RecommendationEnum("accept"),
                    confidence=4,
                    comments="Clear design.",
                ),
            ),
            201,
            m.Review,
        )
        assert review.mine
    decision = _ok(
        _op("v1_challenges_decision_create").sync_detailed(
            challenge.id,
            client=chair,
            body=m.DecisionWrite(
                decision=m.DecisionEnum("accept"), letter="Accepted.", confirm=True
            ),
        ),
        201,
        m.DecisionCreated,
    )
    assert decision.status == "accepted"
    registered = _ok(
        _op("v1_challenges_register_create").sync_detailed(challenge.id, client=chair),
        201,
        m.Registered,
    )
    canonical = _ok(
        _op("v1_registrations_versions_canonical_json_retrieve").sync_detailed(
            registered.identifier, 1, client=olga
        ),
        200,
        m.CanonicalDocument,
    )
    assert canonical.design.tasks[0].name == "Brain"
    return registered.identifier


def _answer_everything(generated, client, challenge_id: int, task_id: int) -> None:
    """Every parameter answered with its example, read from the API."""
    m = _models()
    page = _ok(
        _op("v1_parameters_retrieve").sync_detailed(client=client),
        200,
        m.ParameterPage,
    )
    assert (page.count, page.next_) == (len(PARAMETERS), None)
    for parameter in page.results:
        if parameter.number == NAME_PARAMETER:
            continue
        body = m.AnswerWrite(value=parameter.example_value)
        if parameter.level == m.LevelEnum.CHALLENGE:
            send = _op("v1_challenges_answers_update").sync_detailed
            target = challenge_id
        else:
            send = _op("v1_tasks_answers_update").sync_detailed
            target = task_id
        answer = _ok(
            send(target, parameter.number, client=client, body=body), 200, m.Answer
        )
        assert answer.number == parameter.number


def _analyse(generated, organizer, identifier: str) -> None:
    m = _models()
    types = importlib.import_module(f"{PACKAGE}.types")
    olga = _client(generated, organizer)
    upload = m.V1RegistrationsResultsCreateBody(
        file=types.File(payload=io.BytesIO(small_results_csv()), file_name="r.csv")
    )
    stored = _ok(
        _op("v1_registrations_results_create").sync_detailed(
            identifier, client=olga, body=upload, commit=True
        ),
        201,
        m.ResultsStored,
    )
    accepted = _ok(
        _op("v1_results_analyses_create").sync_detailed(
            stored.id, client=olga, body=m.AnalysisRequest()
        ),
        202,
        m.Accepted,
    )
    run = _wait(olga, accepted.id)
    assert run.status == "done", run.error
    tables = _ok(
        _op("v1_analyses_tables_retrieve").sync_detailed(run.id, client=olga),
        200,
        m.Tables,
    )
    ranks = {row["algorithm"]: row["rank"] for row in tables.rankings}
    assert sorted(ranks) == ["A", "B", "C"]
    deviations = _op("v1_analyses_deviations_list").sync_detailed(run.id, client=olga)
    assert deviations.status_code == 200
    assert all(isinstance(d, m.Deviation) for d in deviations.parsed)
    assert "case_count_mismatch" in {d.code for d in deviations.parsed}
    report = _ok(
        _op("v1_analyses_report_pdf_retrieve").sync_detailed(run.id, client=olga),
        200,
        types.File,
    )
    assert report.payload.read().startswith(b"%PDF")


def _wait(client, run_id: int, *, seconds: float = 120):
    """The run once it is done or failed (jobs run in-process in tests)."""
    m = _models()
    deadline = time.monotonic() + seconds
    while True:
        run = _ok(
            _op("v1_analyses_retrieve").sync_detailed(run_id, client=client),
            200,
            m.AnalysisRun,
        )
        if run.status in ("done", "failed") or time.monotonic() > deadline:
            return run
        time.sleep(0.5)
