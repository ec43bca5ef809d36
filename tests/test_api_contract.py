"""The API's contract: the published schema is current and every write refuses
a body that is not a JSON object. (Every answer any test receives is validated
against the schema by tests/conftest.py; see tests/api_contract.py.)"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import Client
from drf_spectacular.renderers import OpenApiYamlRenderer
from openapi_core import OpenAPI

from config import api_schema
from tests import api_contract
from tests.factories import UserFactory

SCHEMA_FILE = Path(settings.BASE_DIR) / "docs" / "openapi.yaml"
WRITES = ("post", "put", "patch", "delete")


def _write_operations() -> list[tuple[str, str]]:
    schema = api_contract.generate_schema()
    return [
        (method.upper(), path.replace("{", "").replace("}", ""))
        for path, item in schema["paths"].items()
        for method in item
        if method in WRITES
    ]


def test_docs_openapi_yaml_is_the_current_schema():
    # on SQLite and PostgreSQL alike: integer bounds are stated as PostgreSQL's
    # (config.api_schema.integer_bounds_as_on_postgresql)
    current = OpenApiYamlRenderer().render(api_contract.generate_schema()).decode()
    assert SCHEMA_FILE.read_text() == current, (
        "docs/openapi.yaml is stale: regenerate it with `python manage.py "
        "spectacular --file docs/openapi.yaml` and note breaking changes in "
        "docs/api.md (Changelog)."
    )


def test_column_bounds_are_postgresqls_whichever_database_generates():
    schema = api_contract.generate_schema()["components"]["schemas"]
    # PositiveIntegerField: 64 bits on SQLite, PostgreSQL's `integer` otherwise
    assert schema["Task"]["properties"]["position"] == {
        "type": "integer",
        "maximum": 2147483647,
        "minimum": 0,
    }
    assert schema["Challenge"]["properties"]["revision"]["maximum"] == 2147483647
    assert "format" not in schema["Challenge"]["properties"]["revision"]


def test_column_bounds_of_another_database_become_postgresqls():
    # a PositiveIntegerField's bounds as SQLite gives them (2**63 - 1)
    from django.db.backends.sqlite3.base import DatabaseWrapper  # (not at load)

    sqlite_range = DatabaseWrapper.ops_class(None).integer_field_range(
        "PositiveIntegerField"
    )
    assert sqlite_range == (0, 2**63 - 1)
    prop = {"type": "integer", "maximum": 2**63 - 1, "minimum": 0, "format": "int64"}
    api_schema._as_on_postgresql(prop, "PositiveIntegerField", here=sqlite_range)
    assert prop == {"type": "integer", "maximum": 2147483647, "minimum": 0}


def test_a_stricter_bound_than_the_column_stays():
    prop = {"type": "integer", "maximum": 100, "minimum": 0}
    api_schema._as_on_postgresql(prop, "BigIntegerField")
    assert prop == {"type": "integer", "maximum": 100, "minimum": 0}


def test_the_postgresql_ranges_are_the_backends_own():
    postgresql = pytest.importorskip("django.db.backends.postgresql.operations")
    ranges = postgresql.DatabaseOperations.integer_field_ranges
    assert ranges == api_schema.POSTGRESQL_INTEGER_RANGES
    assert ranges["PositiveIntegerField"] == (0, 2147483647)


def test_the_published_schema_is_valid_openapi():
    OpenAPI.from_dict(yaml.safe_load(SCHEMA_FILE.read_text()))  # raises if invalid


def _concrete(path: str) -> str:
    """A path with its parameters filled in (the body is refused first)."""
    filled = {"identifier": "miccai-2027-001", "table": "rankings"}
    for part in path.strip("/").split("/"):
        if part in {"id", "pk", "number"}:
            path = path.replace(f"/{part}/", "/1/")
    for name, value in filled.items():
        path = path.replace(f"/{name}/", f"/{value}/")
    return path


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), _write_operations())
@pytest.mark.parametrize("body", [7, [1, 2], "text", None, True])
def test_a_body_that_is_not_a_json_object_is_refused_on_every_write(method, path, body):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    response = client.generic(
        method, _concrete(path), json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 400, (method, path, response.content[:200])
    assert "must be a JSON object" in response.json()["detail"]


def _redocly() -> str | None:
    """Redocly CLI, installed by .ci/run (REDOCLY); CI requires it."""
    found = os.environ.get("REDOCLY") or shutil.which("redocly")
    if found is None and os.environ.get("REQUIRE_REDOCLY"):
        pytest.fail("REQUIRE_REDOCLY is set but Redocly CLI is not installed")
    return found


def test_the_published_schema_passes_redocly_lint():
    redocly = _redocly()
    if redocly is None:
        pytest.skip("Redocly CLI is not installed (.ci/run installs it)")
    quiet = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
    run = subprocess.run(
        [redocly, "lint", str(SCHEMA_FILE), "--config", "redocly.yaml"],
        cwd=settings.BASE_DIR,
        env={**os.environ, **quiet},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
