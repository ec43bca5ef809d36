"""Every API answer a test receives is held to the published OpenAPI schema.

`tests/conftest.py` wraps Django's test client (and so DRF's `APIClient`,
which sends through it): each response to a request under `/api/v1/` is
validated with openapi-core against the schema drf-spectacular generates from
the code, once per session. The first mismatch fails the test with
`SchemaMismatchError`, naming the operation, the status and what differs, so an
endpoint added without declaring its answers fails loudly wherever a test
calls it.

Two framework answers are not operations and so are not in the schema: a JSON
404 for a URL no operation matches (`config.api.not_found`), and 405 for a
method the path does not have.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.core import signals
from django.db import close_old_connections
from django.http import HttpResponse, StreamingHttpResponse
from openapi_core import Config, OpenAPI
from openapi_core.datatypes import RequestParameters
from openapi_core.deserializing.media_types.util import json_loads, plain_loads
from openapi_core.templating.paths.exceptions import (
    OperationNotFound,
    PathNotFound,
    ServerNotFound,
)
from werkzeug.datastructures import Headers, ImmutableMultiDict

API_PREFIX = "/api/v1/"


class SchemaMismatchError(AssertionError):
    """An API answer the schema does not describe."""


def generate_schema() -> dict[str, Any]:
    """The schema `/api/schema/` serves, generated from the code."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def validator(schema: dict[str, Any]) -> OpenAPI:
    """openapi-core for `schema`, matching any host (tests call `testserver`)."""
    local = copy.deepcopy(schema)
    local["servers"] = [{"url": "/"}]
    return OpenAPI.from_dict(local, config=Config(extra_media_type_deserializers=TEXT))


# Media types openapi-core reads as bytes (or XML elements): their schemas say
# "a string", so they are compared as text; CSL-JSON and DataCite JSON are JSON.
TEXT = {
    "text/csv": plain_loads,
    "application/xml": plain_loads,
    "application/x-bibtex": plain_loads,
    "application/vnd.citationstyles.csl+json": json_loads,
    "application/vnd.datacite.datacite+json": json_loads,
}


@dataclass
class _Request:
    """The request side openapi-core needs to find the operation."""

    method: str
    path: str
    query: dict[str, list[str]] = field(default_factory=dict)
    host_url: str = "http://testserver"
    path_pattern: None = None
    body: bytes = b""
    content_type: str = ""

    @cached_property
    def parameters(self) -> RequestParameters:
        return RequestParameters(query=ImmutableMultiDict(self.query))


class _Response:
    def __init__(self, response: HttpResponse):
        self.status_code = response.status_code
        self.content_type = response.get("Content-Type", "")
        self.headers = Headers(list(response.headers.items()))
        if isinstance(response, StreamingHttpResponse):
            content = b"".join(response.streaming_content)
            response.streaming_content = [content]  # the test still reads it
            self.data = content
        else:
            self.data = response.content


def check_response(spec: OpenAPI, request, response: HttpResponse) -> None:
    """Raise `SchemaMismatchError` when `response` (to the WSGI `request`) is
    not what the schema says the operation answers."""
    path = request.path
    if not path.startswith(API_PREFIX):
        return
    method = request.method.lower()
    probe = _Request(method=method, path=path, query=dict(request.GET.lists()))
    errors = []
    try:
        spec.validate_response(probe, _Response(response))
    except (PathNotFound, ServerNotFound):
        if response.status_code == 404:
            return  # an unknown URL: the JSON 404 of config.api.not_found
        errors.append(f"no operation in the schema matches {path}")
    except OperationNotFound:
        if response.status_code == 405:
            return  # a method this path does not have
        errors.append(f"the schema has no {method.upper()} operation on {path}")
    except Exception as exc:  # openapi-core's validation errors
        errors.append(_describe(exc))
    if errors:
        raise SchemaMismatchError(
            f"{request.method} {request.get_full_path()} answered "
            f"{response.status_code} {response.get('Content-Type', '')!r}, "
            f"which the OpenAPI schema does not describe: {errors[0]}\n"
            "Declare this answer in the view's extend_schema (docs/api.md)."
            f"\nBody: {_excerpt(response)}"
        )


def _describe(exc: BaseException) -> str:
    reasons = [str(exc)]
    cause = exc.__cause__
    for inner in getattr(cause, "schema_errors", None) or []:
        location = "/".join(str(part) for part in inner.absolute_path)
        reasons.append(f"at /{location}: {inner.message}")
    if cause is not None and not getattr(cause, "schema_errors", None):
        reasons.append(str(cause))
    return "; ".join(reasons[:6])


def _excerpt(response: HttpResponse) -> str:
    if isinstance(response, StreamingHttpResponse):
        return "(streamed)"
    return response.content[:300].decode("utf-8", "replace")


@contextlib.contextmanager
def keep_test_connection() -> Iterator[None]:
    """Requests sent in-process to the WSGI app (Schemathesis, a generated
    client) keep the test's database connection and its transaction open, as
    Django's test client does."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
