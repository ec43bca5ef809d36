"""The OpenAPI schema states the error answers every operation can give.

Views declare their own success bodies and the statuses only they produce
(409 for a workflow conflict, 412 for a stale `If-Match`); the answers that
come from the framework itself are added here, by rule, so no operation can
forget one:

- 401 everywhere: a missing or invalid token (`WWW-Authenticate: Token`);
- 403 everywhere: signed in but not allowed, or a session write without CSRF;
- 404 where the path names an object, or the list is paginated (a page past
  the end);
- 400 where the operation reads a body or query parameters, and on every
  write (a write that breaks a rule of the design, e.g. clearing an answer);
- 409 on every write: a registered design changes only through an approved
  amendment (`config.api.exception_handler`);
- 413 and 415 where the operation reads a body (size limit; JSON only);
- 503 everywhere: the database did not answer (hung, restarting), with
  Retry-After (`config.unavailable`); one shared response, referenced.

Integer bounds that come from a database column's range are stated as on
PostgreSQL, the production database (:func:`integer_bounds_as_on_postgresql`),
so the published schema is the same whichever database generated it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection, models
from django.db.backends.base.operations import BaseDatabaseOperations
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

ERROR_SCHEMA = {
    "type": "object",
    "description": "`detail` for a single reason; field names for invalid input.",
    "additionalProperties": True,
    "properties": {
        "detail": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}},
            ]
        }
    },
}
WRITES = {"post", "put", "patch", "delete"}
DESCRIPTIONS = {
    "400": "Invalid input; the body names each problem.",
    "401": "No valid credentials (missing or invalid token).",
    "403": "Not allowed for this user.",
    "404": "No such object visible to this user, or no such page.",
    "409": "Not possible in the current state; the body says why.",
    "413": "The body is larger than the configured limit.",
    "415": "The body is not in a format this operation reads.",
    "429": "Too much work queued or running for this user or the registry "
    "(MAX_ACTIVE_RUNS_PER_USER, MAX_ACTIVE_RUNS); Retry-After says when to try "
    "again.",
}
UNAVAILABLE = {
    "description": "The database did not answer; the request was not completed. "
    "Retry-After says when to try again.",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    "headers": {
        "Retry-After": {
            "description": "Seconds to wait before trying again.",
            "schema": {"type": "integer"},
        }
    },
}
# An operation that starts work declares `429: BUSY_RESPONSE`; the hook below
# gives it the Error body and the Retry-After header.
BUSY_RESPONSE = OpenApiResponse(description=DESCRIPTIONS["429"])


def _statuses(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    params = {p.get("name") for p in operation.get("parameters", [])}
    query = [p for p in operation.get("parameters", []) if p.get("in") == "query"]
    body = "requestBody" in operation
    wanted = ["401", "403"]
    if "{" in path or "page" in params or "cursor" in params:
        wanted.append("404")
    if body or query or method in WRITES:
        wanted.append("400")
    if method in WRITES:
        wanted.append("409")
    if body:
        wanted += ["413", "415"]
    return wanted


def document_error_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Error", ERROR_SCHEMA)
    reference = {"$ref": "#/components/schemas/Error"}
    shared = result["components"].setdefault("responses", {})
    shared.setdefault("DatabaseUnavailable", UNAVAILABLE)
    unavailable = {"$ref": "#/components/responses/DatabaseUnavailable"}
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            if "429" in responses:
                responses["429"]["content"] = {
                    "application/json": {"schema": reference}
                }
                responses["429"]["headers"] = {
                    "Retry-After": {
                        "description": "Seconds until a run is likely to have ended.",
                        "schema": {"type": "integer"},
                    }
                }
            responses.setdefault("503", unavailable)
            for code in _statuses(path, method, operation):
                responses.setdefault(
                    code,
                    {
                        "description": DESCRIPTIONS[code],
                        "content": {"application/json": {"schema": reference}},
                    },
                )
    return result


def drop_untyped_nullable(result, generator, request, public):
    """drf-spectacular writes `nullable: true` beside no `type` for a nullable
    JSONField; OpenAPI 3.0 gives `nullable` no meaning there (a schema without
    `type` already admits null) and linters reject it (Redocly's
    `nullable-type-sibling`), so it is left out."""
    _drop_nullable(result.get("components", {}).get("schemas", {}))
    _drop_nullable(result.get("paths", {}))
    return result


def _drop_nullable(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("nullable") is True and "type" not in node and not _composed(node):
            del node["nullable"]
        for value in node.values():
            _drop_nullable(value)
    elif isinstance(node, list):
        for value in node:
            _drop_nullable(value)


def _composed(node: dict[str, Any]) -> bool:
    return any(key in node for key in ("allOf", "oneOf", "anyOf", "$ref"))


def set_servers(result, generator, request, public):
    """`servers`: the site's address (settings.SITE_URL), or this host."""
    result["servers"] = [
        {"url": getattr(settings, "SITE_URL", "") or "/", "description": "This site"}
    ]
    return result


# PostgreSQL's column ranges are Django's defaults (its backend overrides none);
# tests/test_api_contract.py checks that against the backend itself.
POSTGRESQL_INTEGER_RANGES = BaseDatabaseOperations.integer_field_ranges
INT32 = (-(2**31), 2**31 - 1)


def integer_bounds_as_on_postgresql(result, generator, request, public):
    """State the bounds a model's integer column gives a serializer field as
    PostgreSQL's, whichever database generated the schema.

    DRF bounds a model integer field by the default connection's column range:
    SQLite stores 64 bits for every integer type, PostgreSQL's ``integer``
    stops at 2**31 - 1. A bound equal to this connection's range for the
    field's type becomes PostgreSQL's (a stricter validator's bound stays), and
    ``format: int64`` is set as drf-spectacular sets it: only past 32 bits.
    """
    schemas = result.get("components", {}).get("schemas", {})
    # drf-spectacular keeps the serializer behind each component only in its
    # registry (no public accessor; drf-spectacular is pinned)
    for component in generator.registry._components.values():
        schema = schemas.get(component.name)
        serializer = _serializer(component.object)
        if schema is None or serializer is None:
            continue
        properties = schema.get("properties", {})
        for name, kind in _model_integer_fields(serializer):
            if name in properties:
                _as_on_postgresql(properties[name], kind)
    return result


def _serializer(obj: Any) -> serializers.Serializer | None:
    if isinstance(obj, type) and issubclass(obj, serializers.Serializer):
        try:
            obj = obj()
        except Exception:  # a serializer that needs arguments: no model fields
            return None
    model = getattr(getattr(obj, "Meta", None), "model", None)
    if isinstance(obj, serializers.Serializer) and model is not None:
        return obj
    return None


def _model_integer_fields(serializer: serializers.Serializer):
    """(field name, internal type) of the serializer's fields that stand for
    an integer column of its model."""
    options = serializer.Meta.model._meta
    for name, field in serializer.fields.items():
        if not isinstance(field, serializers.IntegerField) or "." in field.source:
            continue
        try:
            column = options.get_field(field.source)
        except Exception:  # a computed field (method, property): no column
            continue
        if isinstance(column, models.IntegerField):
            yield name, column.get_internal_type()


def _as_on_postgresql(
    prop: dict[str, Any], kind: str, *, here: tuple[int, int] | None = None
) -> None:
    """``prop``'s bounds equal to ``here`` (this connection's column range for
    ``kind``) become PostgreSQL's."""
    here = here or connection.ops.integer_field_range(kind)
    there = POSTGRESQL_INTEGER_RANGES[kind]
    changed = False
    for key, ours, theirs in zip(("minimum", "maximum"), here, there, strict=True):
        if key in prop and prop[key] == ours != theirs:
            prop[key] = theirs
            changed = True
    if not changed:
        return
    if all(INT32[0] <= prop.get(k, 0) <= INT32[1] for k in ("minimum", "maximum")):
        prop.pop("format", None)
    else:
        prop["format"] = "int64"
